// SPDX-License-Identifier: GPL-2.0
/*
 * Host-only unit tests of librobust_list2: descriptor handling, argument
 * marshalling and the errno conventions, with no module and no device.
 *
 * The library archive is linked with ld --wrap=open,ioctl,fstat,close (the
 * symbols `nm -u robust_list2.o` lists), so its calls land in the __wrap_*
 * functions below: a small fake kernel with a descriptor table (each
 * descriptor is our device, another file, or closed, and ioctl()/fstat()
 * answer as the kernel would for each), scripted errors for the next open()
 * and device ioctl() calls, and a record of what the library passed.
 *
 * The library caches its descriptor in a static, so every test starts from
 * a known state: the setup fixture drives the library back to "no
 * descriptor" through its public API (see reset()), and the tests may run
 * in any order.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "robust_list2.h"

#define FAKE_NR_FDS	64
#define FAKE_FD		40		/* first descriptor open() hands out */
#define FAKE_INO	4242
#define FAKE_QUEUE	4
#define NR_SLOTS	8
#define SENTINEL	((void *)(uintptr_t)0xdeadbeefdeadbeefULL)

enum fake_file { FAKE_CLOSED, FAKE_DEVICE, FAKE_OTHER };

static struct {
	enum fake_file file[FAKE_NR_FDS];
	int next_fd;
	/* Scripted results, used in order; once used up, calls succeed. */
	int open_err[FAKE_QUEUE];
	unsigned int open_queued, open_used;
	long ioctl_ret[FAKE_QUEUE];	/* value, or -errno */
	unsigned int ioctl_queued, ioctl_used;
	void (*open_hook)(void);	/* runs once inside the next open() */
	void *get_head;			/* what a successful GET stores */
	/* What the library did. */
	unsigned int nr_open, nr_ioctl, nr_close;
	char open_path[64];
	int open_flags;
	int ioctl_fd[FAKE_QUEUE];	/* descriptors of the first ioctls */
	unsigned long ioctl_req;	/* the last ioctl's request */
	void *ioctl_arg;		/* ... and argument pointer */
	union {
		struct robust_list2_set set;
		struct robust_list2_get get;
	} arg;				/* ... and a copy of its struct */
	int close_fd;			/* the last descriptor closed */
} fake;

static dev_t fake_rdev(void)
{
	return makedev(10, 123);
}

static void fake_open_fails(int err)
{
	assert_true(fake.open_queued < FAKE_QUEUE);
	fake.open_err[fake.open_queued++] = err;
}

static void fake_ioctl_returns(long ret)
{
	assert_true(fake.ioctl_queued < FAKE_QUEUE);
	fake.ioctl_ret[fake.ioctl_queued++] = ret;
}

static int fake_fail(int err)
{
	errno = err;
	return -1;
}

int __wrap_open(const char *path, int flags, ...)
{
	int fd;

	fake.nr_open++;
	snprintf(fake.open_path, sizeof(fake.open_path), "%s", path);
	fake.open_flags = flags;
	if (fake.open_hook) {
		void (*hook)(void) = fake.open_hook;

		fake.open_hook = NULL;
		hook();
	}
	if (fake.open_used < fake.open_queued)
		return fake_fail(fake.open_err[fake.open_used++]);
	fd = fake.next_fd++;
	assert_true(fd < FAKE_NR_FDS);
	fake.file[fd] = FAKE_DEVICE;
	return fd;
}

int __wrap_fstat(int fd, struct stat *st)
{
	if (fd < 0 || fd >= FAKE_NR_FDS || fake.file[fd] == FAKE_CLOSED)
		return fake_fail(EBADF);
	memset(st, 0, sizeof(*st));
	if (fake.file[fd] == FAKE_DEVICE) {
		st->st_mode = S_IFCHR | 0666;
		st->st_rdev = fake_rdev();
		st->st_ino = FAKE_INO;
	} else {
		st->st_mode = S_IFREG | 0644;
		st->st_ino = FAKE_INO + 1;
	}
	return 0;
}

