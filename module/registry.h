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

static inline struct task_struct *rl2_rec_task(const struct rl2_task *rec)
{
	return (struct task_struct *)(READ_ONCE(rec->task) & ~RL2_TASK_BASED);
}

/* @rec's bases, or NULL for a record without them. */
static inline struct rl2_bases *rl2_rec_bases(struct rl2_task *rec)
{
	if (!(READ_ONCE(rec->task) & RL2_TASK_BASED))
		return NULL;
	return &container_of(rec, struct rl2_task_based, t)->b;
}

/* The base of current's slot @index in its record @rec (owner only). */
static inline u64 rl2_slot_base(struct rl2_task *rec, unsigned int index)
{
	struct rl2_bases *b = rl2_rec_bases(rec);

	return b ? b->base[index] : 0;
}

/* The record its owner last used on each CPU; see registry.c. */
DECLARE_PER_CPU(struct rl2_task *, rl2_task_cached);

/*
 * current's record if this CPU's cache entry holds it, else NULL.  The
 * entry may be stale and its record retired, even reused by another thread
 * (registry.c, the pool): preemption disabled keeps its memory a record
 * (pooled records go back to the slab only after a grace period), and only
 * current writes current as a key, so the compare matches current's own
 * live record and nothing else.
 */
static inline struct rl2_task *rl2_task_cached_self(void)
{
	struct rl2_task *rec;
	bool hit;

	preempt_disable();
	rec = this_cpu_read(rl2_task_cached);	/* marked: another CPU may clear it */
	hit = rec && rl2_rec_task(rec) == current;
	preempt_enable();
	return hit ? rec : NULL;
}

/**
 * rl2_task_self - find current's record
 *
 * Returns it or NULL.  The record stays valid until current itself
 * detaches it, so the caller needs no RCU read lock.  Inline: on a cache
 * hit this is the whole registry cost of set, get and the exit hook.
 */
static inline struct rl2_task *rl2_task_self(void)
{
	struct rl2_task *rec = rl2_task_cached_self();

	return likely(rec) ? rec : rl2_task_self_slow();
}

#endif /* _RL2_REGISTRY_H */
