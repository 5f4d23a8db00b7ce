/* SPDX-License-Identifier: GPL-2.0 */
/* The exit and exec walk of a thread's robust lists (walk.c). */
#ifndef _RL2_WALK_H
#define _RL2_WALK_H

struct rl2_task;

/* Most entries walked per list; the walk_limit module parameter. */
extern unsigned long rl2_walk_limit;

void rl2_walk_task(struct rl2_task *rec);

#endif /* _RL2_WALK_H */
