// SPDX-License-Identifier: GPL-2.0
/*
 * User memory of the current task, which is where every walk, unlock and
 * fix-up runs.  Two kinds of access:
 *
 *  - what the exit walk only reads (list pointers, offsets, the futex word
 *    before its compare-exchange) is read with page faults disabled and,
 *    on a miss, brought in by get_user_pages_remote(FOLL_NOWAIT), which
 *    starts any I/O the page needs but does not wait for it; the walk
 *    then sleeps briefly and reads again, until the exit's I/O deadline.
 *    The kernel's own walk reads with get_user(), whose wait for I/O is
 *    killable, but a dying thread's killable waits are not interrupted
 *    (get_signal() took SIGKILL off its own pending set): a list on a FUSE
 *    file whose server never answers holds the kernel's legacy walk in D
 *    state for good (tests/t_fuse.c).  Ours gives up on that list after
 *    the deadline, holding no lock while it waits;
 *
 *  - the futex word's compare-exchange, and the pending field a fix-up
 *    clears, are done with page faults disabled and, on failure, the page
 *    is faulted in writable with fixup_user_fault(), as the kernel's
 *    fault_in_user_writeable() does, and retried, at most RL2_FAULT_RETRIES
 *    times per access.  That is what recovers a word on a page the thread
 *    never touched, dropped by MADV_DONTNEED or swapped out even while
 *    SIGKILL is pending; the bound keeps a page that can never be made
 *    writable (a read-only mapping) from holding a dying thread forever.
 *    The exit walk also caps these fault-ins for the whole exit.
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <asm/futex.h>

#include "compat.h"
#include "uaccess.h"

#define RL2_FAULT_RETRIES	4

/* How long a walk sleeps between two looks at a page whose I/O is running. */
#define RL2_IO_POLL_MS		5

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

/*
 * Make the page at @uaddr present for reading without waiting for I/O.
 * Returns 1 if it is present now, 0 if it needs I/O (started) or the mmap
 * lock is busy and the deadline has not passed (the caller reads again
 * after a short sleep), or -EFAULT (unmapped, PROT_NONE, fault-ins or
 * time used up).
 */
static int rl2_fault_in_nowait(unsigned long uaddr, struct rl2_faults *f)
{
	struct mm_struct *mm = current->mm;
	struct page *page;
	long n;

	if (!f->left)
		return -EFAULT;
	/* Not mmap_read_lock(): a writer queued behind a stuck reader waits forever. */
	if (!mmap_read_trylock(mm)) {
		n = 0;
	} else {
		n = rl2_get_user_page(mm, uaddr, FOLL_NOWAIT, &page);
		mmap_read_unlock(mm);
	}
	if (n == 1) {
		put_page(page);
		f->left--;
		return 1;
	}
	if (n < 0 || time_after(jiffies, f->io_deadline))
		return -EFAULT;
	msleep(RL2_IO_POLL_MS);
	return 0;
}

/*
 * Read @size (4 or 8) bytes at @uaddr with page faults disabled; on a miss
 * bring the page in as above and read again.
 */
static int rl2_user_read_nowait(unsigned long uaddr, unsigned int size,
				u64 *val, struct rl2_faults *f)
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
		ret = rl2_fault_in_nowait(uaddr, f);
		if (ret < 0 || (ret > 0 && ++tries > RL2_FAULT_RETRIES))
			return -EFAULT;
	}
}

/**
 * rl2_user_get - read a 4- or 8-byte list field of the current task
 * @uaddr: user address
 * @size: 4 or 8
 * @val: the value read, zero-extended
 * @f: the exit's fault-in and I/O budget
 *
 * Returns 0 or -EFAULT (unmapped, PROT_NONE, kernel address, or I/O given
 * up at the deadline).
 */
int rl2_user_get(unsigned long uaddr, unsigned int size, u64 *val,
		 struct rl2_faults *f)
{
	return rl2_user_read_nowait(uaddr, size, val, f);
}

/**
 * rl2_user_read_u32 - read a futex word of the current task
 * @uaddr: user address
 * @val: where to store it
 * @f: the exit's budget (read as the list is), or NULL in a system call
 *
 * Returns 0 or -EFAULT.
 */
int rl2_user_read_u32(unsigned long uaddr, u32 *val, struct rl2_faults *f)
{
	u64 v;

	if (f) {
		if (rl2_user_read_nowait(uaddr, sizeof(u32), &v, f))
			return -EFAULT;
		*val = v;
		return 0;
	}
	return get_user(*val, (u32 __user *)uaddr) ? -EFAULT : 0;
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
