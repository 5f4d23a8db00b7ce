// SPDX-License-Identifier: GPL-2.0
/*
 * The exit and exec walk of a thread's robust lists.
 *
 * Same meaning as the kernel's exit_robust_list()/handle_futex_death(),
 * run for each non-empty slot in the dying thread's own context while its
 * mm is still attached, with these differences:
 *
 *  - 32- and 64-bit lists are walked by one walker; for 32-bit lists the
 *    pointers are zero-extended and entry + futex_offset wraps at 32 bits,
 *    as the kernel's compat walker computes it;
 *  - no 2048-entry cap: Brent's cycle detection ends any cycle (to the
 *    head, the middle, a self-loop) after at most mu + 2 * lambda steps with
 *    O(1) memory, and rl2_walk_limit (module parameter, reported by
 *    ROBUST_LIST2_IOC_INFO) is a budget of entries for the whole exit, all
 *    slots together: a dying thread cannot be interrupted, the OOM reaper
 *    waits for it, and exec walks under cred_guard_mutex.  When it runs
 *    out, the pending entry of each list is still handled.  Entries met
 *    twice inside a cycle are harmless: the first visit cleared the owner
 *    TID, so the second leaves the word alone;
 *  - pages are faulted in even under SIGKILL (uaccess.c), so that a list or
 *    a word on a page the thread never touched, dropped by MADV_DONTNEED
 *    or swapped out is recovered, with at most RL2_EXIT_FAULTS fault-ins
 *    per exit; no fault that may wait on a file system runs in the dying
 *    thread: a worker of its user's takes it (fault_work.c).  Every exit
 *    has a deadline, io_wait_ms (module parameter, default 10 s) of wall
 *    time from its walk's start, for reads and writes, every list and the
 *    try-unlock fix-up together: past it no page is waited for.  A word
 *    whose page does not come in time is given up (counted in
 *    io_timeouts) and the walk goes on with the next entry; a list pointer
 *    that cannot be read in time ends that list's walk.  A thread is so
 *    never held in D state by a FUSE server that does not answer a READ or
 *    a WRITE, as the kernel's own walk is.  One exit then takes at most
 *    io_wait_ms, plus the walk of at most walk_limit present entries;
 *  - one waiter is woken with a shared FUTEX_WAKE as the kernel does, or,
 *    if there is none, with FUTEX_WAKE_PRIVATE, which reaches waiters of
 *    the dying thread's own process that used the private op (a different
 *    futex key);
 *  - a based list (ROBUST_LIST2_IOC_SET_BASED) lives in a guest address
 *    space: everything read from it is a guest address, list arithmetic
 *    (the end of the list, cycle detection, the pending entry, the 32-bit
 *    wrap of entry + futex_offset) is done on guest addresses, and only
 *    memory accesses add the base.  A base + pointer that overflows or is
 *    not below TASK_SIZE ends that list's walk like any bad pointer;
 *  - the owner TID compared is the one the thread had when it registered,
 *    which differs from task_pid_vnr() only after a non-leader thread's
 *    exec took over the leader's TID; locks it took before the exec carry
 *    its old TID.
 *  - an entry costs one read of its next pointer and, for a lock the
 *    thread holds without waiters (the word is its TID), one compare-
 *    exchange of TID to FUTEX_OWNER_DIED, both inline with page faults
 *    disabled; the word is read first only when that exchange fails
 *    (waiters, another owner, a page not present or not writable), and
 *    whatever must fault a page in or wait for I/O takes uaccess.c's slow
 *    paths under the budgets above.  A failed exchange leaves the word as
 *    it was (on x86 it writes the same value back, which a page that is
 *    not writable refuses: then the word is read instead).  cond_resched()
 *    runs every RL2_RESCHED_EVERY entries rather than after each.
 *
 * Tagged pointers (arm64's tagged address ABI, x86 LAM) are followed as
 * the kernel's walk of the legacy list follows them: a head, a next
 * pointer or list_op_pending may carry a tag, which is dropped for the
 * range check and for finding the page to fault in, and kept for the end
 * of the list, the cycle detection and every access (the kernel's
 * accessors accept it where the thread enabled the ABI, and MTE checks
 * it).
 *
 * As in the kernel, a misaligned or unreachable futex word, or a next
 * pointer that cannot be read, ends that list's walk (without the pending
 * entry); the other slots are still walked.  Nothing outside the futex
 * words named by the thread's own lists is ever written.
 */
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/mm.h>
#include <linux/jiffies.h>
#include <linux/uaccess.h>
#include <linux/futex.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <asm/futex.h>

