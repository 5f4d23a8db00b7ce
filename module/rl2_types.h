/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data structures the robust_list2 units share.  Functions live in
 * each unit's own header (registry.h, walk.h, ...); this file declares no
 * function, so any unit may include it without an include circle.
 *
 * Object lifetime in one paragraph: a thread gets a struct rl2_task the
 * first time it fills a slot, and loses it when its last slot is emptied,
 * when it execs, or when it exits.  Only the owning thread ever creates,
 * changes or removes its record (set acts on current, the exit and exec
 * walks run in the dying thread's own context), so the record needs no
 * lock of its own; other threads only read slots under RCU (get).  Each
 * record holds a reference on its task while it is in the table, so a
 * record can never be matched against a recycled task_struct, and a
 * reference on this module, so the module cannot be unloaded while any
 * thread has a slot.  A retired plain record is reused by the next thread
 * without a grace period (registry.c, the pool), so readers revalidate it
 * by its key.
 */
#ifndef _RL2_TYPES_H
#define _RL2_TYPES_H

#include <linux/types.h>
#include <linux/rhashtable-types.h>
#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/seqlock.h>
#include <linux/robust_list2.h>

#include "compat.h"

#define RL2_NR_SLOTS		ROBUST_LIST2_NR_SLOTS

/* Slot word: head address | flags.  Heads are at least 4-byte aligned. */
#define RL2_SLOT_USED		0x1ULL
#define RL2_SLOT_32		0x2ULL
#define RL2_SLOT_FLAGS		0x3ULL

/* The v6 32-bit list head (struct robust_list_head32), kernel side. */
struct rl2_head32 {
	u32 next;
	s32 futex_offset;
	u32 list_op_pending;
};

/*
 * Where a copy of the library's try-unlock sits between its successful
 * compare-exchange and the store that clears *pop
 * (ROBUST_LIST2_IOC_SET_WINDOW).
 */
struct rl2_window_range {
	unsigned long start64, end64;	/* pending field is 64-bit */
	unsigned long start32, end32;	/* pending field is 32-bit */
};

/*
 * An immutable, referenced set of windows.  A file that registered one
 * holds a set of one; a thread's record holds the union of the windows of
 * every file its slots were set through (window.c), which is usually that
 * same set of one, shared, so the record pays one pointer.
 */
#define RL2_WINDOWS_MAX		RL2_NR_SLOTS

struct rl2_window {
	struct kref ref;
	unsigned int nr;		/* 1 .. RL2_WINDOWS_MAX */
	struct rl2_window_range range[];
};

/*
 * The bases of a thread's slots set with ROBUST_LIST2_IOC_SET_BASED (0:
 * none).  Written by the owner only, inside @seq with preemption disabled,
 * so a get on another thread reads a slot word and its base as a pair.
 */
struct rl2_bases {
	seqcount_t seq;
	u64 base[RL2_NR_SLOTS];
};

/*
 * A thread's record: 96 bytes, what every registered thread pays (see
 * docs/design.md, "The registry").  Fields other threads read under RCU
 * (get, the per-CPU cache check) come first; the owner-only ones share
 * their memory with the rcu_head, which the owner writes last of all
 * (rl2_task_free(), when the record is not pooled), so a reader of a
 * record being freed never sees them.
 */
struct rl2_task {
	struct rhash_head node;		/* in the registry, keyed by the task */
	/*
	 * Owner, referenced, | RL2_TASK_BASED if this record is the head of a
	 * struct rl2_task_based (fixed for the record's life): read it with
	 * rl2_rec_task().
	 */
	unsigned long task;
	/*
	 * Host address of the head | RL2_SLOT_* flags; for a based slot the
	 * head is base + guest head, so the walk, the window fix-up and the
	 * "same head twice" rule all see host addresses.
	 */
	u64 slot[RL2_NR_SLOTS];		/* owner writes (WRITE_ONCE), others read under RCU */
	union {
		struct {		/* owner only */
			pid_t tid;		/* TID at registration */
			u16 nr_used;		/* non-empty slots */
			u16 cached_on;		/* 1 + CPU whose cache holds us, or 0 */
			struct rl2_window *windows;	/* referenced, or NULL */
		};
		struct rcu_head rcu;	/* from rl2_task_free() on */
	};
};

#define RL2_TASK_BASED		0x1UL

/*
 * The record of a thread that set a non-zero base (emulators): the bases
 * sit right behind it, so threads without one pay nothing for them.
 */
struct rl2_task_based {
	struct rl2_task t;
	struct rl2_bases b;
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
	atomic64_t io_timeouts;		/* accesses given up, exit's I/O budget spent */
};

/* Defined in main.c. */
extern struct rl2_stats rl2_stats;

#endif /* _RL2_TYPES_H */
