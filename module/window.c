// SPDX-License-Identifier: GPL-2.0
/*
 * The try-unlock window.  The library's try-unlock (libshim/try_unlock_*.S)
 * and the header's inline copies of it (robust_list2_try_unlock{64,32}_
 * inline(), x86) release an uncontended robust futex without a system
 * call.  Their only instructions between a successful compare-exchange
 * and the store that clears *pop form a window.  A thread that dies with
 * its user ip in a window and the release flag set (ZF on x86, Z on arm64)
 * has released the word but not cleared *pop; the walk calls
 * rl2_window_fixup() first, which finishes the unlock by clearing *pop
 * (within the exit's I/O budget), so the walk never touches the released
 * word (which another thread may already have freed and reused).  (E)DX on x86, x2 on
 * arm64 holds pop there (the arch headers next to compat.h).
 *
 * Two ways to know a window:
 * - by its instruction bytes at the ip (rl2_window_insn() in the arch
 *   headers): the header's inline copies are fixed bytes (x86: also the
 *   library's own), with only the conditional branch to the caller's slow
 *   path left to the assembler.  No registration, so every copy in every
 *   object of the process is covered, whatever descriptor the slots were
 *   set through.  The code is read with page faults disabled: a few
 *   bytes, only when the registers say "released" and pop names one of
 *   the thread's pending fields, and never a wait on I/O in a dying
 *   thread.
 * - by the addresses the library registers per open file
 *   (ROBUST_LIST2_IOC_SET_WINDOW).  The library's own out-of-line copy on
 *   arm64 (ARMv8.0 load/store-exclusive) and armhf is known this way
 *   only, as is a library older than the byte recognition; on x86 it is
 *   checked first and costs no user read.  A record keeps the windows of
 *   every file its slots were set through (rl2_window_merge()), so a
 *   slot set through a descriptor without a window (a raw open(), a
 *   second copy of the library) does not make the thread forget the
 *   window of the library that set another slot.
 *
 * Either way the fix-up only ever clears a pending field of one of the
 * dying thread's own registered lists, of the window's width, so a forged
 * window (registered addresses, or code that merely looks like the
 * try-unlock, with ZF set and DX chosen) can make the module do nothing
 * else.
 *
 * What remains: a signal handler that runs while the thread is inside the
 * window, and kills the thread from the handler.  Its pt_regs then show the
 * handler, not the window (the interrupted context sits in the signal
 * frame on the user stack), so the pending entry is walked as before.
 * Also a window on a text page that is not present at the exit.
 *
 * Lifetime: a set of windows is immutable once made.  A registered
 * window is a set of one, referenced by its file and by the record of
 * every thread that set a slot through that file; a thread that set slots
 * through files with different windows gets a set of its own, their
 * union, at most RL2_WINDOWS_MAX: a set through a further window is
 * refused with ETOOMANYREFS (the library then sets the slot through a
 * file without a window), so no window a slot may rely on is dropped.
 *
 * Tagged pointers (arm64's tagged address ABI, x86 LAM): pop and the
 * heads are compared without their tags; the field is cleared through
 * pop as the thread had it, tag included, as the kernel's own accessors
 * want it (MTE checks the tag, and they accept one where the thread
 * enabled the ABI).
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/overflow.h>
#include <linux/minmax.h>
#include <linux/uaccess.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <asm/ptrace.h>

#include "compat.h"
#include "rl2_types.h"
#include "window.h"
#include "uaccess.h"

#define RL2_WINDOW_MAX		64

static void rl2_window_release(struct kref *ref)
{
	kfree(container_of(ref, struct rl2_window, ref));
}

/* Take a reference on @win (NULL: nothing). */
void rl2_window_get(struct rl2_window *win)
{
	if (win)
		kref_get(&win->ref);
}

/* Drop a reference on @win (NULL: nothing). */
void rl2_window_put(struct rl2_window *win)
{
	if (win)
		kref_put(&win->ref, rl2_window_release);
}

static struct rl2_window *rl2_window_alloc(unsigned int nr)
{
	struct rl2_window *win;

	win = kmalloc(struct_size(win, range, nr), GFP_KERNEL_ACCOUNT);
	if (win) {
		kref_init(&win->ref);
		win->nr = nr;
	}
	return win;
}

/**
 * rl2_ioctl_set_window - ROBUST_LIST2_IOC_SET_WINDOW
 * @file: the open device; the window lives as long as it and the records
 *	  of threads that set slots through it
 * @uarg: struct robust_list2_window
 */
long rl2_ioctl_set_window(struct file *file, void __user *uarg)
{
	struct robust_list2_window a;
	struct rl2_window *win;
	unsigned int i;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags || a.pad)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(a.reserved); i++)
		if (a.reserved[i])
			return -EINVAL;
	if (a.start64 > a.end64 || a.end64 - a.start64 > RL2_WINDOW_MAX ||
	    a.start32 > a.end32 || a.end32 - a.start32 > RL2_WINDOW_MAX)
		return -EINVAL;

	win = rl2_window_alloc(1);
	if (!win)
		return -ENOMEM;
	win->range[0] = (struct rl2_window_range){
		.start64 = a.start64, .end64 = a.end64,
		.start32 = a.start32, .end32 = a.end32,
	};

	/* Set once: readers take references without a lock. */
	if (cmpxchg(&file->private_data, NULL, win)) {
		kfree(win);
		return -EBUSY;
	}
	return 0;
}

