// SPDX-License-Identifier: GPL-2.0
/*
 * set_robust_list2()/get_robust_list2(): round trips, per-thread slots,
 * and every error the SPEC names, with errno checked on each failure and
 * output pointers pre-filled with sentinels.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "helpers.h"

#define SENTINEL ((void *)(uintptr_t)0xdeadbeefdeadbeefULL)

static struct robust_list_head heads[ROBUST_LIST2_NR_SLOTS];
static struct robust_list_head32 *low_heads;	/* below 4 GiB */

static int setup(void **state)
{
	low_heads = th_shared_alloc(4096, true);
	return low_heads ? 0 : -1;
}

static int teardown(void **state)
{
	th_free(low_heads, 4096);
	return 0;
}

/* Every test starts and ends with all of this thread's slots empty. */
static void clear_all(void)
{
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		assert_int_equal(0, set_robust_list2(NULL, i, TH_NATIVE, 0));
}

static void *get_slot(int pid, unsigned int index)
{
	void *head = SENTINEL;

	assert_int_equal(0, get_robust_list2(pid, &head, index, 0));
	return head;
}

static void expect_errno(long ret, int err)
{
	assert_int_equal(-1, ret);
	assert_int_equal(err, errno);
}

static void test_list_limit_is_8(void **state)
{
	assert_int_equal(ROBUST_LIST2_NR_SLOTS,
			 set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, 0));
	/* head is ignored */
	assert_int_equal(ROBUST_LIST2_NR_SLOTS,
			 set_robust_list2(&heads[0], 7, FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, 0));
	/* and nothing was registered by it */
	assert_null(get_slot(0, 0));
	assert_null(get_slot(0, 7));
}

static void test_roundtrip_64_every_slot(void **state)
{
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		assert_int_equal(0, set_robust_list2(&heads[i], i, TH_NATIVE, 0));
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		assert_ptr_equal(&heads[i], get_slot(0, i));
	clear_all();
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		assert_null(get_slot(0, i));
}

static void test_roundtrip_32_zero_extended(void **state)
{
	/* The v6 patch wrote 4 bytes only; we must write the whole pointer. */
	assert_int_equal(0, set_robust_list2((void *)&low_heads[1], 2, FUTEX_ROBUST_LIST_CMD_SET_32, 0));
	assert_ptr_equal(&low_heads[1], get_slot(0, 2));
	clear_all();
}

static void test_set_twice_overwrites(void **state)
{
	assert_int_equal(0, set_robust_list2(&heads[0], 4, TH_NATIVE, 0));
	assert_int_equal(0, set_robust_list2(&heads[1], 4, TH_NATIVE, 0));
	assert_ptr_equal(&heads[1], get_slot(0, 4));
	/* a 64-bit slot overwritten by a 32-bit list and back */
	assert_int_equal(0, set_robust_list2((void *)&low_heads[0], 4, FUTEX_ROBUST_LIST_CMD_SET_32, 0));
	assert_ptr_equal(&low_heads[0], get_slot(0, 4));
	assert_int_equal(0, set_robust_list2(&heads[2], 4, TH_NATIVE, 0));
	assert_ptr_equal(&heads[2], get_slot(0, 4));
	clear_all();
}

static void test_set_null_empties_slot(void **state)
{
	assert_int_equal(0, set_robust_list2(&heads[0], 1, TH_NATIVE, 0));
	assert_int_equal(0, set_robust_list2(NULL, 1, TH_NATIVE, 0));
	assert_null(get_slot(0, 1));
	assert_int_equal(0, set_robust_list2((void *)&low_heads[0], 1, FUTEX_ROBUST_LIST_CMD_SET_32, 0));
	assert_int_equal(0, set_robust_list2(NULL, 1, FUTEX_ROBUST_LIST_CMD_SET_32, 0));
	assert_null(get_slot(0, 1));
	/* emptying an empty slot is fine */
	assert_int_equal(0, set_robust_list2(NULL, 6, FUTEX_ROBUST_LIST_CMD_SET_32, 0));
}

static void test_set_einval_flags(void **state)
{
	expect_errno(set_robust_list2(&heads[0], 0, TH_NATIVE, 1), EINVAL);
	expect_errno(set_robust_list2(&heads[0], 0, TH_NATIVE, 0x80000000u), EINVAL);
	expect_errno(set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, 2), EINVAL);
	assert_null(get_slot(0, 0));
}

