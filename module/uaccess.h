/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault-tolerant access to the current task's user memory: the exit walk,
 * the unlock ioctl and the try-unlock fix-up all run in the task whose
 * memory they touch.
 */
#ifndef _RL2_UACCESS_H
#define _RL2_UACCESS_H

#include <linux/types.h>
#include <linux/compiler_types.h>

int rl2_user_read(unsigned long uaddr, unsigned int size, u64 *val);
int rl2_user_read_u32(unsigned long uaddr, u32 *val);
int rl2_user_clear(unsigned long uaddr, unsigned int size);
int rl2_user_cmpxchg(u32 __user *u, u32 oldval, u32 newval, u32 *cur);

#endif /* _RL2_UACCESS_H */
