/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watchdog.c: a pidfd watchdog that repairs a dead process's robust list
 * from outside, the baseline of the recovery area (recovery.c).
 */
#ifndef RL2_BENCH_WATCHDOG_H
#define RL2_BENCH_WATCHDOG_H

#include <stdint.h>
#include <sys/types.h>
#include <linux/futex.h>

/* Memory the watchdog maps at the same address as the guarded process. */
struct wd_region {
	uintptr_t lo, hi;
};

/* A pidfd of @pid, or -1 (errno). */
int wd_open(pid_t pid);
/* Sleep in poll() until @pidfd reports its process dead: 0, or -1. */
int wd_wait_death(int pidfd, int timeout_ms);
/*
 * Mark every lock of @head's list (and its pending entry) that dead @tid
 * still owns FUTEX_OWNER_DIED and wake one waiter of each; entries
 * outside @r end the walk.  Returns the number of locks released.
 */
unsigned int wd_repair_list(const struct robust_list_head *head, pid_t tid,
			    const struct wd_region *r);

#endif /* RL2_BENCH_WATCHDOG_H */
