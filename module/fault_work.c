// SPDX-License-Identifier: GPL-2.0
/*
 * Fault-ins a dying thread may not take itself, taken by workers that
 * belong to the user who asked for them.
 *
 * A fault on a file mapping may wait for the file system for as long as
 * it likes, and nothing the thread can ask for stops it: a write fault
 * on a shared mapping calls ->page_mkwrite() (FUSE waits, uninterruptibly,
 * until the server answers the page's last WRITE), and a read fault on a
 * page that is not cached reads it synchronously wherever readahead does
 * not run (MADV_RANDOM, max_readahead 0, a FUSE server without
 * FUSE_ASYNC_READ: request_wait_answer() <- fuse_do_readpage()) -- with
 * FOLL_NOWAIT too.  A dying thread's killable waits are no way out either:
 * get_signal() took SIGKILL off its own pending set.  So the exit walk
 * takes no fault on a mapping with vm_ops itself (uaccess.c).  It queues
 * the fault-in here and waits for it until the exit's deadline; then it
 * gives that word up.
 *
 * Who pays.  The device is open to every user, so workers are nothing
 * users share (docs/isolation.md has the whole argument):
 *
 *  - an account is a user of the machine: a kuid of the initial user
 *    namespace, with every user namespace that kuid created (a login's
 *    65,536 sub-uids are that login); a user namespace root made (a
 *    container) is an account of its own;
 *
 *  - each account has its own unbound workqueue, so no other account's
 *    stuck faults stand between its fault-ins and a worker (an unbound
 *    pool starts a worker for every item its workqueues let run), and at
 *    most faults_per_user fault-ins in flight, at most faults_per_mm of
 *    them for one mm.  A thread over a limit waits for a place among its
 *    own account's items only, until its deadline;
 *
 *  - every account may always have one fault-in in flight; beyond that
 *    all accounts together have RL2_FAULTS_SHARED, so no number of
 *    accounts can exhaust what an unrelated user's exit needs: its first
 *    fault-in, one at a time;
 *
 *  - an item holds mm_count (mmgrab()) while queued: the address space
 *    is not pinned by a fault that has not started.  The worker pins it
 *    (mmget_not_zero()) only while it faults.  A thread that gives up
 *    cancels its item if it has not started; one that has started cannot
 *    be stopped (FUSE waits uninterruptibly) and runs on alone: it stays
 *    counted against its account, its mm pinned and shown as such
 *    (struct robust_list2_faults, robust-list2 status), until the file
 *    system answers or its connection is aborted.
 *
 * What a worker holds besides: a reference on this module, so rmmod is
 * refused ("in use") instead of waiting for a fault that may not end; the
 * mm's mmap_lock for reading, inside the fault, as the dying thread would
 * have held it there (its own exit_mm() takes it for reading too).  It
 * writes nothing: it only makes the page present (and writable), as the
 * user's own access would; the waiting thread does the access.  After a
 * give-up nobody does, so no write lands late on a word that was
 * meanwhile unlocked, freed and reused.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/completion.h>
#include <linux/refcount.h>
#include <linux/hashtable.h>
#include <linux/cred.h>
#include <linux/user_namespace.h>
#include <linux/wait.h>
#include <linux/jiffies.h>

#include "rl2_types.h"
#include "fault_work.h"

/*
 * Limits, root's to change (read at each admission): 16 fault-ins in
 * flight per account, 4 per mm.  A dying thread needs one at a time, so a
 * process's threads all make progress through four; the account's other
 * twelve are for its other processes.
 */
#define RL2_FAULTS_MAX		256	/* the limits' ceiling; a workqueue's max_active */
static unsigned int rl2_faults_per_user = 16;
static unsigned int rl2_faults_per_mm = 4;

/*
 * Beyond each account's first fault-in, all accounts together: about
 * 30 MiB of stuck workers (their task and stack) at the worst.
 */
