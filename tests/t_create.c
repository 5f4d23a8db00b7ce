// SPDX-License-Identifier: GPL-2.0
/*
 * robust_list2_create(): the kernel picks the lowest empty slot of the
 * calling thread, so a library and its application never overwrite each
 * other's list.  The v6 calls keep their exact behaviour beside it.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <cmocka.h>

#include "helpers.h"

#define NR_THREADS	16

static struct robust_list_head heads[NR_THREADS][ROBUST_LIST2_NR_SLOTS + 1];

static void clear_all(void)
{
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		assert_int_equal(0, set_robust_list2(NULL, i, TH_NATIVE, 0));
}

static void *get_slot(unsigned int i)
{
	void *head = (void *)1;

	assert_int_equal(0, get_robust_list2(0, &head, i, 0));
	return head;
}

static void test_create_takes_lowest_empty_slot(void **state)
{
	assert_int_equal(0, robust_list2_create(&heads[0][0], TH_NATIVE));
	assert_int_equal(1, robust_list2_create(&heads[0][1], TH_NATIVE));
	assert_ptr_equal(&heads[0][1], get_slot(1));
	/* a released slot is reused first */
	assert_int_equal(0, set_robust_list2(NULL, 0, TH_NATIVE, 0));
	assert_int_equal(0, robust_list2_create(&heads[0][2], TH_NATIVE));
	assert_ptr_equal(&heads[0][2], get_slot(0));
	clear_all();
}

static void test_create_after_set(void **state)
{
	/* a 32-bit list lives below 4 GiB */
	struct robust_list_head32 *low = th_shared_alloc(4096, true);

	assert_non_null(low);
	assert_int_equal(0, set_robust_list2(&heads[0][0], 0, TH_NATIVE, 0));
	assert_int_equal(0, set_robust_list2(&heads[0][1], 1, TH_NATIVE, 0));
	assert_int_equal(0, set_robust_list2(&heads[0][3], 3, TH_NATIVE, 0));
	assert_int_equal(2, robust_list2_create(&heads[0][2], TH_NATIVE));
	assert_int_equal(4, robust_list2_create((void *)low, FUTEX_ROBUST_LIST_CMD_SET_32));
	/* the slots set explicitly are untouched */
	assert_ptr_equal(&heads[0][0], get_slot(0));
	assert_ptr_equal(&heads[0][3], get_slot(3));
	assert_ptr_equal(low, get_slot(4));
	clear_all();
	th_free(low, 4096);
}

static void test_create_enospc_when_full(void **state)
{
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		assert_int_equal(i, robust_list2_create(&heads[0][i], TH_NATIVE));
	assert_int_equal(-1, robust_list2_create(&heads[0][8], TH_NATIVE));
	assert_int_equal(ENOSPC, errno);
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		assert_ptr_equal(&heads[0][i], get_slot(i));
	clear_all();
}

static void test_create_einval(void **state)
{
	struct robust_list2_set a = {
		.head = (uintptr_t)&heads[0][0], .cmd = TH_NATIVE, .index = 1,
	};

	assert_int_equal(-1, robust_list2_create(NULL, TH_NATIVE));
	assert_int_equal(EINVAL, errno);
	assert_int_equal(-1, robust_list2_create(&heads[0][0], FUTEX_ROBUST_LIST_CMD_LIST_LIMIT));
	assert_int_equal(EINVAL, errno);
	assert_int_equal(-1, robust_list2_create(&heads[0][0], 3));
	assert_int_equal(EINVAL, errno);
	assert_int_equal(-1, robust_list2_create((void *)((char *)&heads[0][0] + (TH_LP64 ? 4 : 2)),
						 TH_NATIVE));
	assert_int_equal(EINVAL, errno);
	/*
	 * the index must be 0 (the kernel chooses it); the native kernel's
	 * CREATE_64/_32 commands (3, 4) are set_robust_list2() commands
	 */
	if (th_native())
		assert_int_equal(-1, set_robust_list2(&heads[0][0], 1, TH_LP64 ? 3 : 4, 0));
	else
		assert_int_equal(-1, ioctl(robust_list2_fd(), ROBUST_LIST2_IOC_CREATE, &a));
	assert_int_equal(EINVAL, errno);
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		assert_null(get_slot(i));
}

struct thread_result {
	unsigned int id;
	long idx[ROBUST_LIST2_NR_SLOTS + 1];
	int last_errno;
	int mismatches;
	volatile int *go;
};

static void *creator(void *p)
{
	struct thread_result *r = p;

	while (!__atomic_load_n(r->go, __ATOMIC_ACQUIRE))
		;
	for (unsigned int i = 0; i <= ROBUST_LIST2_NR_SLOTS; i++)
		r->idx[i] = robust_list2_create(&heads[r->id][i], TH_NATIVE);
	r->last_errno = errno;
	/* every slot holds this thread's own heads, in order */
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++) {
		void *head = NULL;

		if (get_robust_list2(0, &head, i, 0) || head != &heads[r->id][i])
			r->mismatches++;
	}
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		set_robust_list2(NULL, i, TH_NATIVE, 0);
	return NULL;
}

static void test_concurrent_create_from_many_threads(void **state)
{
	static struct thread_result r[NR_THREADS];
	pthread_t t[NR_THREADS];
	volatile int go = 0;

	for (unsigned int i = 0; i < NR_THREADS; i++) {
		r[i] = (struct thread_result){ .id = i, .go = &go };
		assert_int_equal(0, pthread_create(&t[i], NULL, creator, &r[i]));
	}
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	for (unsigned int i = 0; i < NR_THREADS; i++)
		pthread_join(t[i], NULL);

	/* slots are per thread: each got 0..7 and then ENOSPC, no collision */
	for (unsigned int i = 0; i < NR_THREADS; i++) {
		for (unsigned int s = 0; s < ROBUST_LIST2_NR_SLOTS; s++)
			assert_int_equal(s, r[i].idx[s]);
		assert_int_equal(-1, r[i].idx[ROBUST_LIST2_NR_SLOTS]);
		assert_int_equal(ENOSPC, r[i].last_errno);
		assert_int_equal(0, r[i].mismatches);
	}
}

static int child_creates_and_dies(void *p)
{
	struct robust_list_head *h = p;
	struct th_lock64 *l = (void *)(h + 1);

	th_list64_init(h, TH_OFF64);
	l->futex = th_gettid();
	th_list64_add(h, l, false);
	return robust_list2_create(h, TH_NATIVE) == 0 ? 0 : 1;
}

static void test_created_list_walked_at_exit(void **state)
{
	struct robust_list_head *h = th_shared_alloc(4096, false);
	struct th_lock64 *l = (void *)(h + 1);

	assert_int_equal(0, th_wait_child(th_spawn_child(child_creates_and_dies, h)));
	assert_int_equal(FUTEX_OWNER_DIED, l->futex);
	th_free(h, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_takes_lowest_empty_slot),
		cmocka_unit_test(test_create_after_set),
		cmocka_unit_test(test_create_enospc_when_full),
		cmocka_unit_test(test_create_einval),
		cmocka_unit_test(test_concurrent_create_from_many_threads),
		cmocka_unit_test(test_created_list_walked_at_exit),
	};

	return cmocka_run_group_tests_name("create", tests, NULL, NULL);
}
