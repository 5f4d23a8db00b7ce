/* SPDX-License-Identifier: GPL-2.0 */
/* How robust_list2 learns that a thread exits or execs (exit_hook.c). */
#ifndef _RL2_EXIT_HOOK_H
#define _RL2_EXIT_HOOK_H

struct task_struct;

int rl2_exit_hook_init(void);
void rl2_exit_hook_exit(void);
/*
 * The resume thunks (resume-*.S), entered by ftrace's RET instead of the
 * release functions, and what they call.
 */
void rl2_exit_thunk(void);
void rl2_exec_thunk(void);
void rl2_exit_hook_release(struct task_struct *tsk);

#endif /* _RL2_EXIT_HOOK_H */
