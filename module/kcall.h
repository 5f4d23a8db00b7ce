/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calls into kernel functions that are not exported, through module stubs
 * that ftrace redirects (see kcall.c for why this is IBT-safe).
 */
#ifndef _RL2_KCALL_H
#define _RL2_KCALL_H

#include <linux/types.h>
#include <linux/compiler_types.h>
#include <linux/ktime.h>

struct task_struct;

int rl2_kcall_init(void);
int rl2_kcall_install(void);
int rl2_kcall_remove(void);
bool rl2_kcall_installed(void);
void rl2_ftrace_err(const char *what, int ret);
const char *rl2_kcall_release_sym(bool exec);

long rl2_kcall_do_futex(u32 __user *uaddr, int op, u32 val, ktime_t *timeout,
			u32 __user *uaddr2, u32 val2, u32 val3);
bool rl2_kcall_ptrace_may_access(struct task_struct *task, unsigned int mode);
/* The original bodies of the two functions the exit hook replaces. */
void rl2_kcall_futex_exit_release(struct task_struct *tsk);
void rl2_kcall_futex_exec_release(struct task_struct *tsk);

#endif /* _RL2_KCALL_H */
