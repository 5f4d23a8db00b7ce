/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Access to the current task's user memory: the exit walk, the unlock
 * ioctl and the try-unlock fix-up all run in the task whose memory they
 * touch (uaccess.c).
 */
#ifndef _RL2_UACCESS_H
#define _RL2_UACCESS_H

#include <linux/types.h>
#include <linux/compiler_types.h>

/*
 * What one exit may still spend on pages that are not present: fault-ins
 * (nothing interrupts a dying thread's fault), and time waiting for the
 * I/O of pages it only reads (until @io_deadline, in jiffies).  NULL where
 * the caller is a live system call, which faults as any system call does.
 */
struct rl2_faults {
	unsigned int left;
	unsigned long io_deadline;
};

int rl2_user_get(unsigned long uaddr, unsigned int size, u64 *val,
		 struct rl2_faults *f);
int rl2_user_read_u32(unsigned long uaddr, u32 *val, struct rl2_faults *f);
int rl2_user_clear(unsigned long uaddr, unsigned int size, struct rl2_faults *f);
int rl2_user_cmpxchg(u32 __user *u, u32 oldval, u32 newval, u32 *cur,
		     struct rl2_faults *f);

#endif /* _RL2_UACCESS_H */