int __wrap_close(int fd)
{
	fake.nr_close++;
	fake.close_fd = fd;
	if (fd < 0 || fd >= FAKE_NR_FDS || fake.file[fd] == FAKE_CLOSED)
		return fake_fail(EBADF);
	fake.file[fd] = FAKE_CLOSED;
	return 0;
}

/* What the module does on success, as far as the library can see it. */
static void fake_device_ioctl(unsigned long req, void *arg)
{
	struct robust_list2_info *info = arg;

	switch (req) {
	case ROBUST_LIST2_IOC_INFO:
		memset(info, 0, sizeof(*info));
		info->abi_version = ROBUST_LIST2_ABI_VERSION;
		info->nr_slots = NR_SLOTS;
		info->walk_limit = 1 << 20;
		info->features = ROBUST_LIST2_F_LIST64 | ROBUST_LIST2_F_LIST32;
		break;
	case ROBUST_LIST2_IOC_GET:
		*(void **)(uintptr_t)fake.arg.get.head_ptr = fake.get_head;
		break;
	}
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	long ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (fake.nr_ioctl < FAKE_QUEUE)
		fake.ioctl_fd[fake.nr_ioctl] = fd;
	fake.nr_ioctl++;
	fake.ioctl_req = req;
	fake.ioctl_arg = arg;
	if (_IOC_SIZE(req) <= sizeof(fake.arg))
		memcpy(&fake.arg, arg, _IOC_SIZE(req));

	if (fd < 0 || fd >= FAKE_NR_FDS || fake.file[fd] == FAKE_CLOSED)
		return fake_fail(EBADF);
	if (fake.file[fd] == FAKE_OTHER)
		return fake_fail(ENOTTY);
	ret = fake.ioctl_used < fake.ioctl_queued ?
	      fake.ioctl_ret[fake.ioctl_used++] : 0;
	if (ret < 0)
		return fake_fail((int)-ret);
	fake_device_ioctl(req, arg);
	return (int)ret;
}

/*
 * Leave the library without a descriptor, whatever an earlier test left
 * cached: every fake descriptor is closed, so a cached one answers EBADF
 * and fstat() disowns it, and the (re)open fails with ENOENT.  Either way
 * the call ends in ENOSYS with nothing cached.
 */
static int reset(void **state)
{
	struct robust_list2_info info;

	memset(&fake, 0, sizeof(fake));
	fake_open_fails(ENOENT);
	if (robust_list2_info(&info) != -1 || errno != ENOSYS ||
	    fake.open_used != 1) {
		print_error("reset: the library kept its descriptor (broken EBADF reopen or -1/errno convention)\n");
		return -1;
	}
	memset(&fake, 0, sizeof(fake));
	fake.next_fd = FAKE_FD;
	return 0;
}

/* Scribble over the stack the library's argument structs will occupy. */
static void __attribute__((noinline)) dirty_stack(void)
{
	volatile unsigned char junk[1024];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = 0xcc;
}

static void expect_errno(int err, long ret)
{
	assert_int_equal(-1, ret);
	assert_int_equal(err, errno);
}

static long set64(void)
{
	return set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0);
}

static void test_absent_device_is_enosys_then_late_open_works(void **state)
{
	int err = *(int *)*state;

	fake_open_fails(err);
	errno = 0;
	expect_errno(ENOSYS, set64());
	assert_int_equal(1, fake.nr_open);
	assert_int_equal(0, fake.nr_ioctl);

	/* modprobe robust_list2: the next call opens and works. */
	assert_int_equal(0, set64());
	assert_int_equal(2, fake.nr_open);
	assert_int_equal(1, fake.nr_ioctl);
	assert_int_equal(FAKE_FD, fake.ioctl_fd[0]);
	assert_int_equal(FAKE_FD, robust_list2_fd());
	assert_int_equal(2, fake.nr_open);
}

static void test_absent_device_every_call_is_enosys(void **state)
{
	struct robust_list2_info info;
	void *head = SENTINEL;

	for (int i = 0; i < 4; i++)
		fake_open_fails(ENOENT);
	expect_errno(ENOSYS, set64());
	expect_errno(ENOSYS, get_robust_list2(0, &head, 0, 0));
	expect_errno(ENOSYS, robust_list2_info(&info));
	expect_errno(ENOSYS, robust_list2_fd());
	assert_ptr_equal(SENTINEL, head);
	assert_int_equal(4, fake.nr_open);
	assert_int_equal(0, fake.nr_ioctl);
}

