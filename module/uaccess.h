/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Access to the current task's user memory: the exit walk, the unlock
 * ioctl and the try-unlock fix-up all run in the task whose memory they
 * touch (uaccess.c).
 */
#ifndef _RL2_UACCESS_H
#define _RL2_UACCESS_H

#include <linux/types.h>
#include <linux/compiler_types.h>
#include <linux/uaccess.h>
#include <linux/jiffies.h>
#include <asm/futex.h>

/*
 * What one exit (or exec) may still spend on pages that are not present
 * (uaccess.c): fault-ins, since nothing interrupts a dying thread's fault,
 * and time.  @start is when the walk began; from @start + io_wait_ms on
 * (the deadline, computed at the first page that is not present) no page
 * is waited for.  NULL where the caller is a live system call, which
 * faults as any system call does.
 */
struct rl2_faults {
	unsigned int left;		/* fault-ins still allowed */
	unsigned int io_timeouts;	/* accesses given up at the deadline */
	unsigned long start;		/* jiffies at the walk's start */
	unsigned long deadline;		/* jiffies, once @armed */
	bool armed;
};

/*
 * Uninterruptible fault-ins (words on pages not present) per exit: 4096
 * pages cover 16 MiB of lock words touched nowhere else.
 */
#define RL2_EXIT_FAULTS		4096

/* At the walk's start: one load, on every registered thread's exit. */
static inline void rl2_faults_init(struct rl2_faults *f)
{
	f->left = RL2_EXIT_FAULTS;
	f->io_timeouts = 0;
	f->start = jiffies;
	f->armed = false;
}

unsigned int rl2_io_wait_ms_get(void);

int rl2_user_get(unsigned long uaddr, unsigned int size, u64 *val,
		 struct rl2_faults *f);
int rl2_user_read_u32(unsigned long uaddr, u32 *val, struct rl2_faults *f);
int rl2_user_clear(unsigned long uaddr, unsigned int size, struct rl2_faults *f);
int rl2_user_cmpxchg(u32 __user *u, u32 oldval, u32 newval, u32 *cur,
		     struct rl2_faults *f);

/*
 * The fast paths of the exit walk, inline: one access with page faults
 * disabled, which is all an entry costs when its pages are present.  On
 * any error the caller goes to the functions above, which try again and
 * bring the page in within the exit's budget; so these never sleep, never
 * fault a page in, and the walk's guarantees are the slow path's.
 */
static __always_inline int rl2_user_get_nofault(unsigned long uaddr,
						unsigned int size, u64 *val)
{
	int ret;

	pagefault_disable();
	if (size == sizeof(u32)) {
		u32 v;

		ret = get_user(v, (u32 __user *)uaddr);
		*val = v;
	} else {
		ret = get_user(*val, (u64 __user *)uaddr);
	}
	pagefault_enable();
	return ret;
}

/* 0 (exchanged iff *@cur == @oldval), or an error: take the slow path. */
static __always_inline int rl2_user_cmpxchg_nofault(u32 __user *u, u32 oldval,
						    u32 newval, u32 *cur)
{
	int ret;

	pagefault_disable();
	ret = futex_atomic_cmpxchg_inatomic(cur, u, oldval, newval);
	pagefault_enable();
	return ret;
}

#endif /* _RL2_UACCESS_H */