#define RL2_FAULTS_SHARED	1024

/* A thread waiting for a place or for its item wakes this often. */
#define RL2_FAULT_WAIT_STEP	(HZ / 10)

static int rl2_fault_limit_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret = kstrtouint(val, 0, &v);

	if (ret)
		return ret;
	if (v < 1 || v > RL2_FAULTS_MAX)
		return -EINVAL;
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops rl2_fault_limit_ops = {
	.set = rl2_fault_limit_set,
	.get = param_get_uint,
};
module_param_cb(faults_per_user, &rl2_fault_limit_ops, &rl2_faults_per_user, 0644);
MODULE_PARM_DESC(faults_per_user,
		 "Most fault-ins in flight for the exits of one user (account), default 16, 1..256");
module_param_cb(faults_per_mm, &rl2_fault_limit_ops, &rl2_faults_per_mm, 0644);
MODULE_PARM_DESC(faults_per_mm,
		 "Most fault-ins in flight for the exits of one process (mm), default 4, 1..256");

struct rl2_acct {
	struct hlist_node node;		/* in rl2_accts, under rl2_acct_lock */
	unsigned long key;		/* kuid << 1 | 1, or the namespace */
	struct user_namespace *ns;	/* referenced, for a namespace key */
	refcount_t ref;			/* items, and threads that use it */
	struct workqueue_struct *wq;	/* this account's fault-ins only */
	struct work_struct free_work;
	wait_queue_head_t wait;		/* threads waiting for a place */
	spinlock_t lock;		/* protects what follows */
	struct list_head items;		/* in flight: queued or running */
	unsigned int nr;		/* in flight */
	unsigned int pinned;		/* running on alone, thread gone */
};

/*
 * Accounts with a fault-in in flight or a thread using them; an account
 * is freed with its last reference (rl2_acct_free_wq, which destroys its
 * workqueue once the last work function returned).
 */
static DEFINE_SPINLOCK(rl2_acct_lock);
static DEFINE_HASHTABLE(rl2_accts, 6);
static struct workqueue_struct *rl2_acct_free_wq;

/* All accounts together, for the shared limit and STATS. */
static atomic_t rl2_faults_total = ATOMIC_INIT(0);
static atomic_t rl2_faults_pinned = ATOMIC_INIT(0);

enum { RL2_ITEM_QUEUED, RL2_ITEM_RUNNING, RL2_ITEM_DONE };

struct rl2_fault_item {
	struct delayed_work work;	/* delay 0: cancellable on 5.10 too */
	struct list_head node;		/* in acct->items, under acct->lock */
	struct rl2_acct *acct;		/* referenced */
	struct mm_struct *mm;		/* mmgrab()ed */
	unsigned long uaddr;
	unsigned int fault_flags;
	int state;			/* RL2_ITEM_*, under acct->lock */
	bool abandoned;			/* the thread gave up; under acct->lock */
	int ret;			/* the fault's, once DONE */
	struct completion done;		/* DONE, for a thread still waiting */
};

/*
 * The account of the current thread's credentials: its real uid, folded
 * into the uid that made its user namespace unless root made it.
 */
static unsigned long rl2_acct_key(struct user_namespace **nsp)
{
	const struct cred *cred = current_cred();
	struct user_namespace *ns = cred->user_ns;
	kuid_t uid = cred->uid;

	*nsp = NULL;
	if (ns != &init_user_ns) {
		while (ns->parent != &init_user_ns)
			ns = ns->parent;
		if (uid_eq(ns->owner, GLOBAL_ROOT_UID)) {
			*nsp = ns;
			return (unsigned long)ns;	/* aligned: bit 0 clear */
		}
		uid = ns->owner;
	}
	return (unsigned long)__kuid_val(uid) << 1 | 1;
}

