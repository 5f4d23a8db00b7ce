/* SPDX-License-Identifier: GPL-2.0 */
/* The per-thread registration table (registry.c). */
#ifndef _RL2_REGISTRY_H
#define _RL2_REGISTRY_H

#include <linux/types.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <asm/current.h>

#include "rl2_types.h"

struct task_struct;

int rl2_registry_init(void);
void rl2_registry_exit(void);
unsigned int rl2_registry_count(void);

bool rl2_task_registered(void);
struct rl2_task *rl2_task_self_slow(void);
struct rl2_task *rl2_task_detach(void);
void rl2_task_free(struct rl2_task *rec);

int rl2_slot_set(unsigned int index, u64 word, struct rl2_window *win);
int rl2_slot_set_based(unsigned int index, u64 word, u64 base,
		       struct rl2_window *win);
int rl2_slot_create(u64 word, struct rl2_window *win);
u64 rl2_slot_get(struct task_struct *t, unsigned int index, u64 *base);

/* The base of current's slot @index in its record @rec (owner only). */
static inline u64 rl2_slot_base(const struct rl2_task *rec, unsigned int index)
{
	return rec->bases ? rec->bases->base[index] : 0;
}

/* The record its owner last used on each CPU; see registry.c. */
DECLARE_PER_CPU(struct rl2_task *, rl2_task_cached);

/**
 * rl2_task_self - find current's record
 *
 * Returns it or NULL.  The record stays valid until current itself
 * detaches it, so the caller needs no RCU read lock.  Inline: on a cache
 * hit this is the whole registry cost of set, get and the exit hook.
 */
static inline struct rl2_task *rl2_task_self(void)
{
	struct rl2_task *rec;
	bool hit;

	preempt_disable();
	rec = __this_cpu_read(rl2_task_cached);
	hit = rec && READ_ONCE(rec->task) == current;
	preempt_enable();
	return likely(hit) ? rec : rl2_task_self_slow();
}

#endif /* _RL2_REGISTRY_H */
