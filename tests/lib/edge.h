/* SPDX-License-Identifier: GPL-2.0 */
/*
 * edge_*: what the exit-walk edge suites (t_exit_walk_edge, t_exit_walk_shape)
 * share: a region below 4 GiB with a control block and room for 64- and
 * 32-bit locks, list builders, a child that builds and dies, and the
 * module's counters around one case.
 */
#ifndef TH_EDGE_H
#define TH_EDGE_H

#include <stdbool.h>
#include <stdint.h>

#include "helpers.h"

#define REGION		(8 << 20)
#define NLOCKS		((REGION - 4096) / sizeof(struct th_lock64))

/* The shared region: a control block, then room for locks. */
struct edge {
	int32_t tid;
	int32_t err;
	struct robust_list_head h64[8];
	struct robust_list_head32 h32[8];
	struct th_lock64 *l64;		/* NLOCKS locks after this page */
	struct th_lock32 *l32;		/* overlaps l64: a case uses one kind */
	void *arg;			/* case-specific */
};

/* A zeroed region (MAP_SHARED, below 4 GiB) with l64/l32 set. */
struct edge *edge_new(void);
/*
 * The module's counters moved by exactly what one case did (on the native
 * kernel, which keeps none, all 0: there only the lists are checked).
 */
void edge_stats_start(void);
struct robust_list2_stats edge_stats_delta(void);
extern bool edge_have_stats;	/* since edge_stats_start(): not on the native kernel */
/* Run @build(e) in a forked child that then exits; assert it returned 0. */
void edge_run(struct edge *e, int (*build)(struct edge *));
/* Register h in @slot: 0, or 50 + slot (60 + slot for 32-bit) on error. */
int edge_reg64(struct edge *e, unsigned int slot, struct robust_list_head *h);
int edge_reg32(struct edge *e, unsigned int slot, struct robust_list_head32 *h);
/* A list of @n owned locks l64[first..first+n-1] (l32), in order, on slot's head. */
void edge_chain64(struct edge *e, unsigned int slot, unsigned int first, unsigned int n);
void edge_chain32(struct edge *e, unsigned int slot, unsigned int first, unsigned int n);
/* How many of those locks read FUTEX_OWNER_DIED. */
unsigned int edge_count_dead64(struct edge *e, unsigned int first, unsigned int n);
unsigned int edge_count_dead32(struct edge *e, unsigned int first, unsigned int n);

#endif /* TH_EDGE_H */