static void test_open_errno_passes_through(void **state)
{
	int err = *(int *)*state;

	fake_open_fails(err);
	expect_errno(err, set64());
	assert_int_equal(0, fake.nr_ioctl);
	/* Nothing was cached: the next call tries again. */
	assert_int_equal(0, set64());
	assert_int_equal(2, fake.nr_open);
}

static void test_device_opened_once_and_cached(void **state)
{
	struct robust_list2_info info;
	void *head;

	assert_int_equal(0, set64());
	assert_int_equal(0, get_robust_list2(0, &head, 0, 0));
	assert_int_equal(0, robust_list2_info(&info));
	assert_int_equal(FAKE_FD, robust_list2_fd());

	assert_int_equal(1, fake.nr_open);
	assert_string_equal(ROBUST_LIST2_DEVICE, fake.open_path);
	assert_int_equal(O_RDWR, fake.open_flags & O_ACCMODE);
	assert_int_equal(O_CLOEXEC, fake.open_flags & O_CLOEXEC);
	assert_int_equal(3, fake.nr_ioctl);
	for (int i = 0; i < 3; i++)
		assert_int_equal(FAKE_FD, fake.ioctl_fd[i]);
	assert_int_equal(0, fake.nr_close);
}

static void test_set_fills_struct(void **state)
{
	struct robust_list_head head;

	dirty_stack();
	assert_int_equal(0, set_robust_list2(&head, 7,
					     FUTEX_ROBUST_LIST_CMD_SET_32,
					     0xa5a5a5a5));
	assert_int_equal(ROBUST_LIST2_IOC_SET, fake.ioctl_req);
	assert_int_equal((uintptr_t)&head, fake.arg.set.head);
	assert_int_equal(7, fake.arg.set.index);
	assert_int_equal(ROBUST_LIST2_CMD_SET_32, fake.arg.set.cmd);
	assert_int_equal(0xa5a5a5a5, fake.arg.set.flags);
	assert_int_equal(0, fake.arg.set.pad);

	/* NULL empties a slot: head 0, not a truncated or tagged value. */
	dirty_stack();
	assert_int_equal(0, set_robust_list2(NULL, 3,
					     FUTEX_ROBUST_LIST_CMD_SET_64, 0));
	assert_int_equal(0, fake.arg.set.head);
	assert_int_equal(3, fake.arg.set.index);
	assert_int_equal(ROBUST_LIST2_CMD_SET_64, fake.arg.set.cmd);
	assert_int_equal(0, fake.arg.set.flags);
	assert_int_equal(0, fake.arg.set.pad);
}

static void test_get_fills_struct_and_returns_zero(void **state)
{
	struct robust_list_head registered;
	void *head = SENTINEL;

	fake.get_head = &registered;
	fake_ioctl_returns(1);		/* any non-negative ioctl value is success */
	dirty_stack();
	assert_int_equal(0, get_robust_list2(1234, &head, 6, 0));
	assert_int_equal(ROBUST_LIST2_IOC_GET, fake.ioctl_req);
	assert_int_equal((uintptr_t)&head, fake.arg.get.head_ptr);
	assert_int_equal(1234, fake.arg.get.pid);
	assert_int_equal(6, fake.arg.get.index);
	assert_int_equal(0, fake.arg.get.flags);
	assert_ptr_equal(&registered, head);

	/* Flags are the kernel's to judge; the library passes them on. */
	assert_int_equal(0, get_robust_list2(0, &head, 0, 0x80000000));
	assert_int_equal(0, fake.arg.get.pid);
	assert_int_equal(0x80000000, fake.arg.get.flags);
}

static void test_set_kernel_error_is_minus_one_errno(void **state)
{
	int err = *(int *)*state;

	fake_ioctl_returns(-err);
	errno = 0;
	expect_errno(err, set64());
	assert_int_equal(1, fake.nr_ioctl);	/* no retry, no reopen */
	assert_int_equal(1, fake.nr_open);
}

