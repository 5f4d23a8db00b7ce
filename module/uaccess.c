// SPDX-License-Identifier: GPL-2.0
/*
 * User memory of the current task, which is where every walk, unlock and
 * fix-up runs.  A live system call (the unlock ioctl; struct rl2_faults
 * NULL) faults as any system call does.  A dying thread (the exit and exec
 * walk, the try-unlock fix-up) must not wait without bound: its killable
 * waits are not interrupted (get_signal() took SIGKILL off its own pending
 * set), the OOM reaper waits for it, and exec holds cred_guard_mutex.  A
 * list or word on a FUSE file whose server never answers holds the
 * kernel's own walk in D state for good (tests/t_fuse.c).  So at exit:
 *
 *  - every access is tried first with page faults disabled;
 *
 *  - a page that is not there is brought in by get_user_pages_remote()
 *    with FOLL_NOWAIT (FOLL_WRITE for a store), under mmap_read_trylock():
 *    the fault starts any read the page needs but does not wait for it,
 *    and a writer queued behind a stuck reader cannot hold us either.  The
 *    thread then sleeps briefly and tries again;
 *
 *  - except a store to a shared mapping whose write fault calls the
 *    filesystem (->page_mkwrite(), ->pfn_mkwrite()), which FOLL_NOWAIT
 *    does not reach and which may wait for I/O as long as it lasts (FUSE:
 *    until the page's last WRITE is answered).  A worker takes that fault
 *    and the thread waits for it (fault_work.c);
 *
 *  - what the thread waits, in those sleeps and for workers, is charged to
 *    one budget per exit (struct rl2_faults, the io_wait_ms parameter),
 *    shared by reads and writes, every list and the fix-up.  Time spent
 *    walking present pages is not charged: a long walk does not spend it.
 *    When it is spent, an access that would wait is given up (counted in
 *    ->io_timeouts), which ends that list's walk;
 *
 *  - fault-ins that succeed are counted too (->left), at most
 *    RL2_FAULT_RETRIES per access: a page that is made present and lost
 *    again, or a store that keeps faulting, ends there.
 *
 * That recovers a word on a page the thread never touched, dropped by
 * MADV_DONTNEED or swapped out even while SIGKILL is pending, and bounds
 * the exit whatever the I/O does.
 *
 * A tagged address (arm64's tagged address ABI) is accessed with its tag,
 * as the kernel's accessors want it, and untagged only to find its page.
 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <asm/futex.h>

#include "compat.h"
#include "fault_work.h"
#include "uaccess.h"

#define RL2_FAULT_RETRIES	4

/* How long a walk sleeps between two looks at a page whose I/O is running. */
#define RL2_IO_POLL_MS		5

/* A live system call's fault: whatever the fault waits for, it waits. */
static int rl2_fault_in_live(unsigned long uaddr, unsigned int flags)
{
	struct mm_struct *mm = current->mm;
	int ret;

	mmap_read_lock(mm);
	ret = fixup_user_fault(mm, rl2_untag(uaddr), flags, NULL);
	mmap_read_unlock(mm);
	return ret;
}

/*
 * Does a store at @uaddr fault into the filesystem?  Only in a shared
 * writable mapping with ->page_mkwrite() (or ->pfn_mkwrite()): the one
 * step of a write fault that FAULT_FLAG_RETRY_NOWAIT does not reach.
 * Private mappings copy, shmem has no such callback, and a mapping that
 * cannot be written fails the fault at once.  mmap_lock held.
 */
static bool rl2_store_calls_fs(struct mm_struct *mm, unsigned long uaddr)
{
	struct vm_area_struct *vma;

	uaddr = untagged_addr(uaddr);
	vma = find_vma(mm, uaddr);
	if (!vma || vma->vm_start > uaddr)
		return false;
	if ((vma->vm_flags & (VM_SHARED | VM_WRITE)) != (VM_SHARED | VM_WRITE))
		return false;
	return vma->vm_ops &&
	       (vma->vm_ops->page_mkwrite || vma->vm_ops->pfn_mkwrite);
}

/* Sleep before the next look at a page, and charge the sleep. */
static void rl2_io_poll_wait(struct rl2_faults *f)
{
	u64 t0 = ktime_get_ns();
	u64 spent;

	msleep(RL2_IO_POLL_MS);
	spent = ktime_get_ns() - t0;
	f->io_left -= min(spent, f->io_left);
}

/*
 * Bring the page at @uaddr in for a dying thread, writable for a @write,
 * within its budget @f.  Returns 1 if it is there now (try the access
 * again), 0 if its I/O or the mmap lock is busy and we waited a little
 * (try again), or -EFAULT (unmapped, PROT_NONE, not writable, fault-ins
 * or budget used up).
 */
static int rl2_fault_in_exit(unsigned long uaddr, bool write,
			     struct rl2_faults *f)
{
	struct mm_struct *mm = current->mm;
	struct page *page;
	long n = 0;
	int ret;

	if (!f->left)
		return -EFAULT;
	if (mmap_read_trylock(mm)) {
		if (write && rl2_store_calls_fs(mm, rl2_untag(uaddr))) {
			mmap_read_unlock(mm);
			f->left--;
			ret = rl2_fault_in_writable_bounded(rl2_untag(uaddr), &f->io_left);
			if (ret == -ETIMEDOUT)
				f->io_timeouts++;
			return ret ? -EFAULT : 1;
		}
		n = rl2_get_user_page(mm, rl2_untag(uaddr),
				      FOLL_NOWAIT | (write ? FOLL_WRITE : 0), &page);
		mmap_read_unlock(mm);
	}
	if (n == 1) {
		put_page(page);
		f->left--;
		return 1;
	}
	if (n < 0)
		return -EFAULT;
	if (!f->io_left) {
		f->io_timeouts++;
		return -EFAULT;
	}
	rl2_io_poll_wait(f);
	return 0;
}

/*
 * After an access failed with page faults disabled: fault its page in and
 * return 0 to have the access tried again, or -EFAULT.  *@tries counts the
 * fault-ins of this access.
 */
static int rl2_fault_in(unsigned long uaddr, bool write, struct rl2_faults *f,
			int *tries)
{
	int ret;

	if (*tries >= RL2_FAULT_RETRIES)
		return -EFAULT;
	if (f)
		ret = rl2_fault_in_exit(uaddr, write, f);
	else
		ret = rl2_fault_in_live(uaddr, write ? FAULT_FLAG_WRITE : 0) ?
		      -EFAULT : 1;
	if (ret < 0)
		return -EFAULT;
	*tries += ret;
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
		if (rl2_fault_in(uaddr, false, f, &tries))
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
 * up when the exit's budget was spent).
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
 * @f: the exit's budget, or NULL in a system call
 *
 * Returns 0 or -EFAULT (e.g. a read-only mapping, or a store given up when
 * the exit's budget was spent).
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
		if (rl2_fault_in(uaddr, true, f, &tries))
			return -EFAULT;
	}
}

/**
 * rl2_user_cmpxchg - compare-exchange a futex word of the current task
 * @u: the word, 4-byte aligned
 * @oldval: expected value
 * @newval: value to store if the word holds @oldval
 * @cur: the value seen
 * @f: the exit's budget, or NULL in a system call
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
			if (rl2_fault_in((unsigned long)u, true, f, &tries))
				return -EFAULT;
			break;
		default:
			return ret;
		}
	}
}