static void rl2_acct_free_fn(struct work_struct *work)
{
	struct rl2_acct *a = container_of(work, struct rl2_acct, free_work);

	destroy_workqueue(a->wq);	/* nothing queued: waits for epilogues */
	if (a->ns)
		put_user_ns(a->ns);
	kfree(a);
}

static void rl2_acct_put(struct rl2_acct *a)
{
	if (!refcount_dec_and_lock(&a->ref, &rl2_acct_lock))
		return;
	hash_del(&a->node);
	spin_unlock(&rl2_acct_lock);
	queue_work(rl2_acct_free_wq, &a->free_work);
}

static struct rl2_acct *rl2_acct_find_locked(unsigned long key)
{
	struct rl2_acct *a;

	lockdep_assert_held(&rl2_acct_lock);
	hash_for_each_possible(rl2_accts, a, node, key)
		if (a->key == key && refcount_inc_not_zero(&a->ref))
			return a;
	return NULL;
}

/* current's account, referenced; made (with its workqueue) if none is live. */
static struct rl2_acct *rl2_acct_get(void)
{
	struct user_namespace *ns;
	unsigned long key = rl2_acct_key(&ns);
	struct rl2_acct *a, *old;

	spin_lock(&rl2_acct_lock);
	a = rl2_acct_find_locked(key);
	spin_unlock(&rl2_acct_lock);
	if (a)
		return a;

	a = kzalloc(sizeof(*a), GFP_KERNEL);	/* not charged: see rl2_fault_in_bounded() */
	if (!a)
		return ERR_PTR(-ENOMEM);
	a->wq = alloc_workqueue("rl2_fault", WQ_UNBOUND, RL2_FAULTS_MAX);
	if (!a->wq) {
		kfree(a);
		return ERR_PTR(-ENOMEM);
	}
	a->key = key;
	refcount_set(&a->ref, 1);
	INIT_WORK(&a->free_work, rl2_acct_free_fn);
	init_waitqueue_head(&a->wait);
	spin_lock_init(&a->lock);
	INIT_LIST_HEAD(&a->items);

	spin_lock(&rl2_acct_lock);
	old = rl2_acct_find_locked(key);
	if (!old) {
		a->ns = ns ? get_user_ns(ns) : NULL;
		hash_add(rl2_accts, &a->node, key);
	}
	spin_unlock(&rl2_acct_lock);
	if (old) {			/* another thread of the account won */
		destroy_workqueue(a->wq);
		kfree(a);
		a = old;
	}
	return a;
}

/* May @a take one more fault-in for @mm? */
static bool rl2_fault_room_locked(struct rl2_acct *a, struct mm_struct *mm)
{
	unsigned int per_mm = READ_ONCE(rl2_faults_per_mm), n = 0;
	struct rl2_fault_item *it;

	lockdep_assert_held(&a->lock);
	if (a->nr >= READ_ONCE(rl2_faults_per_user))
		return false;
	/* an account's first fault-in is never refused */
	if (a->nr && atomic_read(&rl2_faults_total) >= RL2_FAULTS_SHARED)
		return false;
	list_for_each_entry(it, &a->items, node)
		if (it->mm == mm && ++n >= per_mm)
			return false;
	return true;
}

static bool rl2_fault_room(struct rl2_acct *a, struct mm_struct *mm)
{
	bool room;

	spin_lock(&a->lock);
	room = rl2_fault_room_locked(a, mm);
	spin_unlock(&a->lock);
	return room;
}

/*
 * Put @it on its account's list once there is room, waiting for the
 * account's own items only, until @deadline.  0 or -ETIMEDOUT.
 */
static int rl2_fault_admit(struct rl2_fault_item *it, unsigned long deadline)
{
	struct rl2_acct *a = it->acct;
	long left;

	for (;;) {
		spin_lock(&a->lock);
		if (rl2_fault_room_locked(a, it->mm)) {
			list_add_tail(&it->node, &a->items);
			a->nr++;
			atomic_inc(&rl2_faults_total);
			spin_unlock(&a->lock);
			return 0;
		}
		spin_unlock(&a->lock);
		left = (long)(deadline - jiffies);
		if (left <= 0)
			return -ETIMEDOUT;
		/* a place frees when an item of the account ends (or the shared limit moves) */
		wait_event_timeout(a->wait, rl2_fault_room(a, it->mm),
				   min_t(long, left, RL2_FAULT_WAIT_STEP));
	}
}