static void test_get_kernel_error_is_minus_one_errno(void **state)
{
	int err = *(int *)*state;
	void *head = SENTINEL;

	fake_ioctl_returns(-err);
	errno = 0;
	expect_errno(err, get_robust_list2(99, &head, 0, 0));
	assert_ptr_equal(SENTINEL, head);
	assert_int_equal(1, fake.nr_ioctl);
	assert_int_equal(1, fake.nr_open);
}

static void test_list_limit_value_passes_through(void **state)
{
	fake_ioctl_returns(NR_SLOTS);
	assert_int_equal(NR_SLOTS, set_robust_list2(NULL, 0,
				FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, 0));
	assert_int_equal(ROBUST_LIST2_CMD_LIST_LIMIT, fake.arg.set.cmd);
}

/* The program closed our descriptor (a daemon closing every fd). */
static void test_closed_descriptor_is_reopened(void **state)
{
	assert_int_equal(FAKE_FD, robust_list2_fd());
	fake.file[FAKE_FD] = FAKE_CLOSED;

	assert_int_equal(0, set64());
	assert_int_equal(2, fake.nr_open);
	assert_int_equal(2, fake.nr_ioctl);
	assert_int_equal(FAKE_FD, fake.ioctl_fd[0]);
	assert_int_equal(FAKE_FD + 1, fake.ioctl_fd[1]);
	assert_int_equal(FAKE_FD + 1, robust_list2_fd());
	assert_int_equal(0, fake.nr_close);
}

/* ... and the number was reused for another file, which must stay open. */
static void test_reused_descriptor_is_reopened(void **state)
{
	assert_int_equal(FAKE_FD, robust_list2_fd());
	fake.file[FAKE_FD] = FAKE_OTHER;

	assert_int_equal(0, set64());
	assert_int_equal(2, fake.nr_open);
	assert_int_equal(FAKE_FD + 1, fake.ioctl_fd[1]);
	assert_int_equal(FAKE_FD + 1, robust_list2_fd());
	assert_int_equal(0, fake.nr_close);
	assert_int_equal(FAKE_OTHER, fake.file[FAKE_FD]);
}

/* ENOTTY from a descriptor that still is our device is the answer. */
static void test_enotty_from_our_device_is_returned(void **state)
{
	fake_ioctl_returns(-ENOTTY);
	expect_errno(ENOTTY, set64());
	assert_int_equal(1, fake.nr_open);
	assert_int_equal(1, fake.nr_ioctl);
	assert_int_equal(FAKE_FD, robust_list2_fd());
}

static void test_reopen_is_tried_once(void **state)
{
	assert_int_equal(FAKE_FD, robust_list2_fd());
	fake.file[FAKE_FD] = FAKE_CLOSED;
	fake_ioctl_returns(-EBADF);	/* the new descriptor fails too */

	expect_errno(EBADF, set64());
	assert_int_equal(2, fake.nr_open);
	assert_int_equal(2, fake.nr_ioctl);
}

static void test_failed_reopen_is_enosys(void **state)
{
	assert_int_equal(FAKE_FD, robust_list2_fd());
	fake.file[FAKE_FD] = FAKE_CLOSED;
	fake_open_fails(ENOENT);	/* and the module is gone */

	expect_errno(ENOSYS, set64());
	assert_int_equal(2, fake.nr_open);
	assert_int_equal(1, fake.nr_ioctl);
	/* Nothing stale was kept: the next call opens again. */
	assert_int_equal(0, set64());
	assert_int_equal(3, fake.nr_open);
}

static void open_from_another_thread(void)
{
	assert_int_equal(FAKE_FD, robust_list2_fd());
}

/* Two first calls race: the loser closes its own descriptor only. */
static void test_open_race_loser_closes_its_descriptor(void **state)
{
	fake.open_hook = open_from_another_thread;

	assert_int_equal(FAKE_FD, robust_list2_fd());
	assert_int_equal(2, fake.nr_open);
	assert_int_equal(1, fake.nr_close);
	assert_int_equal(FAKE_FD + 1, fake.close_fd);
	assert_int_equal(FAKE_DEVICE, fake.file[FAKE_FD]);
	assert_int_equal(0, set64());
	assert_int_equal(FAKE_FD, fake.ioctl_fd[0]);
}