#include "rl2_types.h"
#include "registry.h"
#include "walk.h"
#include "fault_inject.h"
#include "kcall.h"
#include "uaccess.h"
#include "window.h"

/*
 * The kernel's own walk of one legacy list costs about 11 ns per owned
 * entry on an x86-64 CPU (2048 entries, measured on the kernel our host
 * runs), and ours takes fewer instructions per entry than it in the
 * benchmark: 2^20 entries is then at most about 12 ms, and a futex-hash
 * lookup for every entry (waiters bit set) keeps it well under the OOM
 * reaper's 2 s wait, while still 512 times the kernel's 2048 entries per
 * list.
 */
unsigned long rl2_walk_limit = 1UL << 20;

struct rl2_walk {
	u32 tid;
	bool is32;
	unsigned long base;		/* of the list walked; 0: none */
	unsigned long limit;		/* the dying thread's TASK_SIZE */
	unsigned long budget;		/* entries left for this exit */
	struct rl2_faults faults;	/* fault-ins left, the deadline */
	unsigned long entries;
	unsigned long recovered;
	unsigned long woken;
};

/*
 * The host address of guest address @g: base + @g.  False where that
 * overflows or, without its tag (compat.h rl2_untag()), is not below the
 * dying process's TASK_SIZE (read once per exit into w->limit: an exec
 * changes the personality only after the walk), which ends the list's
 * walk: the base only ever moves the walk within the thread's own user
 * address space.  The address keeps its tag.
 */
static __always_inline bool rl2_host_addr(const struct rl2_walk *w,
					  unsigned long g, unsigned long *h)
{
	return !check_add_overflow(w->base, g, h) && rl2_untag(*h) < w->limit;
}

/*
 * Read @size bytes at guest address @g of the list: inline with page
 * faults disabled, else through uaccess.c's slow path, which brings the
 * page in within the exit's budget.
 */
static __always_inline int rl2_list_get(struct rl2_walk *w, unsigned long g,
					unsigned int size, u64 *v)
{
	unsigned long h;

	if (unlikely(!rl2_host_addr(w, g, &h)))
		return -EFAULT;
	if (likely(!rl2_user_get_nofault(h, size, v)))
		return 0;
	return rl2_user_get(h, size, v, &w->faults);
}

/* Read a list pointer of the list's width; bit 0 is the PI flag. */
static __always_inline int rl2_fetch_entry(struct rl2_walk *w,
					   unsigned long uaddr,
					   unsigned long *entry, bool *pi)
{
	u64 v;

	if (unlikely(rl2_list_get(w, uaddr, w->is32 ? sizeof(u32) : sizeof(u64),
				  &v)))
		return -EFAULT;
	*entry = (unsigned long)(v & ~1ULL);
	*pi = v & 1;
	return 0;
}

/*
 * The head's three fields (list.next, futex_offset, list_op_pending) in
 * one user-access window with page faults disabled: what the walk of
 * every list begins with, and all that a thread holding no lock at its
 * exit reads.  False when the head is not wholly below the limit or a
 * page is not present: then the caller reads field by field, through the
 * paths that fault pages in within the exit's budget, with the same
 * answer for any head this one accepts.
 */