static void test_set_einval_cmd(void **state)
{
	/*
	 * 3 and 4 are the native kernel's CREATE_64/_32 (kernel-series/);
	 * the module creates through robust_list2_create() only.
	 */
	expect_errno(set_robust_list2(&heads[0], 0, th_native() ? 5 : 3, 0), EINVAL);
	expect_errno(set_robust_list2(&heads[0], 0, 128, 0), EINVAL);
	expect_errno(set_robust_list2(&heads[0], 0, UINT_MAX, 0), EINVAL);
	assert_null(get_slot(0, 0));
}

static void test_set_einval_index(void **state)
{
	expect_errno(set_robust_list2(&heads[0], ROBUST_LIST2_NR_SLOTS, TH_NATIVE, 0), EINVAL);
	expect_errno(set_robust_list2(&heads[0], UINT_MAX, FUTEX_ROBUST_LIST_CMD_SET_32, 0), EINVAL);
	/* the v6 syscall checks the index before looking at the command */
	expect_errno(set_robust_list2(NULL, ROBUST_LIST2_NR_SLOTS, FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, 0),
		     EINVAL);
}

static void test_set_einval_alignment(void **state)
{
	char *p64 = (char *)&heads[0];
	char *p32 = (char *)&low_heads[0];

	if (TH_LP64) {
		expect_errno(set_robust_list2((void *)(p64 + 4), 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0),
			     EINVAL);
		expect_errno(set_robust_list2((void *)(p64 + 1), 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0),
			     EINVAL);
	}
	expect_errno(set_robust_list2((void *)(p32 + 2), 0, FUTEX_ROBUST_LIST_CMD_SET_32, 0), EINVAL);
	expect_errno(set_robust_list2((void *)(p32 + 1), 0, FUTEX_ROBUST_LIST_CMD_SET_32, 0), EINVAL);
	/* a 32-bit list lives below 4 GiB: its head too */
	if (TH_LP64)
		expect_errno(set_robust_list2((void *)(uintptr_t)(1ULL << 32), 0,
					      FUTEX_ROBUST_LIST_CMD_SET_32, 0), EINVAL);
	assert_null(get_slot(0, 0));
	/* 4-byte alignment is enough for a 32-bit list */
	assert_int_equal(0, set_robust_list2((void *)(p32 + 4), 0, FUTEX_ROBUST_LIST_CMD_SET_32, 0));
	assert_ptr_equal(p32 + 4, get_slot(0, 0));
	clear_all();
}

/* One list in two slots of a thread would be walked twice: refused. */
static void test_same_head_in_two_slots_einval(void **state)
{
	assert_int_equal(0, set_robust_list2((void *)&low_heads[0], 1, FUTEX_ROBUST_LIST_CMD_SET_32, 0));
	expect_errno(set_robust_list2((void *)&low_heads[0], 2, FUTEX_ROBUST_LIST_CMD_SET_32, 0), EINVAL);
	assert_null(get_slot(0, 2));
	/* the same address in the other layout is the same memory */
	if (TH_LP64)
		expect_errno(set_robust_list2((void *)&low_heads[0], 3, FUTEX_ROBUST_LIST_CMD_SET_64, 0),
			     EINVAL);
	expect_errno(robust_list2_create((void *)&low_heads[0], FUTEX_ROBUST_LIST_CMD_SET_32), EINVAL);
	/* setting it again in its own slot is an overwrite, not a duplicate */
	assert_int_equal(0, set_robust_list2((void *)&low_heads[0], 1, FUTEX_ROBUST_LIST_CMD_SET_32, 0));
	clear_all();
	assert_int_equal(0, set_robust_list2((void *)&low_heads[0], 2, FUTEX_ROBUST_LIST_CMD_SET_32, 0));
	clear_all();
}

static void test_set_64_from_32bit_eopnotsupp(void **state)
{
	if (TH_LP64) {
		/* a 64-bit process may use both */
		assert_int_equal(0, set_robust_list2(&heads[0], 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0));
		clear_all();
		return;
	}
	/* checked after flags, cmd and index, before the head */
	expect_errno(set_robust_list2(&heads[0], 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0), EOPNOTSUPP);
	expect_errno(set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0), EOPNOTSUPP);
	expect_errno(set_robust_list2((void *)((char *)&heads[0] + 1), 0,
				      FUTEX_ROBUST_LIST_CMD_SET_64, 0), EOPNOTSUPP);
	expect_errno(set_robust_list2(&heads[0], 8, FUTEX_ROBUST_LIST_CMD_SET_64, 0), EINVAL);
	expect_errno(set_robust_list2(&heads[0], 0, FUTEX_ROBUST_LIST_CMD_SET_64, 1), EINVAL);
	expect_errno(robust_list2_create(&heads[0], FUTEX_ROBUST_LIST_CMD_SET_64), EOPNOTSUPP);
	assert_null(get_slot(0, 0));
}

