// SPDX-License-Identifier: GPL-2.0
/*
 * The exit walk on lists of odd shapes: cycles of every shape (to the
 * head, the first entry, the middle, a self-loop, through the pending
 * entry) and lists far beyond the legacy 2048 cap.  (Hostile pointers and
 * pages: t_exit_walk_edge.c.)  Each case: a child builds lists with its TID, registers them and
 * exits; the parent checks every word it can see and that the child's
 * death completed (a walk that never ended would leave it unreaped).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "edge.h"
#include "helpers.h"


/* ---- cycles ---------------------------------------------------------- */

static int build_self_loop(struct edge *e)
{
	edge_chain64(e, 0, 0, 1);
	e->l64[0].list.next = &e->l64[0].list;
	return edge_reg64(e, 0, &e->h64[0]);
}

static void test_cycle_self_loop(void **state)
{
	struct edge *e = edge_new();
	struct robust_list2_stats d;

	edge_stats_start();
	edge_run(e, build_self_loop);
	d = edge_stats_delta();
	assert_int_equal(1, edge_count_dead64(e, 0, 1));
	/* ended by the cycle check after two visits, not by walk_limit */
	if (edge_have_stats)
		assert_int_equal(1, d.cycles);
	if (edge_have_stats)
		assert_int_equal(0, d.limited);
	if (edge_have_stats)
		assert_true(d.entries <= 3);
	if (edge_have_stats)
		assert_int_equal(1, d.recovered);
	th_free(e, REGION);
}

static int build_one_entry(struct edge *e)
{
	edge_chain64(e, 0, 0, 1);
	return edge_reg64(e, 0, &e->h64[0]);
}

static void test_one_entry_list_is_not_a_cycle(void **state)
{
	struct edge *e = edge_new();
	struct robust_list2_stats d;

	edge_stats_start();
	edge_run(e, build_one_entry);
	d = edge_stats_delta();
	assert_int_equal(1, edge_count_dead64(e, 0, 1));
	if (edge_have_stats)
		assert_int_equal(1, d.walks);
	if (edge_have_stats)
		assert_int_equal(1, d.entries);
	if (edge_have_stats)
		assert_int_equal(0, d.cycles + d.limited + d.faults);
	th_free(e, REGION);
}

static int build_loop_to_middle(struct edge *e)
{
	edge_chain64(e, 0, 0, 10);
	e->l64[9].list.next = &e->l64[4].list;
	edge_chain32(e, 1, 100, 10);		/* l32 overlaps l64: use far entries */
	e->l32[109].list.next = th_p32(&e->l32[103].list);
	return edge_reg64(e, 0, &e->h64[0]) ?: edge_reg32(e, 1, &e->h32[1]);
}

static void test_cycle_to_middle_64_and_32(void **state)
{
	struct edge *e = edge_new();

	edge_run(e, build_loop_to_middle);
	assert_int_equal(10, edge_count_dead64(e, 0, 10));
	assert_int_equal(10, edge_count_dead32(e, 100, 10));
	th_free(e, REGION);
}

static int build_loop_to_first(struct edge *e)
{
	edge_chain64(e, 3, 0, 1000);
	e->l64[999].list.next = &e->l64[0].list;
	return edge_reg64(e, 3, &e->h64[3]);
}

static void test_cycle_to_first_entry(void **state)
{
	struct edge *e = edge_new();
	struct robust_list2_stats d;

	edge_stats_start();
	edge_run(e, build_loop_to_first);
	d = edge_stats_delta();
	assert_int_equal(1000, edge_count_dead64(e, 0, 1000));
	/* Brent: detected within mu + 2 * lambda steps, linear in the list */
	if (edge_have_stats)
		assert_int_equal(1, d.cycles);
	if (edge_have_stats)
		assert_true(d.entries >= 1000 && d.entries <= 3000);
	if (edge_have_stats)
		assert_int_equal(1000, d.recovered);
	th_free(e, REGION);
}

static int build_cycle_through_pending(struct edge *e)
{
	edge_chain64(e, 0, 0, 10);
	e->l64[9].list.next = &e->l64[3].list;
	e->l64[5].futex |= FUTEX_WAITERS;
	e->h64[0].list_op_pending = &e->l64[5].list;
	return edge_reg64(e, 0, &e->h64[0]);
}

static void test_cycle_through_pending(void **state)
{
	struct edge *e = edge_new();

	edge_run(e, build_cycle_through_pending);
	assert_int_equal(9, edge_count_dead64(e, 0, 10));
	assert_int_equal(FUTEX_OWNER_DIED | FUTEX_WAITERS, e->l64[5].futex);
	th_free(e, REGION);
}

/* ---- length ---------------------------------------------------------- */

#define LONG_LIST	20000

static int build_long(struct edge *e)
{
	edge_chain64(e, 7, 0, LONG_LIST);
	return edge_reg64(e, 7, &e->h64[7]);
}

static int build_long_legacy(struct edge *e)
{
	edge_chain64(e, 7, 0, LONG_LIST);
	return syscall(SYS_set_robust_list, &e->h64[7], sizeof(e->h64[7])) ? 1 : 0;
}

static void test_long_list_beyond_legacy_cap(void **state)
{
	struct edge *e = edge_new();
	struct robust_list2_stats d;

	edge_stats_start();
	edge_run(e, build_long);
	d = edge_stats_delta();
	assert_int_equal(LONG_LIST, edge_count_dead64(e, 0, LONG_LIST));
	if (edge_have_stats)
		assert_int_equal(LONG_LIST, d.entries);
	if (edge_have_stats)
		assert_int_equal(LONG_LIST, d.recovered);
	if (edge_have_stats)
		assert_int_equal(0, d.cycles + d.limited + d.faults);

	/* the kernel's own list stops at ROBUST_LIST_LIMIT; ours did not */
	memset(e->l64, 0, LONG_LIST * sizeof(*e->l64));
	edge_run(e, build_long_legacy);
	assert_int_equal(2048, edge_count_dead64(e, 0, LONG_LIST));
	th_free(e, REGION);
}

#define HUGE_LIST	200000

static int build_huge(struct edge *e)
{
	edge_chain64(e, 2, 0, HUGE_LIST);
	return edge_reg64(e, 2, &e->h64[2]);
}

static void test_200000_locks_in_one_list(void **state)
{
	struct edge *e = edge_new();
	struct robust_list2_info info;
	struct robust_list2_stats d;

	/* the documented bound, queryable, is far above this */
	assert_int_equal(0, robust_list2_info(&info));
	assert_true(info.walk_limit > HUGE_LIST);
	edge_stats_start();
	edge_run(e, build_huge);
	d = edge_stats_delta();
	assert_int_equal(HUGE_LIST, edge_count_dead64(e, 0, HUGE_LIST));
	if (edge_have_stats)
		assert_int_equal(HUGE_LIST, d.entries);
	if (edge_have_stats)
		assert_int_equal(0, d.cycles + d.limited + d.faults);
	th_free(e, REGION);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_entry_list_is_not_a_cycle),
		cmocka_unit_test(test_cycle_self_loop),
		cmocka_unit_test(test_cycle_to_middle_64_and_32),
		cmocka_unit_test(test_cycle_to_first_entry),
		cmocka_unit_test(test_cycle_through_pending),
		cmocka_unit_test(test_long_list_beyond_legacy_cap),
		cmocka_unit_test(test_200000_locks_in_one_list),
	};

	return cmocka_run_group_tests_name("exit_walk_shape", tests, NULL, NULL);
}
