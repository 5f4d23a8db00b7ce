// SPDX-License-Identifier: GPL-2.0
/* The exit-walk edge suites' shared region and list builders (edge.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "edge.h"


struct edge *edge_new(void)
{
	struct edge *e = th_shared_alloc(REGION, true);

	assert_non_null(e);
	e->l64 = (struct th_lock64 *)((char *)e + 4096);
	e->l32 = (struct th_lock32 *)((char *)e + 4096);
	return e;
}

/*
 * The module's counters moved by exactly what one case did.  The native
 * kernel (make check-native) keeps no counters: there only what the walk
 * did to the lists is checked (edge_have_stats false, the delta all 0).
 */
static struct robust_list2_stats before;
bool edge_have_stats;

void edge_stats_start(void)
{
	edge_have_stats = !th_native();
	if (edge_have_stats)
		assert_int_equal(0, robust_list2_stats(&before));
}

struct robust_list2_stats edge_stats_delta(void)
{
	struct robust_list2_stats now, d = { 0 };

	if (!edge_have_stats)
		return d;
	assert_int_equal(0, robust_list2_stats(&now));
	d.walks = now.walks - before.walks;
	d.entries = now.entries - before.entries;
	d.recovered = now.recovered - before.recovered;
	d.cycles = now.cycles - before.cycles;
	d.limited = now.limited - before.limited;
	d.faults = now.faults - before.faults;
	return d;
}

static int (*edge_build)(struct edge *e);

static int edge_child(void *p)
{
	struct edge *e = p;

	e->tid = th_gettid();
	return edge_build(e);
}

void edge_run(struct edge *e, int (*build)(struct edge *))
{
	edge_build = build;
	assert_int_equal(0, th_wait_child(th_spawn_child(edge_child, e)));
}

int edge_reg64(struct edge *e, unsigned int slot, struct robust_list_head *h)
{
	return set_robust_list2(h, slot, TH_NATIVE, 0) ? 50 + slot : 0;
}

int edge_reg32(struct edge *e, unsigned int slot, struct robust_list_head32 *h)
{
	return set_robust_list2((void *)h, slot, FUTEX_ROBUST_LIST_CMD_SET_32, 0) ? 60 + slot : 0;
}

/* A list of @n owned locks l64[first..first+n-1], in order, on h64[slot]. */
void edge_chain64(struct edge *e, unsigned int slot, unsigned int first, unsigned int n)
{
	struct robust_list_head *h = &e->h64[slot];

	th_list64_init(h, TH_OFF64);
	for (unsigned int i = n; i-- > 0;) {
		e->l64[first + i].futex = e->tid;
		th_list64_add(h, &e->l64[first + i], false);
	}
}

void edge_chain32(struct edge *e, unsigned int slot, unsigned int first, unsigned int n)
{
	struct robust_list_head32 *h = &e->h32[slot];

	th_list32_init(h, TH_OFF32);
	for (unsigned int i = n; i-- > 0;) {
		e->l32[first + i].futex = e->tid;
		th_list32_add(h, &e->l32[first + i], false);
	}
}

unsigned int edge_count_dead64(struct edge *e, unsigned int first, unsigned int n)
{
	unsigned int dead = 0;

	for (unsigned int i = 0; i < n; i++)
		dead += e->l64[first + i].futex == FUTEX_OWNER_DIED;
	return dead;
}

unsigned int edge_count_dead32(struct edge *e, unsigned int first, unsigned int n)
{
	unsigned int dead = 0;

	for (unsigned int i = 0; i < n; i++)
		dead += e->l32[first + i].futex == FUTEX_OWNER_DIED;
	return dead;
}
