// SPDX-License-Identifier: GPL-2.0
/*
 * User memory of the current task, which is where every walk, unlock and
 * fix-up runs: accessed with page faults disabled and, on failure, the
 * page is faulted in with fixup_user_fault() and the access retried, at
 * most RL2_FAULT_RETRIES times.  The retry is what makes a word on a page
 * the thread never touched, dropped by MADV_DONTNEED or swapped out
 * recoverable even while a fatal signal is pending; the bound is what
 * keeps a page that can never be made accessible (a read-only mapping
 * for a write) from holding a dying thread forever.
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>
#include <asm/futex.h>

#include "uaccess.h"

#define RL2_FAULT_RETRIES	4

/* No FAULT_FLAG_KILLABLE: a thread dying of SIGKILL must get through. */
static int rl2_fault_in(unsigned long uaddr, unsigned int fault_flags)
{
	struct mm_struct *mm = current->mm;
	int ret;

	mmap_read_lock(mm);
	ret = fixup_user_fault(mm, uaddr, fault_flags, NULL);
	mmap_read_unlock(mm);
	return ret;
}

/**
 * rl2_user_read - read 4 or 8 bytes of the current task's memory
 * @uaddr: user address
 * @size: 4 or 8
 * @val: the value read, zero-extended
 *
 * Returns 0 or -EFAULT (unmapped, PROT_NONE, kernel address).
 */
int rl2_user_read(unsigned long uaddr, unsigned int size, u64 *val)
{
	int tries = 0;
	int ret;

	for (;;) {
		pagefault_disable();
		if (size == sizeof(u32)) {
			u32 v;

			ret = get_user(v, (u32 __user *)uaddr);
			*val = v;
		} else {
			ret = get_user(*val, (u64 __user *)uaddr);
		}
		pagefault_enable();
		if (!ret)
			return 0;
		if (++tries > RL2_FAULT_RETRIES || rl2_fault_in(uaddr, 0))
			return -EFAULT;
	}
}

/**
 * rl2_user_read_u32 - read a u32 of the current task's memory
 * @uaddr: user address
 * @val: where to store it
 *
 * Returns 0 or -EFAULT.
 */
int rl2_user_read_u32(unsigned long uaddr, u32 *val)
{
	u64 v;
	int ret = rl2_user_read(uaddr, sizeof(u32), &v);

	*val = (u32)v;
	return ret;
}

/**
 * rl2_user_clear - store 0 in a 4- or 8-byte field of the current task
 * @uaddr: user address, aligned to @size
 * @size: 4 or 8
 *
 * Returns 0 or -EFAULT (e.g. a read-only mapping).
 */
int rl2_user_clear(unsigned long uaddr, unsigned int size)
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
		    rl2_fault_in(uaddr, FAULT_FLAG_WRITE))
			return -EFAULT;
	}
}

/**
 * rl2_user_cmpxchg - compare-exchange a futex word of the current task
 * @u: the word, 4-byte aligned
 * @oldval: expected value
 * @newval: value to store if the word holds @oldval
 * @cur: the value seen
 *
 * Returns 0 (exchanged iff *cur == @oldval) or -EFAULT.  An LL/SC
 * architecture's -EAGAIN (the exclusive store lost to another CPU) is
 * retried until it wins, as the kernel's own futex code does.
 */
int rl2_user_cmpxchg(u32 __user *u, u32 oldval, u32 newval, u32 *cur)
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
			    rl2_fault_in((unsigned long)u, FAULT_FLAG_WRITE))
				return -EFAULT;
			break;
		default:
			return ret;
		}
	}
}
