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
 *  - every access is tried first with page faults disabled: a word on a
 *    present page costs no more than that, at any time;
 *
 *  - a page that is not there, in an anonymous mapping, is brought in by
 *    get_user_pages_remote() with FOLL_NOWAIT (FOLL_WRITE for a store),
 *    under mmap_read_trylock(): the fault starts a swap-in but does not
 *    wait for it, and a writer queued behind a stuck reader cannot hold
 *    us either.  The thread then sleeps briefly and looks again;
 *
 *  - a page of any other mapping (a file, shmem, hugetlb) may need the
 *    file system for a read (a synchronous ->read_folio() where readahead
 *    does not run: MADV_RANDOM, max_readahead 0, a FUSE server without
 *    FUSE_ASYNC_READ, which FOLL_NOWAIT does not stop) or for a store
 *    (->page_mkwrite()).  A worker of the thread's account takes that
 *    fault and the thread waits for it (fault_work.c);
 *
 *  - the deadline: from io_wait_ms after the walk's start (wall time,
 *    whatever the walk did meanwhile, runnable or not), no page is waited
 *    for any more, by poll or worker.  An access that would wait is given
 *    up (-ETIMEDOUT, counted in ->io_timeouts): a futex word is skipped
 *    and the walk goes on, an unreadable list pointer ends its list.
 *    Words on present pages are still handled, within the walk limit.  An
 *    OOM victim's deadline is at most RL2_OOM_IO_WAIT_MS, so the walk
 *    reads its lists before the OOM reaper (2 s after the kill) may take
 *    their private pages;
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
#include <linux/oom.h>
#include <linux/uaccess.h>
#include <linux/moduleparam.h>
#include <linux/jiffies.h>
#include <asm/futex.h>

#include "compat.h"
#include "fault_work.h"
#include "uaccess.h"

#define RL2_FAULT_RETRIES	4

/* How long a walk sleeps between two looks at a page whose I/O is running. */
#define RL2_IO_POLL_MS		5

/*
 * How long after its walk's start an exit still waits for pages, in ms: a
 * page-in from swap or disk takes milliseconds, seconds under heavy
 * memory pressure; I/O that has not completed in 10 s (a dead NFS or FUSE
 * server) is not waited for.  A lock on a page that needed longer is
 * lost, so the bound is generous; it only has to be finite.  Root may
 * change it (read once per exit, at its first page that is not present):
 * an NFS server that takes longer to fail over, or a machine that would
 * rather lose the lock sooner.
 */
#define RL2_EXIT_IO_WAIT_MS	10000
#define RL2_EXIT_IO_WAIT_MAX_MS	(3600 * 1000)

/*
 * An OOM victim's: half the OOM reaper's delay (OOM_REAPER_DELAY, 2 s
 * since 5.18), after which private pages -- where list heads live -- may
 * read as zero.
 */
#define RL2_OOM_IO_WAIT_MS	1000

static unsigned int rl2_io_wait_ms = RL2_EXIT_IO_WAIT_MS;

static int rl2_io_wait_ms_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v > RL2_EXIT_IO_WAIT_MAX_MS)
		return -EINVAL;
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops rl2_io_wait_ms_ops = {
	.set = rl2_io_wait_ms_set,
	.get = param_get_uint,
};
module_param_cb(io_wait_ms, &rl2_io_wait_ms_ops, &rl2_io_wait_ms, 0644);
MODULE_PARM_DESC(io_wait_ms,
		 "After this many ms from its walk's start, a thread's exit or exec waits for no page its lists need (default 10000; at most 3600000)");

unsigned int rl2_io_wait_ms_get(void)
{
	return READ_ONCE(rl2_io_wait_ms);
}

/* The exit's deadline in jiffies, fixed the first time it is needed. */
static unsigned long rl2_deadline(struct rl2_faults *f)
{
	unsigned int ms;

	if (!f->armed) {
		ms = READ_ONCE(rl2_io_wait_ms);
		if (tsk_is_oom_victim(current))
			ms = min_t(unsigned int, ms, RL2_OOM_IO_WAIT_MS);
		f->deadline = f->start + msecs_to_jiffies(ms);
		f->armed = true;
	}
	return f->deadline;
}

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
 * Before the deadline, sleep a little and have the access tried again (0);
 * after it, give the access up (-ETIMEDOUT).
 */
static int rl2_io_poll_wait(struct rl2_faults *f)
{
	long left = (long)(rl2_deadline(f) - jiffies);

	if (left <= 0) {
		f->io_timeouts++;
		return -ETIMEDOUT;
	}
	schedule_timeout_uninterruptible(min_t(long, left,
					       msecs_to_jiffies(RL2_IO_POLL_MS)));
	return 0;
}

