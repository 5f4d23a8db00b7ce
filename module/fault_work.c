// SPDX-License-Identifier: GPL-2.0
/*
 * Writable fault-ins for a dying thread, taken by a worker.
 *
 * A write fault on a shared file mapping calls the filesystem's
 * ->page_mkwrite(), which may wait for I/O for as long as the I/O takes,
 * and which FAULT_FLAG_RETRY_NOWAIT does not reach: FUSE waits,
 * uninterruptibly, until the server answers the page's last WRITE
 * (fuse_page_mkwrite() -> fuse_wait_on_page_writeback()), NFS for its
 * writeback.  A dying thread's killable waits are no way out either:
 * get_signal() took SIGKILL off its own pending set.  So the exit walk
 * never takes such a fault itself.  It queues the fault-in here, and
 * waits for it only while the exit's I/O budget lasts (uaccess.c); when
 * the budget runs out it gives that word up and the worker goes on alone.
 * The alternatives do not bound the wait: FOLL_NOWAIT stops at
 * ->page_mkwrite() too, and writing the word through the page cache
 * without ->page_mkwrite() (as a kmap) would dirty a page the filesystem
 * was not told about.
 *
 * What a worker left behind holds, and what it must not:
 *
 *  - a reference on the mm (mmget()), so the mapping it faults into
 *    outlives the thread.  A process whose last thread gave a word up
 *    keeps its memory until the fault completes (until the FUSE server
 *    answers, or its connection is aborted); it is dropped with
 *    mmput_async(), so the worker never runs exit_mmap() itself, which
 *    may wait on the same filesystem;
 *
 *  - a reference on this module, so that rmmod is refused ("in use")
 *    rather than waiting in destroy_workqueue() for a fault that may not
 *    end.  The work function drops it last; destroy_workqueue() waits for
 *    the few instructions after that;
 *
 *  - the mm's mmap_lock for reading, inside the fault, as the dying thread
 *    would have held it there.  The thread's own exit_mm(), and exec's
 *    exec_mmap(), take it for reading too and go on beside the worker.
 *    They would wait only behind a writer queued in between: a sibling
 *    thread that stays alive and changes the mappings (it waits for the
 *    fault anyway, as it would for the kernel's own walk stuck there), or
 *    khugepaged collapsing a range of that mm.  The worker takes no other
 *    lock; cred_guard_mutex, held by an exec's walk, is never near it;
 *
 *  - nothing written.  The worker only makes the page present and
 *    writable, as the user's own store would; the waiting thread does the
 *    compare-exchange.  After a give-up nobody does, so no write can land
 *    on a word that was meanwhile unlocked, freed and reused, or owned by
 *    a thread that recycled the dead one's TID.
 *
 * Stuck workers are bounded by what gives up: a word given up ends its
 * list's walk, and with the budget spent no further fault-in is queued,
 * so one exit leaves at most one per list and one for the try-unlock
 * fix-up.  One stuck for 120 s is reported by the hung-task detector, in
 * the filesystem's wait, as the thread itself would have been.
 */
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/completion.h>
#include <linux/refcount.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>

#include "fault_work.h"

/*
 * Unbound: a fault that waits must not hold up per-CPU work.  Not
 * WQ_MEM_RECLAIM: its rescuer would be a thread of ours for the module's
 * whole life, and the pool's workers are not charged to the dying
 * process's memory cgroup; should no worker be had in time, the thread's
 * wait is bounded all the same.
 */
static struct workqueue_struct *rl2_fault_wq;

/*
 * The waiter sleeps in steps this long: each is a wake-up the hung-task
 * detector sees, and it measures what it waited.
 */
#define RL2_FAULT_WAIT_STEP_MS	100

struct rl2_fault_work {
	struct work_struct work;
	struct completion done;
	struct mm_struct *mm;		/* the worker's reference (mmget()) */
	unsigned long uaddr;
	int ret;			/* the fault's; written before done */
	refcount_t ref;			/* the waiter's and the worker's */
};

static void rl2_fault_work_put(struct rl2_fault_work *fw)
{
	if (refcount_dec_and_test(&fw->ref))
		kfree(fw);
}

static void rl2_fault_work_fn(struct work_struct *work)
{
	struct rl2_fault_work *fw = container_of(work, struct rl2_fault_work, work);
	struct mm_struct *mm = fw->mm;
	bool unlocked = false;

	/*
	 * With @unlocked the fault may drop mmap_lock while it waits for a
	 * read (filemap_fault()); ->page_mkwrite() is called with it held.
	 */
	mmap_read_lock(mm);
	fw->ret = fixup_user_fault(mm, fw->uaddr, FAULT_FLAG_WRITE, &unlocked);
	mmap_read_unlock(mm);
	mmput_async(mm);
	complete(&fw->done);
	rl2_fault_work_put(fw);
	module_put(THIS_MODULE);
}

/**
 * rl2_fault_in_writable_bounded - fault a page of current's mm in writable
 * @uaddr: user address
 * @wait_left: nanoseconds the caller may still wait; what it waited here is
 *	subtracted
 *
 * For a dying thread whose write fault may call ->page_mkwrite(): a worker
 * takes the fault, and this waits for it at most *@wait_left.
 *
 * Returns 0 (the page was present and writable when the worker finished),
 * -ETIMEDOUT (the wait is used up; the worker goes on alone), or an error:
 * the fault's (-EFAULT for a mapping that cannot be written), -ENOMEM,
 * -ENODEV while the module unloads.
 */
int rl2_fault_in_writable_bounded(unsigned long uaddr, u64 *wait_left)
{
	struct rl2_fault_work *fw;
	bool done = false;
	int ret = -ETIMEDOUT;

	if (!*wait_left)
		return -ETIMEDOUT;
	fw = kmalloc(sizeof(*fw), GFP_KERNEL);
	if (!fw)
		return -ENOMEM;
	if (!try_module_get(THIS_MODULE)) {
		kfree(fw);
		return -ENODEV;
	}
	INIT_WORK(&fw->work, rl2_fault_work_fn);
	init_completion(&fw->done);
	refcount_set(&fw->ref, 2);
	fw->uaddr = uaddr;
	fw->mm = current->mm;
	mmget(fw->mm);
	queue_work(rl2_fault_wq, &fw->work);

	while (!done && *wait_left) {
		unsigned int ms = min_t(u64, div_u64(*wait_left, NSEC_PER_MSEC),
					RL2_FAULT_WAIT_STEP_MS);
		u64 t0 = ktime_get_ns();
		u64 spent;

		done = wait_for_completion_io_timeout(&fw->done,
						      msecs_to_jiffies(ms) ?: 1) > 0;
		spent = ktime_get_ns() - t0;
		*wait_left -= min(spent, *wait_left);
	}
	if (done || completion_done(&fw->done))
		ret = fw->ret;
	rl2_fault_work_put(fw);
	return ret;
}

int rl2_fault_work_init(void)
{
	rl2_fault_wq = alloc_workqueue("rl2_fault", WQ_UNBOUND, 0);
	return rl2_fault_wq ? 0 : -ENOMEM;
}

/*
 * Every queued fault-in holds a module reference until its last
 * instructions, so at unload the works left are at most past their
 * module_put(): destroy_workqueue() waits for those.
 */
void rl2_fault_work_exit(void)
{
	destroy_workqueue(rl2_fault_wq);
}