/* Take @it off its account's list: it holds no place any more. */
static void rl2_fault_unlink_locked(struct rl2_fault_item *it)
{
	struct rl2_acct *a = it->acct;

	lockdep_assert_held(&a->lock);
	list_del(&it->node);
	a->nr--;
	atomic_dec(&rl2_faults_total);
	if (it->abandoned) {
		a->pinned--;
		atomic_dec(&rl2_faults_pinned);
	}
	wake_up(&a->wait);
}

/* The item's last owner: its mm, its account, then the module, last. */
static void rl2_fault_item_free(struct rl2_fault_item *it)
{
	mmdrop(it->mm);
	rl2_acct_put(it->acct);
	kfree(it);
	module_put(THIS_MODULE);
}

static void rl2_fault_item_fn(struct work_struct *work)
{
	struct rl2_fault_item *it = container_of(to_delayed_work(work),
						 struct rl2_fault_item, work);
	struct rl2_acct *a = it->acct;
	struct mm_struct *mm = it->mm;
	bool unlocked = false, orphan;
	int ret = -EFAULT;

	spin_lock(&a->lock);
	it->state = RL2_ITEM_RUNNING;
	orphan = it->abandoned;		/* given up before it started */
	spin_unlock(&a->lock);

	/* No address space left (the process is gone): nothing to fault. */
	if (!orphan && mmget_not_zero(mm)) {
		/*
		 * With @unlocked the fault may drop mmap_lock while it waits
		 * for a read; ->page_mkwrite() is called with it held.
		 */
		mmap_read_lock(mm);
		ret = fixup_user_fault(mm, it->uaddr, it->fault_flags, &unlocked);
		mmap_read_unlock(mm);
		/* never exit_mmap() here: it may wait on the same file system */
		mmput_async(mm);
	}

	spin_lock(&a->lock);
	it->ret = ret;
	it->state = RL2_ITEM_DONE;
	orphan = it->abandoned;
	rl2_fault_unlink_locked(it);
	if (!orphan)
		complete(&it->done);	/* the thread frees it: touch it no more */
	spin_unlock(&a->lock);
	if (orphan)
		rl2_fault_item_free(it);
}

/*
 * The thread is done waiting for @it, at its end or at its deadline.
 * Returns the fault's result if it ended, else -ETIMEDOUT; frees @it
 * unless its worker runs on.
 */
static int rl2_fault_item_finish(struct rl2_fault_item *it)
{
	struct rl2_acct *a = it->acct;
	bool mine = true;
	int ret = -ETIMEDOUT;

	spin_lock(&a->lock);
	if (it->state == RL2_ITEM_DONE) {
		ret = it->ret;
	} else if (it->state == RL2_ITEM_QUEUED && cancel_delayed_work(&it->work)) {
		rl2_fault_unlink_locked(it);
	} else {
		/* started, or about to: it runs on alone, pinning its mm */
		it->abandoned = true;
		a->pinned++;
		atomic_inc(&rl2_faults_pinned);
		mine = false;
	}
	spin_unlock(&a->lock);
	if (mine)
		rl2_fault_item_free(it);
	return ret;
}

/**
 * rl2_fault_in_bounded - fault a page of current's mm in, by a worker
 * @uaddr: user address, untagged
 * @write: make it writable
 * @deadline: jiffies after which the caller waits no longer
 *
 * For a dying thread whose fault may wait on a file system: a worker of
 * the thread's account takes the fault, and this waits for a place and
 * for the fault at most until @deadline.  The caller runs in module code
 * under a reference it holds (the dying thread's record).
 *
 * Returns 0 (the page was present, and writable for @write, when the
 * worker finished), -ETIMEDOUT (the deadline passed first; a started
 * fault runs on), -ENOMEM, or the fault's error (-EFAULT for a mapping
 * that cannot be accessed so).
 */