static __always_inline bool rl2_head_get_nofault(struct rl2_walk *w,
						 unsigned long head, u64 *next,
						 long *offset, u64 *pending)
{
	unsigned long h, size = w->is32 ? sizeof(struct rl2_head32) :
					  sizeof(struct robust_list_head);
	bool ok = false;

	if (!rl2_host_addr(w, head, &h) || w->limit - rl2_untag(h) < size)
		return false;
	pagefault_disable();
	if (!user_access_begin((const void __user *)h, size))
		goto out;
	if (w->is32) {
		const struct rl2_head32 __user *u = (const void __user *)h;
		u32 n, p;
		s32 o;

		unsafe_get_user(n, &u->next, efault);
		unsafe_get_user(o, &u->futex_offset, efault);
		unsafe_get_user(p, &u->list_op_pending, efault);
		*next = n;
		*offset = o;
		*pending = p;
	} else {
		const struct robust_list_head __user *u = (const void __user *)h;
		unsigned long n, p;
		long o;

		unsafe_get_user(n, (const unsigned long __user *)&u->list.next, efault);
		unsafe_get_user(o, &u->futex_offset, efault);
		unsafe_get_user(p, (const unsigned long __user *)&u->list_op_pending,
				efault);
		*next = n;
		*offset = o;
		*pending = p;
	}
	ok = true;
efault:
	user_access_end();
out:
	pagefault_enable();
	return ok;
}

/* The guest address of an entry's futex word (32-bit lists wrap). */
static __always_inline unsigned long rl2_futex_uaddr(struct rl2_walk *w,
						     unsigned long entry,
						     long offset)
{
	if (w->is32)
		return (u32)((u32)entry + (u32)offset);
	return entry + offset;
}

/*
 * Wake one waiter, as the kernel's walk does: a death passes the lock on
 * to one thread.  The kernel wakes with the shared key, which finds every
 * waiter that used shared futex ops (glibc's robust mutexes always do);
 * only when there is none do we try the dying process's private key, so
 * a FUTEX_WAIT_PRIVATE waiter in that process is not left asleep either.
 */
static void rl2_wake(struct rl2_walk *w, unsigned long uaddr)
{
	/* test build: RL2_FI_PLANT_LOST_WAKE, a bug for make fuzz */
	u32 __user *u = rl2_fi_wake_addr((u32 __user *)uaddr, w->is32);
	long ret;

	ret = rl2_kcall_do_futex(u, FUTEX_WAKE, 1, NULL, NULL, 0,
				 FUTEX_BITSET_MATCH_ANY);
	if (ret <= 0)
		ret = rl2_kcall_do_futex(u, FUTEX_WAKE_PRIVATE, 1, NULL, NULL,
					 0, FUTEX_BITSET_MATCH_ANY);
	if (ret > 0)
		w->woken += ret;
}

/*
 * Mark the futex word at @uaddr FUTEX_OWNER_DIED if the dying thread owns
 * it, and wake a waiter.  Returns non-zero when the walk must stop.
 */
