/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writable fault-ins that a dying thread hands to a worker and waits for
 * within its I/O budget (fault_work.c).
 */
#ifndef _RL2_FAULT_WORK_H
#define _RL2_FAULT_WORK_H

#include <linux/types.h>

int rl2_fault_work_init(void);
void rl2_fault_work_exit(void);
int rl2_fault_in_writable_bounded(unsigned long uaddr, u64 *wait_left);

#endif /* _RL2_FAULT_WORK_H */
