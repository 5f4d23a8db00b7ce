/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault-ins that a dying thread hands to a worker of its own account and
 * waits for until its exit's deadline (fault_work.c).
 */
#ifndef _RL2_FAULT_WORK_H
#define _RL2_FAULT_WORK_H

#include <linux/types.h>
#include <linux/robust_list2.h>

int rl2_fault_work_init(void);
void rl2_fault_work_exit(void);
int rl2_fault_in_bounded(unsigned long uaddr, bool write,
			 unsigned long deadline);
void rl2_fault_acct_read(struct robust_list2_faults *f);
void rl2_fault_totals(u64 *in_flight, u64 *pinned);

#endif /* _RL2_FAULT_WORK_H */
