// SPDX-License-Identifier: GPL-2.0
/*
 * User memory of the current task, which is where every walk, unlock and
 * fix-up runs.  Two kinds of access, as the kernel's own robust list code
 * has them:
 *
 *  - list pointers and offsets are read with a plain get_user(), as the
 *    kernel's own walk reads them: a fault is handled as any user fault.
 *    That is no cure for I/O that never completes: a dying thread's
 *    killable waits are not interrupted (get_signal() took SIGKILL off its
 *    own pending set), so a list on a FUSE file whose server never answers
 *    holds it in D state, exactly as it holds the kernel's legacy walk
 *    (tests/manual/fuse_walk.c);
 *
 *  - the futex word, and the pending field a fix-up clears, are accessed
 *    with page faults disabled and, on failure, faulted in with
 *    fixup_user_fault() (which nothing interrupts; writable for a store, as
 *    the kernel's fault_in_user_writeable() does) and retried, at most
 *    RL2_FAULT_RETRIES times per access.  That is what recovers a word on
 *    a page the thread never touched, dropped by MADV_DONTNEED or swapped
 *    out even while SIGKILL is pending; the bound is what keeps a page that
 *    can never be made writable (a read-only mapping) from holding a dying
 *    thread forever.  The exit walk also caps these fault-ins for the whole
 *    exit (struct rl2_faults).
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>
#include <asm/futex.h>

#include "uaccess.h"

#define RL2_FAULT_RETRIES	4

static int rl2_fault_in(unsigned long uaddr, unsigned int flags,
			struct rl2_faults *f)
{
	struct mm_struct *mm = current->mm;
	int ret;

	if (f) {
		if (!f->left)
			return -EFAULT;
		f->left--;
	}
	mmap_read_lock(mm);
	ret = fixup_user_fault(mm, uaddr, flags, NULL);
	mmap_read_unlock(mm);
	return ret;
}

/**
 * rl2_user_get - read a 4- or 8-byte list field of the current task
 * @uaddr: user address
 * @size: 4 or 8
 * @val: the value read, zero-extended
 *
 * A plain get_user(): the fault, if any, is killable.  Returns 0 or
 * -EFAULT (unmapped, PROT_NONE, kernel address, or I/O given up).
 */
int rl2_user_get(unsigned long uaddr, unsigned int size, u64 *val)
{
	if (size == sizeof(u32)) {
		u32 v;

		if (get_user(v, (u32 __user *)uaddr))
			return -EFAULT;
		*val = v;
		return 0;
	}
	return get_user(*val, (u64 __user *)uaddr) ? -EFAULT : 0;
}

/**
 * rl2_user_read_u32 - read a futex word of the current task
 * @uaddr: user address
 * @val: where to store it
 * @f: fault-in budget, or NULL
 *
 * Returns 0 or -EFAULT.
 */
int rl2_user_read_u32(unsigned long uaddr, u32 *val, struct rl2_faults *f)
{
	int tries = 0;
	int ret;

	for (;;) {
		pagefault_disable();
		ret = get_user(*val, (u32 __user *)uaddr);
		pagefault_enable();
		if (!ret)
			return 0;
		if (++tries > RL2_FAULT_RETRIES || rl2_fault_in(uaddr, 0, f))
			return -EFAULT;
	}
}

/**
 * rl2_user_clear - store 0 in a 4- or 8-byte field of the current task
 * @uaddr: user address, aligned to @size
 * @size: 4 or 8
 * @f: fault-in budget, or NULL
 *
 * Returns 0 or -EFAULT (e.g. a read-only mapping).
 */
int rl2_user_clear(unsigned long uaddr, unsigned int size, struct rl2_faults *f)
{
	int tries = 0;
	int ret;

	for (;;) {
		pagefault_disable();
		if (size == sizeof(u32))
			ret = put_user(0U, (u32 __user *)uaddr);
		else
			ret = put_user(0ULL, (u64 __user *)uaddr);
		pagefault_enable();
		if (!ret)
			return 0;
		if (++tries > RL2_FAULT_RETRIES ||
		    rl2_fault_in(uaddr, FAULT_FLAG_WRITE, f))
			return -EFAULT;
	}
}

/**
 * rl2_user_cmpxchg - compare-exchange a futex word of the current task
 * @u: the word, 4-byte aligned
 * @oldval: expected value
 * @newval: value to store if the word holds @oldval
 * @cur: the value seen
 * @f: fault-in budget, or NULL
 *
 * Returns 0 (exchanged iff *cur == @oldval) or -EFAULT.  An LL/SC
 * architecture's -EAGAIN (the exclusive store lost to another CPU) is
 * retried until it wins, as the kernel's own futex code does.
 */
int rl2_user_cmpxchg(u32 __user *u, u32 oldval, u32 newval, u32 *cur,
		     struct rl2_faults *f)
{
	int tries = 0;
	int ret;

	for (;;) {
		pagefault_disable();
		ret = futex_atomic_cmpxchg_inatomic(cur, u, oldval, newval);
		pagefault_enable();
		switch (ret) {
		case 0:
			return 0;
		case -EAGAIN:
			cond_resched();
			break;
		case -EFAULT:
			if (++tries > RL2_FAULT_RETRIES ||
			    rl2_fault_in((unsigned long)u, FAULT_FLAG_WRITE, f))
				return -EFAULT;
			break;
		default:
			return ret;
		}
	}
}
