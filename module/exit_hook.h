/* SPDX-License-Identifier: GPL-2.0 */
/* How robust_list2 learns that a thread exits or execs (exit_hook.c). */
#ifndef _RL2_EXIT_HOOK_H
#define _RL2_EXIT_HOOK_H

#include <linux/types.h>

int rl2_exit_hook_init(void);
void rl2_exit_hook_exit(void);
int rl2_exit_hook_get(void);
void rl2_exit_hook_hold(void);
void rl2_exit_hook_put(void);
bool rl2_exit_hook_pinned(void);

#endif /* _RL2_EXIT_HOOK_H */