static void test_get_einval(void **state)
{
	void *head = SENTINEL;

	expect_errno(get_robust_list2(0, &head, ROBUST_LIST2_NR_SLOTS, 0), EINVAL);
	expect_errno(get_robust_list2(0, &head, UINT_MAX, 0), EINVAL);
	expect_errno(get_robust_list2(0, &head, 0, 1), EINVAL);
	/* index is checked before the pid */
	expect_errno(get_robust_list2(INT_MAX, &head, ROBUST_LIST2_NR_SLOTS, 0), EINVAL);
	assert_ptr_equal(SENTINEL, head);
}

static void test_get_esrch(void **state)
{
	void *head = SENTINEL;

	expect_errno(get_robust_list2(INT_MAX, &head, 0, 0), ESRCH);
	expect_errno(get_robust_list2(-1, &head, 0, 0), ESRCH);
	expect_errno(get_robust_list2(INT_MIN, &head, 0, 0), ESRCH);
	assert_ptr_equal(SENTINEL, head);
}

static void test_get_efault(void **state)
{
	void **ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(ro != MAP_FAILED);
	expect_errno(get_robust_list2(0, NULL, 0, 0), EFAULT);
	expect_errno(get_robust_list2(0, ro, 0, 0), EFAULT);
	if (TH_LP64) {
		expect_errno(get_robust_list2(0, (void **)(uintptr_t)0xffffffffff600000ULL, 0, 0),
			     EFAULT);
		expect_errno(get_robust_list2(0, (void **)(uintptr_t)0xffff888000000000ULL, 0, 0),
			     EFAULT);
	} else {
		/* above a compat task's TASK_SIZE: kernel memory */
		expect_errno(get_robust_list2(0, (void **)(uintptr_t)0xfffff000U, 0, 0), EFAULT);
	}
	munmap(ro, 4096);
}

/*
 * SET's argument block itself unreadable: NULL, unmapped, running off the
 * end of a mapping (the handler reads all 24 bytes in one user-access
 * window), kernel memory.  No slot may change.
 */
static void test_set_arg_efault(void **state)
{
	int fd;
	size_t page = th_page_size();
	char *map;
	struct robust_list2_set *tail;

	TH_MODULE_ONLY("the argument block of the device's SET ioctl");
	fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);
	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(fd >= 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(0, munmap(map + page, page));
	/* a valid request whose last 8 bytes lie on the unmapped page */
	tail = (struct robust_list2_set *)(map + page - 16);
	memset(tail, 0, 16);
	tail->head = (uintptr_t)&heads[0];
	expect_errno(ioctl(fd, ROBUST_LIST2_IOC_SET, NULL), EFAULT);
	expect_errno(ioctl(fd, ROBUST_LIST2_IOC_SET, map + page), EFAULT);
	expect_errno(ioctl(fd, ROBUST_LIST2_IOC_SET, tail), EFAULT);
	if (TH_LP64)
		expect_errno(ioctl(fd, ROBUST_LIST2_IOC_SET, (void *)(uintptr_t)0xffff888000000000ULL),
			     EFAULT);
	else
		expect_errno(ioctl(fd, ROBUST_LIST2_IOC_SET, (void *)(uintptr_t)0xfffff000U), EFAULT);
	assert_null(get_slot(0, 0));
	munmap(map, page);
	close(fd);
}

static void test_get_tid_of_self_equals_pid_0(void **state)
{
	assert_int_equal(0, set_robust_list2(&heads[3], 5, TH_NATIVE, 0));
	assert_ptr_equal(&heads[3], get_slot(th_gettid(), 5));
	assert_ptr_equal(&heads[3], get_slot(0, 5));
	clear_all();
}

struct thread_arg {
	volatile int phase;
	pid_t tid;
	void *seen[ROBUST_LIST2_NR_SLOTS];
};

static void *thread_sets_slot(void *p)
{
	struct thread_arg *a = p;

	a->tid = th_gettid();
	/* a new thread starts with every slot empty */
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++) {
		a->seen[i] = SENTINEL;
		if (get_robust_list2(0, &a->seen[i], i, 0))
			a->seen[i] = SENTINEL;
	}
	set_robust_list2(&heads[7], 2, TH_NATIVE, 0);
	__atomic_store_n(&a->phase, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&a->phase, __ATOMIC_ACQUIRE) != 2)
		usleep(100);
	return NULL;
}