/*
 * Bring the page at @uaddr in for a dying thread, writable for a @write,
 * within its fault-ins and deadline @f.  Returns 1 if it is there now (try
 * the access again), 0 if we waited a little for its I/O or for the mmap
 * lock (try again), -ETIMEDOUT (the deadline passed), or -EFAULT
 * (unmapped, PROT_NONE, not writable, fault-ins used up).
 */
static int rl2_fault_in_exit(unsigned long uaddr, bool write,
			     struct rl2_faults *f)
{
	struct mm_struct *mm = current->mm;
	unsigned long addr = rl2_untag(uaddr);
	struct vm_area_struct *vma;
	struct page *page;
	long n;
	int ret;

	if (!f->left)
		return -EFAULT;
	if (!mmap_read_trylock(mm))
		return rl2_io_poll_wait(f);
	vma = find_vma(mm, addr);
	if (!vma || vma->vm_start > addr) {
		mmap_read_unlock(mm);
		return -EFAULT;
	}
	if (!vma_is_anonymous(vma)) {
		/* its fault may wait on a file system: a worker's */
		mmap_read_unlock(mm);
		f->left--;
		ret = rl2_fault_in_bounded(addr, write, rl2_deadline(f));
		if (ret == -ETIMEDOUT) {
			f->io_timeouts++;
			return ret;
		}
		return ret ? -EFAULT : 1;
	}
	n = rl2_get_user_page(mm, addr, FOLL_NOWAIT | (write ? FOLL_WRITE : 0),
			      &page);
	mmap_read_unlock(mm);
	if (n == 1) {
		put_page(page);
		f->left--;
		return 1;
	}
	if (n < 0)
		return -EFAULT;
	return rl2_io_poll_wait(f);	/* a swap-in started */
}

/*
 * After an access failed with page faults disabled: fault its page in and
 * return 0 to have the access tried again, or -EFAULT or -ETIMEDOUT.
 * *@tries counts the fault-ins of this access.
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
		return ret;
	*tries += ret;
	return 0;
}

/**
 * rl2_user_get - read a 4- or 8-byte field of the current task
 * @uaddr: user address
 * @size: 4 or 8
 * @val: the value read, zero-extended
 * @f: the exit's fault-ins and deadline
 *
 * With page faults disabled; on a miss the page is brought in as above
 * and the read tried again.  Returns 0, -EFAULT (unmapped, PROT_NONE,
 * kernel address) or -ETIMEDOUT (given up at the exit's deadline).
 */
int rl2_user_get(unsigned long uaddr, unsigned int size, u64 *val,
		 struct rl2_faults *f)
{
	int tries = 0;
	int ret;

	while (rl2_user_get_nofault(uaddr, size, val)) {
		ret = rl2_fault_in(uaddr, false, f, &tries);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * rl2_user_read_u32 - read a futex word of the current task
 * @uaddr: user address
 * @val: where to store it
 * @f: the exit's fault-ins and deadline, or NULL in a system call
 *
 * Returns 0, -EFAULT or (at exit) -ETIMEDOUT.
 */
int rl2_user_read_u32(unsigned long uaddr, u32 *val, struct rl2_faults *f)
{
	u64 v;
	int ret;

	if (!f)
		return get_user(*val, (u32 __user *)uaddr) ? -EFAULT : 0;
	ret = rl2_user_get(uaddr, sizeof(u32), &v, f);
	if (!ret)
		*val = v;
	return ret;
}

/**
 * rl2_user_clear - store 0 in a 4- or 8-byte field of the current task
 * @uaddr: user address, aligned to @size
 * @size: 4 or 8
 * @f: the exit's fault-ins and deadline, or NULL in a system call
 *
 * Returns 0, -EFAULT (e.g. a read-only mapping) or (at exit) -ETIMEDOUT.
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
		ret = rl2_fault_in(uaddr, true, f, &tries);
		if (ret)
			return ret;
	}
}

/**
 * rl2_user_cmpxchg - compare-exchange a futex word of the current task
 * @u: the word, 4-byte aligned
 * @oldval: expected value
 * @newval: value to store if the word holds @oldval
 * @cur: the value seen
 * @f: the exit's fault-ins and deadline, or NULL in a system call
 *
 * Returns 0 (exchanged iff *cur == @oldval), -EFAULT or (at exit)
 * -ETIMEDOUT.  An LL/SC architecture's -EAGAIN (the exclusive store lost
 * to another CPU) is retried until it wins, as the kernel's own futex
 * code does.
 */
int rl2_user_cmpxchg(u32 __user *u, u32 oldval, u32 newval, u32 *cur,
		     struct rl2_faults *f)
{
	int tries = 0;
	int ret;

	for (;;) {
		ret = rl2_user_cmpxchg_nofault(u, oldval, newval, cur);
		switch (ret) {
		case 0:
			return 0;
		case -EAGAIN:
			cond_resched();
			break;
		case -EFAULT:
			ret = rl2_fault_in((unsigned long)u, true, f, &tries);
			if (ret)
				return ret;
			break;
		default:
			return ret;
		}
	}
}