int rl2_fault_in_bounded(unsigned long uaddr, bool write,
			 unsigned long deadline)
{
	struct rl2_fault_item *it;
	struct rl2_acct *a;
	long left;
	int ret;

	if (time_after_eq(jiffies, deadline))
		return -ETIMEDOUT;
	/*
	 * Not charged to the dying thread's memory cgroup: an OOM victim's
	 * is full, and a dying task's charge then fails at once, while its
	 * exit is when a fault-in matters most.  The limits bound these
	 * allocations instead (about 200 bytes an item, 600 an account).
	 */
	it = kzalloc(sizeof(*it), GFP_KERNEL);
	if (!it)
		return -ENOMEM;
	a = rl2_acct_get();
	if (IS_ERR(a)) {
		kfree(it);
		return PTR_ERR(a);
	}
	INIT_DELAYED_WORK(&it->work, rl2_fault_item_fn);
	init_completion(&it->done);
	it->acct = a;
	it->mm = current->mm;
	it->uaddr = uaddr;
	it->fault_flags = write ? FAULT_FLAG_WRITE : 0;

	ret = rl2_fault_admit(it, deadline);
	if (ret) {
		rl2_acct_put(a);
		kfree(it);
		return ret;
	}
	mmgrab(it->mm);
	__module_get(THIS_MODULE);	/* the item's; the caller holds one */
	queue_delayed_work(a->wq, &it->work, 0);

	while ((left = (long)(deadline - jiffies)) > 0) {
		if (wait_for_completion_io_timeout(&it->done,
						   min_t(long, left, RL2_FAULT_WAIT_STEP)))
			break;
	}
	return rl2_fault_item_finish(it);
}

/**
 * rl2_fault_acct_read - the current thread's account, for FAULTS
 * @f: filled in
 */
void rl2_fault_acct_read(struct robust_list2_faults *f)
{
	struct user_namespace *ns;
	unsigned long key = rl2_acct_key(&ns);
	struct rl2_acct *a;

	memset(f, 0, sizeof(*f));
	f->per_user = READ_ONCE(rl2_faults_per_user);
	f->per_mm = READ_ONCE(rl2_faults_per_mm);
	f->shared = RL2_FAULTS_SHARED;
	spin_lock(&rl2_acct_lock);
	a = rl2_acct_find_locked(key);
	spin_unlock(&rl2_acct_lock);
	if (!a)
		return;
	spin_lock(&a->lock);
	f->in_flight = a->nr;
	f->pinned = a->pinned;
	spin_unlock(&a->lock);
	rl2_acct_put(a);
}

/* Fault-ins in flight and left running alone, all accounts (STATS). */
void rl2_fault_totals(u64 *in_flight, u64 *pinned)
{
	*in_flight = atomic_read(&rl2_faults_total);
	*pinned = atomic_read(&rl2_faults_pinned);
}

int rl2_fault_work_init(void)
{
	/* Destroys idle accounts' workqueues: never waits on a fault. */
	rl2_acct_free_wq = alloc_workqueue("rl2_acct_free", WQ_UNBOUND, 1);
	return rl2_acct_free_wq ? 0 : -ENOMEM;
}

/*
 * Every item holds a module reference, and every account is referenced
 * only by items and by threads inside the walk (which the records pin):
 * at unload each account's last put has queued its free_work, which the
 * destroy drains (and they wait for the items' last instructions).
 */
void rl2_fault_work_exit(void)
{
	destroy_workqueue(rl2_acct_free_wq);
	WARN_ON_ONCE(!hash_empty(rl2_accts));
}
