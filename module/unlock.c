// SPDX-License-Identifier: GPL-2.0
/*
 * Closing the robust unlock race (glibc bug 14485) for every slot.
 *
 * A user-space unlock is: put the lock in list_op_pending, unlink it,
 * release the futex word (and wake), clear list_op_pending.  A thread that
 * dies between the release and the clear leaves list_op_pending naming
 * memory that another thread may already have freed and reused, and the
 * exit walk would write FUTEX_OWNER_DIED into it.  Two ways out, as in
 * mainline 7.2:
 *
 *  - ROBUST_LIST2_IOC_UNLOCK does the release, the clear and the wake in
 *    one system call.  A thread cannot die in the middle of a system call
 *    (fatal signals act on the way back to user space), so its exit walk
 *    sees either the lock held and pending, or neither.
 *
 *  - The library's try-unlock (libshim/try_unlock_*.S) does the
 *    uncontended release without a system call.  Its only instructions
 *    between a successful compare-exchange and the store that clears
 *    *pop form a window the library registers per open file.  A thread
 *    that dies with its user ip in the window and ZF set (the exchange
 *    succeeded) has released the word but not cleared *pop; before
 *    walking, rl2_window_fixup() finishes the unlock by clearing *pop, so
 *    the walk never touches the released word.  (E)DX holds pop there.
 *
 * What remains: a signal handler that runs while the thread is inside the
 * window, and kills the thread from the handler.  Its pt_regs then show the
 * handler, not the window (the interrupted context sits in the signal
 * frame on the user stack), so the pending entry is walked as before.
 */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <asm/ptrace.h>

#include "robust_list2.h"

#define RL2_UNLOCK_FLAGS	(ROBUST_LIST2_UNLOCK_POP32 | \
				 ROBUST_LIST2_UNLOCK_PRIVATE | \
				 ROBUST_LIST2_UNLOCK_PI)
#define RL2_WINDOW_MAX		64

/* Release the word at @u if it is owned by @tid: store 0. */
static long rl2_release_word(u32 __user *u, u32 tid, u32 *old)
{
	unsigned int races = 0;
	u32 cur;
	int ret;

	if (rl2_user_read_u32((unsigned long)u, old))
		return -EFAULT;
	for (;;) {
		if ((*old & FUTEX_TID_MASK) != tid)
			return -EPERM;
		ret = rl2_user_cmpxchg(u, *old, 0, &cur);
		if (ret)
			return ret;
		if (cur == *old)
			return 0;
		/* A waiter set FUTEX_WAITERS meanwhile: try again. */
		if (++races > 1024)
			return -EAGAIN;
		*old = cur;
	}
}

/**
 * rl2_ioctl_unlock - ROBUST_LIST2_IOC_UNLOCK
 * @uarg: struct robust_list2_unlock
 *
 * Release, clear the pending field, then wake: see the uapi header.
 */
long rl2_ioctl_unlock(void __user *uarg)
{
	struct robust_list2_unlock __user *ua = uarg;
	struct robust_list2_unlock a;
	unsigned int pop_size, priv;
	u32 __user *u;
	long ret;
	int pop_ret;
	u32 old;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags & ~RL2_UNLOCK_FLAGS)
		return -EINVAL;
	pop_size = a.flags & ROBUST_LIST2_UNLOCK_POP32 ? sizeof(u32) : sizeof(u64);
	if ((a.uaddr & (sizeof(u32) - 1)) || (a.pop & (pop_size - 1)))
		return -EINVAL;
	if (!(a.flags & ROBUST_LIST2_UNLOCK_PI) && !a.nr_wake)
		return -EINVAL;
	u = u64_to_user_ptr(a.uaddr);
	priv = a.flags & ROBUST_LIST2_UNLOCK_PRIVATE ? FUTEX_PRIVATE_FLAG : 0;

	if (a.flags & ROBUST_LIST2_UNLOCK_PI) {
		if (rl2_user_read_u32(a.uaddr, &old))
			return -EFAULT;
		if ((old & FUTEX_TID_MASK) != a.tid)
			return -EPERM;
		/* The kernel's PI unlock hands the lock over and wakes. */
		ret = rl2_kcall_do_futex(u, FUTEX_UNLOCK_PI | priv, 0, NULL,
					 NULL, 0, 0);
		if (ret)
			return ret;
	} else {
		ret = rl2_release_word(u, a.tid, &old);
		if (ret)
			return ret;
	}

	/*
	 * If the pending field cannot be cleared, the word is released all
	 * the same: still wake, so no waiter sleeps on a free lock, then
	 * report EFAULT (as mainline's FUTEX_ROBUST_UNLOCK does).
	 */
	pop_ret = a.pop ? rl2_user_clear(a.pop, pop_size) : 0;

	/* Waiters set FUTEX_WAITERS before they sleep: none, no wake. */
	if (!(a.flags & ROBUST_LIST2_UNLOCK_PI) && (old & FUTEX_WAITERS))
		ret = rl2_kcall_do_futex(u, FUTEX_WAKE | priv, a.nr_wake, NULL,
					 NULL, 0, FUTEX_BITSET_MATCH_ANY);
	if (pop_ret || put_user(old, &ua->old))
		return -EFAULT;
	return ret;
}

static void rl2_window_release(struct kref *ref)
{
	kfree(container_of(ref, struct rl2_window, ref));
}

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
	if (size == sizeof(u64) && current->robust_list &&
	    pop == (unsigned long)&current->robust_list->list_op_pending)
		return true;
	return false;
}

/**
 * rl2_window_fixup - finish a try-unlock the dying thread was inside
 * @rec: its record; current is the thread
 */
void rl2_window_fixup(struct rl2_task *rec)
{
	struct rl2_window *win = rec->window;
	struct pt_regs *regs = task_pt_regs(current);
	unsigned long ip, pop;
	unsigned int size;

	if (!win || !user_mode(regs) || !(regs->flags & X86_EFLAGS_ZF))
		return;
	ip = instruction_pointer(regs);
	if (ip >= win->start64 && ip < win->end64)
		size = sizeof(u64);
	else if (ip >= win->start32 && ip < win->end32)
		size = sizeof(u32);
	else
		return;

	pop = regs->dx;
	if (!user_64bit_mode(regs))
		pop = (u32)pop;
	if (!rl2_is_pending_field(rec, pop, size))
		return;
	if (!rl2_user_clear(pop, size))
		atomic64_inc(&rl2_stats.fixups);
}
