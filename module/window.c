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
 * - by its instruction bytes at the ip (x86, rl2_window_insn() in
 *   arch-x86.h): the compare-exchange and the store(s) are fixed bytes in
 *   the library and in every inline copy, with any jnz between them.  No
 *   registration, so every copy in every object of the process is
 *   covered, whatever descriptor the slots were set through.  The code is
 *   read with page faults disabled: a few bytes, only when the flag is
 *   set, and never a wait on I/O in a dying thread.
 * - by the addresses the library registers per open file
 *   (ROBUST_LIST2_IOC_SET_WINDOW).  Kept: arm64 has no inline copy and no
 *   byte recognition (its window starts after a store-exclusive whose
 *   retry branch the caller's layout would change), a library older than
 *   the byte recognition still registers, and on x86 it is checked first
 *   and costs no user read.
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
 * Lifetime: a registered window is immutable once set, referenced by its
 * file and by the record of every thread that set a slot through that
 * file.
 */
#include <linux/fs.h>
#include <linux/slab.h>
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

	win = kzalloc(sizeof(*win), GFP_KERNEL_ACCOUNT);
	if (!win)
		return -ENOMEM;
	kref_init(&win->ref);
	win->start64 = a.start64;
	win->end64 = a.end64;
	win->start32 = a.start32;
	win->end32 = a.end32;

	/* Set once: readers take references without a lock. */
	if (cmpxchg(&file->private_data, NULL, win)) {
		kfree(win);
		return -EBUSY;
	}
	return 0;
}

/* Is @pop (@size bytes) the list_op_pending field of one of @rec's lists? */
static bool rl2_is_pending_field(struct rl2_task *rec, unsigned long pop,
				 unsigned int size)
{
	unsigned int i;

	for (i = 0; i < RL2_NR_SLOTS; i++) {
		u64 word = rec->slot[i];
		unsigned long head = (unsigned long)(word & ~RL2_SLOT_FLAGS);

		if (!word)
			continue;
		if (word & RL2_SLOT_32) {
			if (size == sizeof(u32) &&
			    pop == head + offsetof(struct rl2_head32, list_op_pending))
				return true;
		} else if (size == sizeof(u64) &&
			   pop == head + offsetof(struct robust_list_head, list_op_pending)) {
			return true;
		}
	}
	/* The legacy list, which the kernel walks right after us. */
	if (size == sizeof(u64) && rl2_task_robust_list(current) &&
	    pop == (unsigned long)&rl2_task_robust_list(current)->list_op_pending)
		return true;
	return false;
}

/* The width of the pending field if @ip is inside @win, else 0. */
static unsigned int rl2_window_registered(struct rl2_window *win,
					  unsigned long ip)
{
	if (!win)
		return 0;
	if (ip >= win->start64 && ip < win->end64)
		return sizeof(u64);
	if (ip >= win->start32 && ip < win->end32)
		return sizeof(u32);
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
	unsigned long pop;
	unsigned int size;

	if (!current->mm || !user_mode(regs) || !rl2_window_released(regs))
		return;
	size = rl2_window_registered(rec->window, instruction_pointer(regs));
	if (!size)
		size = rl2_window_insn(regs);
	if (!size)
		return;

	pop = rl2_window_pop(regs);
	if (!rl2_is_pending_field(rec, pop, size))
		return;
	if (!rl2_user_clear(pop, size, f))
		atomic64_inc(&rl2_stats.fixups);
}
