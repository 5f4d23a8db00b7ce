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
 *  - The library's try-unlock does the uncontended release without a
 *    system call; a thread that dies inside it is repaired by window.c.
 */
#include <linux/module.h>
#include <linux/uaccess.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "rl2_types.h"
#include "fault_inject.h"
#include "unlock.h"
#include "kcall.h"
#include "uaccess.h"

#define RL2_UNLOCK_FLAGS	(ROBUST_LIST2_UNLOCK_POP32 | \
				 ROBUST_LIST2_UNLOCK_PRIVATE | \
				 ROBUST_LIST2_UNLOCK_PI)

/*
 * Release the word at @u if it is owned by @tid: store 0.  A waiter that
 * sets FUTEX_WAITERS between our read and our compare-exchange makes us
 * try again, for as long as it takes, as the kernel's own futex code does:
 * a bound would hand the caller a lock it can neither keep nor release.
 * Only a fatal signal ends the loop; the thread then dies holding the
 * lock, and its exit walk recovers it like any other.
 */
static long rl2_release_word(u32 __user *u, u32 tid, u32 *old)
{
	bool lost;
	u32 cur;
	int ret;

	if (rl2_user_read_u32((unsigned long)u, old, NULL))
		return -EFAULT;
	for (;;) {
		if ((*old & FUTEX_TID_MASK) != tid)
			return -EPERM;
		/* The test build can make this compare-exchange lose. */
		lost = rl2_fi_unlock_race();
		ret = lost ? rl2_user_read_u32((unsigned long)u, &cur, NULL) :
			     rl2_user_cmpxchg(u, *old, 0, &cur, NULL);
		if (ret)
			return -EFAULT;
		if (cur == *old && !lost)
			return 0;
		*old = cur;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
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
		if (rl2_user_read_u32(a.uaddr, &old, NULL))
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
	pop_ret = a.pop ? rl2_user_clear(a.pop, pop_size, NULL) : 0;

	/* Waiters set FUTEX_WAITERS before they sleep: none, no wake. */
	if (!(a.flags & ROBUST_LIST2_UNLOCK_PI) && (old & FUTEX_WAITERS))
		ret = rl2_kcall_do_futex(u, FUTEX_WAKE | priv, a.nr_wake, NULL,
					 NULL, 0, FUTEX_BITSET_MATCH_ANY);
	if (pop_ret || put_user(old, &ua->old))
		return -EFAULT;
	return ret;
}

