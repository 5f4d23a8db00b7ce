// SPDX-License-Identifier: GPL-2.0
/*
 * The robust unlock's two cures, called as a program calls them.
 *
 * robust_list2_unlock(): release, clear list_op_pending and wake in one
 * call, with every error.  robust_list2_try_unlock*(): the syscall-free
 * path's contract.  The race both cures close is t_unlock_race.c.
 *
 * Map: the unlock ioctl's cases (test_unlock_*), then the try-unlock
 * contract (test_try_unlock_contract); main() lists them in that order.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "helpers.h"

struct unlock_scene {
	struct robust_list_head head;
	struct robust_list_head32 head32;
	uint32_t sentinel32;		/* right after head32.list_op_pending */
	struct th_lock64 lock;
	struct th_lock32 lock32;
	struct th_waiter w[2];
};

static struct unlock_scene *scene(void)
{
	struct unlock_scene *s = th_shared_alloc(4096, true);

	assert_non_null(s);
	th_list64_init(&s->head, TH_OFF64);
	th_list32_init(&s->head32, TH_OFF32);
	s->sentinel32 = 0xdeadbeef;
	return s;
}

static void expect_errno(long ret, int err)
{
	assert_int_equal(-1, ret);
	assert_int_equal(err, errno);
}

static void start_two_waiters(struct unlock_scene *s, uint32_t *word, bool private)
{
	for (int k = 0; k < 2; k++) {
		s->w[k] = (struct th_waiter){ .uaddr = word, .val = *word, .private = private,
					      .timeout_ms = TH_TIMEOUT_MS };
		assert_int_equal(0, th_waiter_start(&s->w[k]));
	}
}

static void join_waiters(struct unlock_scene *s)
{
	assert_int_equal(0, th_waiter_join(&s->w[0]));
	assert_int_equal(0, th_waiter_join(&s->w[1]));
}

static void test_unlock_releases_clears_and_wakes_one(void **state)
{
	TH_MODULE_ONLY("robust_list2_unlock() is an ioctl of the module");
	struct unlock_scene *s = scene();
	uint32_t tid = th_gettid();

	s->lock.futex = tid | FUTEX_WAITERS;
	s->head.list_op_pending = &s->lock.list;
	start_two_waiters(s, &s->lock.futex, false);

	assert_int_equal(1, robust_list2_unlock(&s->lock.futex, tid, &s->head.list_op_pending,
						TH_POP_NATIVE));
	assert_int_equal(0, s->lock.futex);
	assert_null(s->head.list_op_pending);
	/* exactly one was woken: one is still asleep */
	assert_int_equal(1, th_futex_wake(&s->lock.futex, INT_MAX, false));
	join_waiters(s);
	th_free(s, 4096);
}

static void test_unlock_private_and_pop32(void **state)
{
	TH_MODULE_ONLY("robust_list2_unlock() is an ioctl of the module");
	struct unlock_scene *s = scene();
	uint32_t tid = th_gettid();

	s->lock32.futex = tid | FUTEX_WAITERS;
	s->head32.list_op_pending = th_p32(&s->lock32.list);
	start_two_waiters(s, &s->lock32.futex, true);

	assert_int_equal(1, robust_list2_unlock(&s->lock32.futex, tid, &s->head32.list_op_pending,
						ROBUST_LIST2_UNLOCK_POP32 |
						ROBUST_LIST2_UNLOCK_PRIVATE));
	assert_int_equal(0, s->lock32.futex);
	assert_int_equal(0, s->head32.list_op_pending);
	assert_int_equal(0xdeadbeef, s->sentinel32);	/* 4 bytes, not 8 */
	assert_int_equal(1, th_futex_wake(&s->lock32.futex, INT_MAX, true));
	join_waiters(s);
	th_free(s, 4096);
}

static void test_unlock_without_pop(void **state)
{
	TH_MODULE_ONLY("robust_list2_unlock() is an ioctl of the module");
	struct unlock_scene *s = scene();
	uint32_t tid = th_gettid();

	s->lock.futex = tid;
	assert_int_equal(0, robust_list2_unlock(&s->lock.futex, tid, NULL, 0));
	assert_int_equal(0, s->lock.futex);
	th_free(s, 4096);
}

static void test_unlock_eperm_when_not_owner(void **state)
{
	TH_MODULE_ONLY("robust_list2_unlock() is an ioctl of the module");
	struct unlock_scene *s = scene();
	uint32_t tid = th_gettid();

	s->lock.futex = (tid + 1) | FUTEX_WAITERS;
	s->head.list_op_pending = &s->lock.list;
	expect_errno(robust_list2_unlock(&s->lock.futex, tid, &s->head.list_op_pending, 0), EPERM);
	/* nothing changed */
	assert_int_equal((tid + 1) | FUTEX_WAITERS, s->lock.futex);
	assert_ptr_equal(&s->lock.list, s->head.list_op_pending);
	s->lock.futex = 0;
	expect_errno(robust_list2_unlock(&s->lock.futex, tid, NULL, 0), EPERM);
	th_free(s, 4096);
}

static long raw_unlock(struct robust_list2_unlock *a)
{
	return ioctl(robust_list2_fd(), ROBUST_LIST2_IOC_UNLOCK, a);
}