static void test_slots_are_per_thread(void **state)
{
	struct thread_arg a = { 0 };
	pthread_t t;

	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		assert_int_equal(0, set_robust_list2(&heads[i], i, TH_NATIVE, 0));
	assert_int_equal(0, pthread_create(&t, NULL, thread_sets_slot, &a));
	while (__atomic_load_n(&a.phase, __ATOMIC_ACQUIRE) != 1)
		usleep(100);

	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		assert_null(a.seen[i]);
	/* the other thread's slot, read by TID; ours unchanged */
	assert_ptr_equal(&heads[7], get_slot(a.tid, 2));
	assert_null(get_slot(a.tid, 0));
	assert_ptr_equal(&heads[2], get_slot(0, 2));

	__atomic_store_n(&a.phase, 2, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	clear_all();
}

static int child_checks_empty(void *arg)
{
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++) {
		void *head = SENTINEL;

		if (get_robust_list2(0, &head, i, 0) || head)
			return 1;
	}
	/* and the inherited descriptor works for the child's own slots */
	if (set_robust_list2(&heads[0], 0, TH_NATIVE, 0))
		return 2;
	return 0;
}

static void test_fork_child_starts_empty(void **state)
{
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		assert_int_equal(0, set_robust_list2(&heads[i], i, TH_NATIVE, 0));
	assert_int_equal(0, th_wait_child(th_spawn_child(child_checks_empty, NULL)));
	assert_ptr_equal(&heads[5], get_slot(0, 5));
	clear_all();
}

struct holder {
	uint32_t ready;
	uint32_t go;
};

static int child_holds_slot(void *arg)
{
	struct holder *h = arg;

	if (set_robust_list2(&heads[6], 3, TH_NATIVE, 0))
		return 1;
	__atomic_store_n(&h->ready, 1, __ATOMIC_RELEASE);
	th_futex_wake(&h->ready, 1, false);
	while (!__atomic_load_n(&h->go, __ATOMIC_ACQUIRE))
		if (th_futex_wait(&h->go, 0, TH_TIMEOUT_MS, false) == -ETIMEDOUT)
			return 2;
	return 0;
}

static pid_t spawn_holder(struct holder *h)
{
	pid_t pid = th_spawn_child(child_holds_slot, h);

	while (!__atomic_load_n(&h->ready, __ATOMIC_ACQUIRE))
		th_futex_wait(&h->ready, 0, 100, false);
	return pid;
}

static void release_holder(struct holder *h, pid_t pid)
{
	__atomic_store_n(&h->go, 1, __ATOMIC_RELEASE);
	th_futex_wake(&h->go, 1, false);
	assert_int_equal(0, th_wait_child(pid));
}

static void test_get_other_process(void **state)
{
	struct holder *h = th_shared_alloc(4096, false);
	pid_t pid = spawn_holder(h);

	/* same uid (and root): allowed; the child's address is returned */
	assert_ptr_equal(&heads[6], get_slot(pid, 3));
	assert_null(get_slot(pid, 0));
	release_holder(h, pid);
	th_free(h, 4096);
}

struct eperm_arg {
	pid_t target;
	int legacy_errno;
	int new_errno;
};

static int child_unprivileged_get(void *p)
{
	struct eperm_arg *a = p;
	void *head = SENTINEL;
	size_t len;

	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		return 10;
	a->new_errno = get_robust_list2(a->target, &head, 3, 0) ? errno : 0;
	a->legacy_errno = syscall(SYS_get_robust_list, a->target, &head, &len) ? errno : 0;
	return head == SENTINEL ? 0 : 11;
}

static void test_get_other_uid_eperm(void **state)
{
	struct holder *h = th_shared_alloc(4096, false);
	struct eperm_arg *a = (void *)(h + 1);
	pid_t holder = spawn_holder(h);

	a->target = holder;
	assert_int_equal(0, th_wait_child(th_spawn_child(child_unprivileged_get, a)));
	assert_int_equal(EPERM, a->new_errno);
	/* the same answer as the kernel's own get_robust_list() */
	assert_int_equal(a->legacy_errno, a->new_errno);
	release_holder(h, holder);
	th_free(h, 4096);
}

