/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal declarations shared by the robust_list2 module's files.
 *
 * Object lifetime in one paragraph: a thread gets a struct rl2_task the
 * first time it fills a slot, and loses it when its last slot is emptied,
 * when it execs, or when it exits.  Only the owning thread ever creates,
 * changes or removes its record (set acts on current, the exit and exec
 * walks run in the dying thread's own context), so the record needs no
 * lock of its own; other threads only read slots under RCU (get).  Each
 * record holds a reference on its task, so a record can never be matched
 * against a recycled task_struct, and a reference on this module, so the
 * module cannot be unloaded while any thread has a slot.
 */
#ifndef _RL2_ROBUST_LIST2_H
#define _RL2_ROBUST_LIST2_H

#include <linux/types.h>
#include <linux/rhashtable-types.h>
#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/kref.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <asm/current.h>
#include <linux/robust_list2.h>

#include "compat.h"

#define RL2_NR_SLOTS		8

/* Slot word: head address | flags.  Heads are at least 4-byte aligned. */
#define RL2_SLOT_USED		0x1ULL
#define RL2_SLOT_32		0x2ULL
#define RL2_SLOT_FLAGS		0x3ULL

struct task_struct;
struct file;
struct pt_regs;

/* The v6 32-bit list head (struct robust_list_head32), kernel side. */
struct rl2_head32 {
	u32 next;
	s32 futex_offset;
	u32 list_op_pending;
};

/*
 * Where a process's try-unlock code sits between its successful
 * compare-exchange and the store that clears *pop.  Set once per open
 * file (ROBUST_LIST2_IOC_SET_WINDOW), immutable, shared by the file and by
 * the records of threads that set slots through that file.
 */
struct rl2_window {
	struct kref ref;
	unsigned long start64, end64;	/* pending field is 64-bit */
	unsigned long start32, end32;	/* pending field is 32-bit */
};

struct rl2_task {
	struct rhash_head node;		/* in the registry, keyed by @task */
	struct task_struct *task;	/* owner, referenced */
	pid_t tid;			/* owner's TID at registration */
	u16 nr_used;			/* non-empty slots; owner only */
	u16 cached_on;			/* 1 + CPU whose cache holds us, or 0; owner only */
	u64 slot[RL2_NR_SLOTS];		/* owner writes (WRITE_ONCE), others read under RCU */
	struct rl2_window *window;	/* owner only; referenced */
	struct rcu_head rcu;
};

/* Module-wide counters, for status and tests; never on a lock. */
struct rl2_stats {
	atomic64_t walks;		/* lists walked */
	atomic64_t entries;		/* list entries visited */
	atomic64_t recovered;		/* futex words marked FUTEX_OWNER_DIED */
	atomic64_t woken;		/* waiters woken by our walks */
	atomic64_t cycles;		/* walks ended by cycle detection */
	atomic64_t limited;		/* walks ended by walk_limit */
	atomic64_t faults;		/* walks ended by a fault or bad pointer */
	atomic64_t fixups;		/* try-unlocks finished for a dying thread */
};

extern struct rl2_stats rl2_stats;
extern unsigned long rl2_walk_limit;

/* registry.c */
int rl2_registry_init(void);
void rl2_registry_exit(void);
bool rl2_task_registered(void);
struct rl2_task *rl2_task_self_slow(void);

/* The record its owner last used on each CPU; see registry.c. */
DECLARE_PER_CPU(struct rl2_task *, rl2_task_cached);

/**
 * rl2_task_self - find current's record
 *
 * Returns it or NULL.  The record stays valid until current itself
 * detaches it, so the caller needs no RCU read lock.  Inline: this is
 * the whole registry cost of set_robust_list2() on a cache hit.
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

int rl2_slot_set(unsigned int index, u64 word, struct rl2_window *win);
int rl2_slot_create(u64 word, struct rl2_window *win);

/* Fill slot @index of current's record @rec with @word (not 0). */
static inline void rl2_slot_fill(struct rl2_task *rec, unsigned int index,
				 u64 word)
{
	if (!rec->slot[index])
		rec->nr_used++;
	WRITE_ONCE(rec->slot[index], word);
}

u64 rl2_slot_get(struct task_struct *t, unsigned int index);
struct rl2_task *rl2_task_detach(void);
void rl2_task_free(struct rl2_task *rec);
unsigned int rl2_registry_count(void);

/* walk.c */
void rl2_walk_task(struct rl2_task *rec);
int rl2_user_read_u32(unsigned long uaddr, u32 *val);
int rl2_user_clear(unsigned long uaddr, unsigned int size);
int rl2_user_cmpxchg(u32 __user *u, u32 oldval, u32 newval, u32 *cur);

/* unlock.c */
long rl2_ioctl_unlock(void __user *uarg);
long rl2_ioctl_set_window(struct file *file, void __user *uarg);
void rl2_window_put(struct rl2_window *win);
void rl2_window_fixup(struct rl2_task *rec);

/* exit_hook.c */
int rl2_hooks_init(void);
void rl2_hooks_exit(void);
long rl2_kcall_do_futex(u32 __user *uaddr, int op, u32 val, ktime_t *timeout,
			u32 __user *uaddr2, u32 val2, u32 val3);
bool rl2_kcall_ptrace_may_access(struct task_struct *task, unsigned int mode);

#endif /* _RL2_ROBUST_LIST2_H */