static void test_unlock_einval(void **state)
{
	TH_MODULE_ONLY("robust_list2_unlock() is an ioctl of the module");
	struct unlock_scene *s = scene();
	uint32_t tid = th_gettid();
	struct robust_list2_unlock a = {
		.uaddr = (uintptr_t)&s->lock.futex, .tid = tid, .nr_wake = 1,
	};

	s->lock.futex = tid;
	a.flags = 1U << 3;
	expect_errno(raw_unlock(&a), EINVAL);
	a.flags = 0;
	a.uaddr += 1;
	expect_errno(raw_unlock(&a), EINVAL);
	a.uaddr -= 1;
	a.pop = (uintptr_t)&s->head.list_op_pending + 4;	/* a 64-bit field */
	if (a.pop & 7)
		expect_errno(raw_unlock(&a), EINVAL);
	a.pop = (uintptr_t)&s->head32.list_op_pending + 2;
	a.flags = ROBUST_LIST2_UNLOCK_POP32;
	expect_errno(raw_unlock(&a), EINVAL);
	a.pop = 0;
	a.flags = 0;
	a.nr_wake = 0;
	expect_errno(raw_unlock(&a), EINVAL);
	/* every rejection left the lock alone */
	assert_int_equal(tid, s->lock.futex);
	th_free(s, 4096);
}

static void test_unlock_efault(void **state)
{
	TH_MODULE_ONLY("robust_list2_unlock() is an ioctl of the module");
	struct unlock_scene *s = scene();
	uint32_t tid = th_gettid();
	uint64_t *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(ro != MAP_FAILED);
	expect_errno(robust_list2_unlock((uint32_t *)8, tid, NULL, 0), EFAULT);
	if (TH_LP64)
		expect_errno(robust_list2_unlock((uint32_t *)(uintptr_t)0xffff888000000000ULL,
						 tid, NULL, 0), EFAULT);
	/* a read-only word cannot be released (its owner field, 0, matches) */
	expect_errno(robust_list2_unlock((uint32_t *)ro, 0, NULL, 0), EFAULT);
	s->lock.futex = tid;
	/* pop not writable: the word is already released, as mainline does */
	expect_errno(robust_list2_unlock(&s->lock.futex, tid, ro, TH_POP_NATIVE), EFAULT);
	assert_int_equal(0, s->lock.futex);
	munmap(ro, 4096);
	th_free(s, 4096);
}

static void test_unlock_pi(void **state)
{
	TH_MODULE_ONLY("robust_list2_unlock() is an ioctl of the module");
	struct unlock_scene *s = scene();
	uint32_t tid = th_gettid();

	/* an uncontended PI lock taken in user space, as glibc does */
	s->lock.futex = tid;
	s->head.list_op_pending = (void *)((uintptr_t)&s->lock.list | 1);
	assert_int_equal(0, robust_list2_unlock(&s->lock.futex, tid, &s->head.list_op_pending,
						ROBUST_LIST2_UNLOCK_PI | TH_POP_NATIVE));
	assert_int_equal(0, s->lock.futex);
	assert_null(s->head.list_op_pending);
	/* the kernel's own owner check */
	s->lock.futex = tid + 1;
	expect_errno(robust_list2_unlock(&s->lock.futex, tid, NULL, ROBUST_LIST2_UNLOCK_PI), EPERM);
	th_free(s, 4096);
}

static void test_try_unlock_contract(void **state)
{
	struct unlock_scene *s = scene();
	uint32_t tid = th_gettid();
	uint64_t pop64 = 0x1122334455667788ULL;
	uint32_t pop32[2] = { 0x11223344, 0x55667788 };

	s->lock.futex = tid;
	assert_int_equal(tid, robust_list2_try_unlock64(&s->lock.futex, tid, &pop64));
	assert_int_equal(0, s->lock.futex);
	assert_int_equal(0, pop64);

	/* contended: nothing is done, the caller must use the kernel */
	pop64 = 1;
	s->lock.futex = tid | FUTEX_WAITERS;
	assert_int_equal(tid | FUTEX_WAITERS, robust_list2_try_unlock64(&s->lock.futex, tid, &pop64));
	assert_int_equal(tid | FUTEX_WAITERS, s->lock.futex);
	assert_int_equal(1, pop64);

	s->lock.futex = tid;
	assert_int_equal(tid, robust_list2_try_unlock32(&s->lock.futex, tid, &pop32[0]));
	assert_int_equal(0, s->lock.futex);
	assert_int_equal(0, pop32[0]);
	assert_int_equal(0x55667788, pop32[1]);

	s->lock.futex = tid + 1;
	assert_int_equal(tid + 1, robust_list2_try_unlock32(&s->lock.futex, tid, &pop32[0]));
	assert_int_equal(tid + 1, s->lock.futex);
	th_free(s, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unlock_releases_clears_and_wakes_one),
		cmocka_unit_test(test_unlock_private_and_pop32),
		cmocka_unit_test(test_unlock_without_pop),
		cmocka_unit_test(test_unlock_eperm_when_not_owner),
		cmocka_unit_test(test_unlock_einval),
		cmocka_unit_test(test_unlock_efault),
		cmocka_unit_test(test_unlock_pi),
		cmocka_unit_test(test_try_unlock_contract),
	};

	return cmocka_run_group_tests_name("unlock", tests, NULL, NULL);
}
