/* SPDX-License-Identifier: GPL-2.0 */
/* The try-unlock window: registration, references, exit-time fix-up. */
#ifndef _RL2_WINDOW_H
#define _RL2_WINDOW_H

#include <linux/compiler_types.h>

struct file;
struct rl2_faults;
struct rl2_task;
struct rl2_window;

long rl2_ioctl_set_window(struct file *file, void __user *uarg);
void rl2_window_get(struct rl2_window *win);
void rl2_window_put(struct rl2_window *win);
int rl2_window_merge(struct rl2_window **set, struct rl2_window *win);
void rl2_window_fixup(struct rl2_task *rec, struct rl2_faults *f);

#endif /* _RL2_WINDOW_H */
