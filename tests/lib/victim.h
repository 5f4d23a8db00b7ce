/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The victim of t_oom and t_freezer: a forked process that holds a lock
 * in each of two slots (its native layout in slot 0, a 32-bit list in
 * slot 5), one on the kernel's legacy list, and one in a sibling thread's
 * slot 1, with a waiter (a thread of the test process) asleep on each.
 * V_PARK: it waits to be killed; V_OOM: once told to go, it eats memory
 * until the OOM killer ends it.
 *
 * victim_start() returns once every waiter is confirmed asleep;
 * victim_check() asserts (cmocka) that after its death every lock reads
 * FUTEX_OWNER_DIED | FUTEX_WAITERS and every waiter was woken, and
 * victim_check_untouched() that while it lives nothing was.
 */
#ifndef TH_VICTIM_H
#define TH_VICTIM_H

#include <stdint.h>
#include <sys/types.h>

#include "helpers.h"

enum vlock { VL_NATIVE, VL_LIST32, VL_LEGACY, VL_SIBLING, VL_NR };
extern const char *const vlock_name[VL_NR];

enum vmode { V_PARK, V_OOM };

/*
 * All of it MAP_SHARED: the parent reads what the exit walk wrote after
 * the victim is gone, and (for the OOM kill) the OOM reaper does not
 * touch it; see t_oom.c.
 */
struct victim {
	uint32_t ready, go, sib_ready, sib_never;
	int32_t err;
	int32_t tid, sib_tid;
	enum vmode mode;
	struct robust_list_head h;		/* slot 0, this process's native layout */
	struct robust_list_head32 h32;		/* slot 5, SET_32 */
	struct robust_list_head legacy;		/* set_robust_list() */
	struct robust_list_head hs;		/* the sibling thread's slot 1 */
	struct th_lock64 l, ll, ls;
	struct th_lock32 l32;
	struct th_waiter w[VL_NR];
};

uint32_t *vword(struct victim *v, enum vlock k);
struct victim *victim_new(enum vmode mode);
/* Start the victim and one waiter (in this process) per lock. */
pid_t victim_start(struct victim *v);
/* The victim is gone: every lock recovered, every waiter already awake. */
void victim_check(struct victim *v);
/* Nothing happened yet: the locks are still held, their waiters asleep. */
void victim_check_untouched(struct victim *v, pid_t pid);

#endif /* TH_VICTIM_H */