static bool rl2_window_has(const struct rl2_window *set,
			   const struct rl2_window_range *r)
{
	unsigned int i;

	for (i = 0; i < set->nr; i++)
		if (!memcmp(&set->range[i], r, sizeof(*r)))
			return true;
	return false;
}

/**
 * rl2_window_merge - remember the window of a file a slot is set through
 * @set: the record's set (owner only): replaced by its union with @win
 * @win: the file's window, or NULL (a descriptor that registered none,
 *	 which changes nothing)
 *
 * Windows are compared by their addresses, so the files of one library
 * copy count once.  A record keeps every window it was given for as long
 * as it lives, since a slot set through a file may still be used by that
 * file's try-unlock: beyond RL2_WINDOWS_MAX different ones (a thread that
 * set its slots through more copies of the library than it has slots)
 * the set is refused, never a window dropped.  Returns 0, -ETOOMANYREFS
 * or -ENOMEM, with @set unchanged on error.
 */
int rl2_window_merge(struct rl2_window **set, struct rl2_window *win)
{
	struct rl2_window *old = *set, *u;
	unsigned int i, n = 0;

	if (!win || win == old)
		return 0;
	if (!old) {
		rl2_window_get(win);
		*set = win;
		return 0;
	}
	for (i = 0; i < win->nr; i++)
		n += !rl2_window_has(old, &win->range[i]);
	if (!n)
		return 0;
	if (old->nr + n > RL2_WINDOWS_MAX)
		return -ETOOMANYREFS;

	u = rl2_window_alloc(old->nr + n);
	if (!u)
		return -ENOMEM;
	/* The newest first: @win's, then the ones @old had. */
	n = 0;
	for (i = 0; i < win->nr; i++)
		if (!rl2_window_has(old, &win->range[i]))
			u->range[n++] = win->range[i];
	for (i = 0; i < old->nr; i++)
		u->range[n++] = old->range[i];
	*set = u;
	rl2_window_put(old);
	return 0;
}

/*
 * Which widths (a mask of sizeof(u32) and sizeof(u64)) @pop would have as
 * the list_op_pending field of one of @rec's lists, compared without tags.
 * Every exit whose flags look released comes here (on x86 that is any ZF
 * left set by the code before the system call), so only the slots in use
 * are looked at: one, for most threads.
 */
static unsigned int rl2_pending_widths(struct rl2_task *rec, unsigned long pop)
{
	struct robust_list_head __user *legacy = rl2_task_robust_list(current);
	unsigned int i, left = rec->nr_used, widths = 0;

	pop = rl2_untag(pop);
	for (i = 0; left && i < RL2_NR_SLOTS; i++) {
		u64 word = rec->slot[i];
		unsigned long head;

		if (!word)
			continue;
		left--;
		head = rl2_untag((unsigned long)(word & ~RL2_SLOT_FLAGS));
		if (word & RL2_SLOT_32) {
			if (pop == head + offsetof(struct rl2_head32, list_op_pending))
				widths |= sizeof(u32);
		} else if (pop == head + offsetof(struct robust_list_head, list_op_pending)) {
			widths |= sizeof(u64);
		}
	}
	/* The legacy list, which the kernel walks right after us. */
	if (legacy &&
	    pop == rl2_untag((unsigned long)&legacy->list_op_pending))
		widths |= sizeof(u64);
	return widths;
}

/* The width of the pending field if @ip is inside a window of @set, else 0. */
static unsigned int rl2_window_registered(struct rl2_window *set,
					  unsigned long ip)
{
	unsigned int i;

	if (!set)
		return 0;
	for (i = 0; i < set->nr; i++) {
		const struct rl2_window_range *r = &set->range[i];

		if (ip >= r->start64 && ip < r->end64)
			return sizeof(u64);
		if (ip >= r->start32 && ip < r->end32)
			return sizeof(u32);
	}
	return 0;
}

/**
 * rl2_window_fixup - finish a try-unlock the dying thread was inside
 * @rec: its record; current is the thread
 * @f: the exit's fault-in and I/O budget, which the walk then goes on with
 */
void rl2_window_fixup(struct rl2_task *rec, struct rl2_faults *f)
{
	struct pt_regs *regs = task_pt_regs(current);
	unsigned int size = 0, widths;
	unsigned long pop;

	if (!current->mm || !user_mode(regs))
		return;
	if (rl2_window_released(regs))
		size = rl2_window_registered(rec->windows,
					     instruction_pointer(regs));
	if (!size && !rl2_window_insn_maybe(regs))
		return;
	/* Not a registered window: read the code only for a pending field. */
	pop = rl2_window_pop(regs);
	widths = rl2_pending_widths(rec, pop);
	if (!size && widths)
		size = rl2_window_insn(regs);
	if (!(size & widths))
		return;
	if (!rl2_user_clear(pop, size, f))
		atomic64_inc(&rl2_stats.fixups);
}