static noinline int rl2_handle_death(struct rl2_walk *w, unsigned long uaddr,
				     bool pi, bool pending)
{
	u32 __user *u = (u32 __user *)uaddr;
	u32 uval, nval, mval, owner;
	int ret;

	if (uaddr & (sizeof(u32) - 1))
		return -EINVAL;
retry:
	ret = rl2_user_read_u32(uaddr, &uval, &w->faults);
	if (ret)
		return ret == -ETIMEDOUT ? 0 : ret;	/* given up: go on */

	owner = uval & FUTEX_TID_MASK;
	if (owner != w->tid) {
		/*
		 * Not ours.  But a pending non-PI lock may carry a wake the
		 * dying thread owed: it released the word and died before its
		 * FUTEX_WAKE (word 0), or it was a woken waiter that died
		 * before taking the lock while a third thread took it without
		 * FUTEX_WAITERS, or whose owner died (owner part 0).  The next
		 * waiter would sleep forever; wake one, never change the word.
		 * These are states A, B and D of handle_futex_death() in
		 * current stable kernels (C, FUTEX_WAITERS set, is woken by
		 * the owner's unlock).
		 */
		if (!pending || pi || (owner && (uval & FUTEX_WAITERS)))
			return 0;
		/*
		 * The kernel's wake looks the page up writable first and
		 * would fault it so itself, waiting for whatever the file
		 * system makes a write fault wait for (a WRITE under
		 * writeback that the server never answers).  Make it
		 * writable here, within the deadline: exchange the word
		 * with itself.  Given up: no wake.  Read-only (-EFAULT):
		 * the wake's writable lookup fails at once, and its
		 * read-only one finds the page we just read.
		 */
		ret = rl2_user_cmpxchg(u, uval, uval, &nval, &w->faults);
		if (ret == -ETIMEDOUT || (ret && !w->faults.left))
			return 0;	/* or no fault-in left to make it so */
		if (!ret && nval != uval) {
			cond_resched();
			goto retry;	/* changed meanwhile: look again */
		}
		rl2_wake(w, uaddr);
		return 0;
	}

	mval = (uval & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
	ret = rl2_user_cmpxchg(u, uval, mval, &nval, &w->faults);
	if (ret == -ETIMEDOUT)
		return 0;		/* given up, never written late: go on */
	if (ret)
		return ret;		/* e.g. a read-only mapping */

	if (nval != uval) {
		/*
		 * Another thread changed the word (a waiter set
		 * FUTEX_WAITERS): retry until we win, as the kernel does.
		 */
		cond_resched();
		goto retry;
	}

	w->recovered++;
	/* PI waiters are woken by the kernel's own exit_pi_state_list(). */
	if (!pi && (uval & FUTEX_WAITERS))
		rl2_wake(w, uaddr);
	return 0;
}

/*
 * rl2_handle_death() for the futex word of guest entry @entry.  An entry
 * of the list (not the pending one) is nearly always a lock the thread
 * holds without waiters, a word that is its TID: one compare-exchange of
 * TID to FUTEX_OWNER_DIED with page faults disabled does what reading the
 * word and then exchanging it does, with one user access instead of two.
 * Anything else (waiters, another owner, a page not present or not
 * writable) fails that exchange, which leaves the word as it was, and
 * takes the full path.
 */
static __always_inline int rl2_handle_entry(struct rl2_walk *w,
					    unsigned long entry, long offset,
					    bool pi, bool pending)
{
	unsigned long uaddr;
	u32 cur;

	if (unlikely(!rl2_host_addr(w, rl2_futex_uaddr(w, entry, offset),
				    &uaddr)))
		return -EFAULT;
	if (!pending && likely(!(uaddr & (sizeof(u32) - 1))) &&
	    likely(!rl2_user_cmpxchg_nofault((u32 __user *)uaddr, w->tid,
					     FUTEX_OWNER_DIED, &cur)) &&
	    likely(cur == w->tid)) {
		w->recovered++;
		return 0;
	}
	return rl2_handle_death(w, uaddr, pi, pending);
}

/*
 * Entries walked between two cond_resched(): a few microseconds when the
 * pages are present; a fault-in or an I/O wait sleeps anyway.
 */
#define RL2_RESCHED_EVERY	32

/* Walk one list; @head is the guest address of its head (w->base set). */
static void rl2_walk_list(struct rl2_walk *w, unsigned long head)
{
	unsigned long entry, next, pending, tortoise;
	unsigned long power = 1, lam = 0, left, n = 0;
	bool pi, next_pi, pip;
	u64 v_next, v_pending;
	long offset;
	int rc;

	atomic64_inc(&rl2_stats.walks);

	/* Head: list.next, futex_offset, list_op_pending. */
	if (likely(rl2_head_get_nofault(w, head, &v_next, &offset, &v_pending))) {
		entry = (unsigned long)(v_next & ~1ULL);
		pi = v_next & 1;
		pending = (unsigned long)(v_pending & ~1ULL);
		pip = v_pending & 1;
		goto walk;
	}
	if (rl2_fetch_entry(w, head, &entry, &pi))
		goto fault;
	if (w->is32) {
		u64 off32;

		if (rl2_list_get(w, head + offsetof(struct rl2_head32, futex_offset),
				 sizeof(u32), &off32))
			goto fault;
		offset = (s32)off32;
		rc = rl2_fetch_entry(w, head + offsetof(struct rl2_head32, list_op_pending),
				     &pending, &pip);
	} else {
		u64 off64;

		if (rl2_list_get(w, head + offsetof(struct robust_list_head, futex_offset),
				 sizeof(u64), &off64))
			goto fault;
		offset = (long)off64;
		rc = rl2_fetch_entry(w, head + offsetof(struct robust_list_head, list_op_pending),
				     &pending, &pip);
	}
	if (rc)
		goto fault;

walk:
	tortoise = head;
	left = w->budget;
	while (entry != head) {
		if (!left) {
			atomic64_inc(&rl2_stats.limited);
			break;
		}
		left--;
		n++;
		/* Fetch the next entry before the word can be released. */
		rc = rl2_fetch_entry(w, entry, &next, &next_pi);
		/* The pending lock may also be on the list: handle it once. */
		if (entry != pending &&
		    rl2_handle_entry(w, entry, offset, pi, false))
			goto fault_n;
		if (rc)
			goto fault_n;
		entry = next;
		pi = next_pi;

		if (entry == head)	/* the normal end, not a cycle */
			break;
		if (entry == tortoise) {
			atomic64_inc(&rl2_stats.cycles);
			break;
		}
		if (++lam == power) {	/* Brent: move the tortoise */
			tortoise = entry;
			power <<= 1;
			lam = 0;
		}
		if (!(n % RL2_RESCHED_EVERY))
			cond_resched();
	}
	w->budget = left;
	w->entries += n;
	/* test build: RL2_FI_PLANT_OVERRUN, a bug for make fuzz */
	rl2_fi_list_end(w->base + head + (w->is32 ? sizeof(struct rl2_head32) :
					  sizeof(struct robust_list_head)),
			entry == head ? n : 0);

	if (pending)
		rl2_handle_entry(w, pending, offset, pip, true);
	return;
fault_n:
	w->budget = left;
	w->entries += n;
fault:
	atomic64_inc(&rl2_stats.faults);
}

/**
 * rl2_walk_task - finish a try-unlock, walk every non-empty slot
 * @rec: the dying (or exec'ing) thread's record, detached; the thread is
 *	current
 *
 * Runs in the thread's own context, before its address space goes away,
 * may sleep and fault pages in, within one budget for the whole exit.
 */
void rl2_walk_task(struct rl2_task *rec)
{
	struct rl2_walk w = {
		.tid = rec->tid,
		.limit = TASK_SIZE,
		.budget = READ_ONCE(rl2_walk_limit),
	};
	unsigned int i, left = rec->nr_used;

	rl2_faults_init(&w.faults);	/* the deadline runs from here */

	if (WARN_ON_ONCE(rl2_rec_task(rec) != current) || !current->mm)
		return;

	/* A thread stopped inside a try-unlock window: finish it, in budget. */
	rl2_window_fixup(rec, &w.faults);

	/* The slots in use only: one, for most threads. */
	for (i = 0; left && i < RL2_NR_SLOTS; i++) {
		u64 word = rec->slot[i];

		if (!word)
			continue;
		left--;
		w.is32 = word & RL2_SLOT_32;
		w.base = rl2_slot_base(rec, i);
		/* The slot holds the head's host address: walk from the guest's. */
		rl2_walk_list(&w, (unsigned long)(word & ~RL2_SLOT_FLAGS) - w.base);
	}

	/*
	 * Module-wide counters are atomics every CPU shares: most threads die
	 * holding no lock, so only what moved is added.
	 */
	if (w.entries)
		atomic64_add(w.entries, &rl2_stats.entries);
	if (w.recovered)
		atomic64_add(w.recovered, &rl2_stats.recovered);
	if (w.woken)
		atomic64_add(w.woken, &rl2_stats.woken);
	if (w.faults.io_timeouts)
		atomic64_add(w.faults.io_timeouts, &rl2_stats.io_timeouts);
}