static void test_legacy_list_untouched(void **state)
{
	struct robust_list_head legacy, *got = NULL, *glibc = NULL;
	size_t len = 0;

	assert_int_equal(0, syscall(SYS_get_robust_list, 0, &glibc, &len));
	th_list64_init(&legacy, TH_OFF64);
	assert_int_equal(0, syscall(SYS_set_robust_list, &legacy, sizeof(legacy)));
	assert_int_equal(0, set_robust_list2(&heads[0], 0, TH_NATIVE, 0));
	assert_int_equal(0, syscall(SYS_get_robust_list, 0, &got, &len));
	assert_ptr_equal(&legacy, got);
	assert_ptr_equal(&heads[0], get_slot(0, 0));
	clear_all();
	assert_int_equal(0, syscall(SYS_get_robust_list, 0, &got, &len));
	assert_ptr_equal(&legacy, got);
	/* glibc's own list goes back in place */
	assert_int_equal(0, syscall(SYS_set_robust_list, glibc, sizeof(legacy)));
}

/*
 * ABI version 1 also answered two private prctl(2) options through a hook on
 * the syscall; ABI 2 has no hook outside the exit/exec path: the kernel's own
 * prctl() answers them as unknown options, and the feature bit stays clear.
 */
#define OLD_PRCTL_SET	0x524c3253	/* "RL2S" */
#define OLD_PRCTL_GET	0x524c3247	/* "RL2G" */

/*
 * The module locates kernel functions with kprobes registered disabled and
 * removed at once: none may be left behind (debugfs lists every kprobe).
 */
static void test_no_kprobe_left(void **state)
{
	char line[512];
	FILE *f = fopen("/sys/kernel/debug/kprobes/list", "r");

	if (!f)
		skip();
	while (fgets(line, sizeof(line), f))
		assert_null(strstr(line, "futex") ?: strstr(line, "ptrace_may_access"));
	fclose(f);
}

static void test_no_prctl_entry(void **state)
{
	struct robust_list2_info info;
	void *got = SENTINEL;

	assert_int_equal(0, robust_list2_info(&info));
	assert_int_equal(0, info.features & (1ULL << 8));
	assert_int_equal(-1, prctl(OLD_PRCTL_SET, &heads[1], 1, TH_NATIVE, 0));
	assert_int_equal(EINVAL, errno);
	assert_int_equal(-1, prctl(OLD_PRCTL_GET, 0, &got, 1, 0));
	assert_int_equal(EINVAL, errno);
	assert_ptr_equal(SENTINEL, got);
}

static void test_info(void **state)
{
	struct robust_list2_info info;

	memset(&info, 0xcc, sizeof(info));
	assert_int_equal(0, robust_list2_info(&info));
	/* the kernel's own calls have no ioctl ABI (robust_list2_info(3)) */
	assert_int_equal(th_native() ? 0 : ROBUST_LIST2_ABI_VERSION, info.abi_version);
	assert_int_equal(ROBUST_LIST2_NR_SLOTS, info.nr_slots);
	assert_true(info.walk_limit > 2048);
	/* SET_64 is offered to 64-bit callers only */
	assert_int_equal(TH_LP64, !!(info.features & ROBUST_LIST2_F_LIST64));
	assert_true(info.features & ROBUST_LIST2_F_LIST32);
	for (unsigned int i = 0; i < sizeof(info.reserved) / sizeof(info.reserved[0]); i++)
		assert_int_equal(0, info.reserved[i]);
	expect_errno(robust_list2_info(NULL), EFAULT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_limit_is_8),
		cmocka_unit_test(test_roundtrip_64_every_slot),
		cmocka_unit_test(test_roundtrip_32_zero_extended),
		cmocka_unit_test(test_set_twice_overwrites),
		cmocka_unit_test(test_set_null_empties_slot),
		cmocka_unit_test(test_set_einval_flags),
		cmocka_unit_test(test_set_einval_cmd),
		cmocka_unit_test(test_set_einval_index),
		cmocka_unit_test(test_set_einval_alignment),
		cmocka_unit_test(test_set_64_from_32bit_eopnotsupp),
		cmocka_unit_test(test_get_einval),
		cmocka_unit_test(test_get_esrch),
		cmocka_unit_test(test_get_efault),
		cmocka_unit_test(test_set_arg_efault),
		cmocka_unit_test(test_get_tid_of_self_equals_pid_0),
		cmocka_unit_test(test_slots_are_per_thread),
		cmocka_unit_test(test_fork_child_starts_empty),
		cmocka_unit_test(test_get_other_process),
		cmocka_unit_test(test_get_other_uid_eperm),
		cmocka_unit_test(test_legacy_list_untouched),
		cmocka_unit_test(test_no_prctl_entry),
		cmocka_unit_test(test_same_head_in_two_slots_einval),
		cmocka_unit_test(test_no_kprobe_left),
		cmocka_unit_test(test_info),
	};

	return cmocka_run_group_tests_name("set_get", tests, setup, teardown);
}