static void test_info_fills_caller_struct(void **state)
{
	struct robust_list2_info info;

	memset(&info, 0xcc, sizeof(info));
	assert_int_equal(0, robust_list2_info(&info));
	assert_int_equal(ROBUST_LIST2_IOC_INFO, fake.ioctl_req);
	assert_ptr_equal(&info, fake.ioctl_arg);
	assert_int_equal(ROBUST_LIST2_ABI_VERSION, info.abi_version);
	assert_int_equal(NR_SLOTS, info.nr_slots);

	fake_ioctl_returns(-EFAULT);
	expect_errno(EFAULT, robust_list2_info(&info));
}

static void test_fd_is_cached_descriptor(void **state)
{
	assert_int_equal(FAKE_FD, robust_list2_fd());
	assert_int_equal(FAKE_FD, robust_list2_fd());
	assert_int_equal(1, fake.nr_open);
	assert_int_equal(0, fake.nr_ioctl);
}

/* The version is dkms.conf's PACKAGE_VERSION, the single source. */
static void test_version_is_package_version(void **state)
{
	char line[256], version[64] = "";
	FILE *f = fopen(RL2_TOP "/dkms.conf", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "PACKAGE_VERSION=\"%63[^\"]\"", version) == 1)
			break;
	fclose(f);
	assert_true(version[0]);
	assert_string_equal(version, robust_list2_version());
	assert_int_equal(0, fake.nr_open);
}

/* One case per errno, named after it: fn(EXXX). */
#define T(fn)		cmocka_unit_test_setup(fn, reset)
#define TE(fn, err)	{ #fn "(" #err ")", fn, reset, NULL, &(int){ err } }

int main(void)
{
	const struct CMUnitTest tests[] = {
		TE(test_absent_device_is_enosys_then_late_open_works, ENOENT),
		TE(test_absent_device_is_enosys_then_late_open_works, ENODEV),
		TE(test_absent_device_is_enosys_then_late_open_works, ENXIO),
		TE(test_absent_device_is_enosys_then_late_open_works, EACCES),
		T(test_absent_device_every_call_is_enosys),
		TE(test_open_errno_passes_through, EMFILE),
		TE(test_open_errno_passes_through, ENFILE),
		TE(test_open_errno_passes_through, ENOMEM),
		TE(test_open_errno_passes_through, EINTR),
		T(test_device_opened_once_and_cached),
		T(test_set_fills_struct),
		T(test_get_fills_struct_and_returns_zero),
		TE(test_set_kernel_error_is_minus_one_errno, EINVAL),
		TE(test_set_kernel_error_is_minus_one_errno, EOPNOTSUPP),
		TE(test_set_kernel_error_is_minus_one_errno, ENOMEM),
		TE(test_set_kernel_error_is_minus_one_errno, EFAULT),
		TE(test_get_kernel_error_is_minus_one_errno, EINVAL),
		TE(test_get_kernel_error_is_minus_one_errno, EPERM),
		TE(test_get_kernel_error_is_minus_one_errno, ESRCH),
		TE(test_get_kernel_error_is_minus_one_errno, EINTR),
		TE(test_get_kernel_error_is_minus_one_errno, EOVERFLOW),
		TE(test_get_kernel_error_is_minus_one_errno, EFAULT),
		T(test_list_limit_value_passes_through),
		T(test_closed_descriptor_is_reopened),
		T(test_reused_descriptor_is_reopened),
		T(test_enotty_from_our_device_is_returned),
		T(test_reopen_is_tried_once),
		T(test_failed_reopen_is_enosys),
		T(test_open_race_loser_closes_its_descriptor),
		T(test_info_fills_caller_struct),
		T(test_fd_is_cached_descriptor),
		T(test_version_is_package_version),
	};

	return cmocka_run_group_tests_name("shim_unit", tests, NULL, NULL);
}
