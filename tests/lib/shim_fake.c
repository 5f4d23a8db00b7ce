// SPDX-License-Identifier: GPL-2.0
/*
 * The fake kernel behind ld --wrap=open,ioctl,fstat,close for the
 * host-only library tests; see shim_fake.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "shim_fake.h"

struct shim_fake fake;

static dev_t fake_rdev(void)
{
	return makedev(10, 123);
}

void fake_open_fails(int err)
{
	assert_true(fake.open_queued < FAKE_QUEUE);
	fake.open_err[fake.open_queued++] = err;
}

void fake_ioctl_returns(long ret)
{
	assert_true(fake.ioctl_queued < FAKE_QUEUE);
	fake.ioctl_ret[fake.ioctl_queued++] = ret;
}

void fake_syscall_returns(long ret)
{
	assert_true(fake.syscall_queued < FAKE_QUEUE);
	fake.syscall_ret[fake.syscall_queued++] = ret;
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
		info->nr_slots = ROBUST_LIST2_NR_SLOTS;
		info->walk_limit = 1 << 20;
		info->features = ROBUST_LIST2_F_LIST64 | ROBUST_LIST2_F_LIST32;
		break;
	case ROBUST_LIST2_IOC_GET:
		*(void **)(uintptr_t)fake.arg.get.head_ptr = fake.get_head;
		((struct robust_list2_get *)arg)->head = fake.get_head64;
		((struct robust_list2_get *)arg)->type = fake.get_type;
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

	if (req == ROBUST_LIST2_IOC_SET_WINDOW) {
		fake.nr_window++;
		if (fd < 0 || fd >= FAKE_NR_FDS || fake.file[fd] != FAKE_DEVICE)
			return fake_fail(EBADF);
		fake.window_on_fd[fd]++;
		memcpy(&fake.window, arg, sizeof(fake.window));
		return fake.window_err ? fake_fail(fake.window_err) : 0;
	}
	if (fd >= 0 && fd < FAKE_NR_FDS && fake.file[fd] == FAKE_DEVICE &&
	    !fake.window_on_fd[fd])
		fake.before_window++;

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

/* The native backend's system calls: recorded, answered from the script. */
long __wrap_syscall(long nr, ...)
{
	va_list ap;
	long ret;

	va_start(ap, nr);
	for (int i = 0; i < 4; i++)
		fake.syscall_arg[i] = va_arg(ap, long);
	va_end(ap);
	fake.nr_syscall++;
	fake.syscall_nr = nr;
	ret = fake.syscall_used < fake.syscall_queued ?
	      fake.syscall_ret[fake.syscall_used++] : -ENOSYS;
	return ret < 0 ? fake_fail((int)-ret) : ret;
}

/* The native backend's memory of its probe, where it is linked in. */
void rl2__native_reset(void) __attribute__((weak));

/*
 * Leave the library without a descriptor, whatever an earlier test left
 * cached: every fake descriptor is closed, so a cached one answers EBADF
 * and fstat() disowns it, and the (re)open fails with ENOENT.  Either way
 * the call ends in ENOSYS with nothing cached.
 */
int fake_reset(void **state)
{
	struct robust_list2_info info;

	if (rl2__native_reset)
		rl2__native_reset();	/* asks the (fake) kernel again */
	memset(&fake, 0, sizeof(fake));
	fake_open_fails(ENOENT);
	if (robust_list2_info(&info) != -1 || errno != ENOSYS ||
	    fake.open_used != 1) {
		print_error("reset: the library kept its descriptor (broken EBADF reopen or -1/errno convention)\n");
		return -1;
	}
	memset(&fake, 0, sizeof(fake));
	fake.next_fd = FAKE_FD;
	if (rl2__native_reset)
		rl2__native_reset();
	return 0;
}

/* Scribble over the stack the library's argument structs will occupy. */
void __attribute__((noinline)) dirty_stack(void)
{
	volatile unsigned char junk[1024];

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = 0xcc;
}

void expect_errno(int err, long ret)
{
	assert_int_equal(-1, ret);
	assert_int_equal(err, errno);
}

long set64(void)
{
	return set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0);
}
