// SPDX-License-Identifier: GPL-2.0
/*
 * rl2_detect: makes one of the debug kernel's detectors report, so that
 * tests/host/t_vm_detectors.sh can show that each detector of make
 * check-debug fires and that the harness then fails the run.  Test-only,
 * built against the debug kernel's tree, never installed.
 *
 *	insmod rl2_detect.ko bug=NAME	(then rmmod rl2_detect)
 *
 * NAME: circular, inconsistent (lockdep), sleep (DEBUG_ATOMIC_SLEEP),
 * ubsan (UBSAN_BOUNDS), kfence, kasan, warn (a WARN(), which the KCSAN
 * kernel's boots no longer panic on).  Each bug is real but harmless:
 * nothing deadlocks, sleeps in atomic context or touches memory another
 * object owns.  Lockdep reports once per boot and turns itself off, as a
 * KASAN report turns it off too: one lockdep case per boot, before kasan.
 */
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/kfence.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>

static char bug[16];
module_param_string(bug, bug, sizeof(bug), 0400);
MODULE_PARM_DESC(bug, "circular, inconsistent, sleep, ubsan, kfence, kasan or warn");

static DEFINE_MUTEX(lock_a);
static DEFINE_MUTEX(lock_b);

/* A then B, later B then A: lockdep sees the cycle without a deadlock. */
static int detect_circular(void)
{
	mutex_lock(&lock_a);
	mutex_lock(&lock_b);
	mutex_unlock(&lock_b);
	mutex_unlock(&lock_a);

	mutex_lock(&lock_b);
	mutex_lock(&lock_a);
	mutex_unlock(&lock_a);
	mutex_unlock(&lock_b);
	return 0;
}

static DEFINE_SPINLOCK(softirq_lock);
static DECLARE_COMPLETION(timer_ran);

static void take_in_softirq(struct timer_list *t)
{
	spin_lock(&softirq_lock);
	spin_unlock(&softirq_lock);
	complete(&timer_ran);
}

/* Taken with softirqs on in a task, then in a timer (softirq). */
static int detect_inconsistent(void)
{
	struct timer_list t;
	int ret = 0;

	spin_lock(&softirq_lock);
	spin_unlock(&softirq_lock);

	timer_setup_on_stack(&t, take_in_softirq, 0);
	mod_timer(&t, jiffies + 1);
	if (!wait_for_completion_timeout(&timer_ran, 10 * HZ))
		ret = -ETIMEDOUT;
	timer_shutdown_sync(&t);
	destroy_timer_on_stack(&t);
	return ret;
}

static DEFINE_SPINLOCK(atomic_lock);

/* A GFP_KERNEL allocation under a spinlock: may sleep in atomic context. */
static int detect_sleep(void)
{
	void *p;

	spin_lock(&atomic_lock);
	p = kmalloc(32, GFP_KERNEL);
	spin_unlock(&atomic_lock);
	kfree(p);
	return 0;
}

/*
 * The index is past arr[] but still inside the struct: only UBSAN sees it.
 * A plain read: READ_ONCE() would take &arr[4], a legal one-past-the-end
 * address that the bounds check lets through.
 */
static struct {
	int arr[4];
	int after;
} ubsan_obj;

static int detect_ubsan(void)
{
	int i = ARRAY_SIZE(ubsan_obj.arr);
	int v;

	OPTIMIZER_HIDE_VAR(i);
	v = ubsan_obj.arr[i];
	OPTIMIZER_HIDE_VAR(v);
	return v == 42 ? 1 : 0;
}

/*
 * KFENCE samples one allocation per interval (100 ms): allocate until one
 * comes from its pool, free it, read it.  Its page is protected once
 * freed, so the read faults into KFENCE, which reports and lets it pass.
 */
static int detect_kfence(void)
{
	unsigned long deadline = jiffies + 30 * HZ;
	char *p;

	do {
		p = kmalloc(32, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		if (is_kfence_address(p)) {
			kfree(p);
			OPTIMIZER_HIDE_VAR(p);
			return READ_ONCE(p[0]) == 42 ? 1 : 0;
		}
		kfree(p);
		cond_resched();
	} while (time_before(jiffies, deadline));
	return -ETIMEDOUT;
}

/*
 * One byte past a kmalloc() object, inside its slab's redzone.  Larger
 * than a page, so that KFENCE (which takes at most a page) never serves
 * it and the report is KASAN's.
 */
static int detect_kasan(void)
{
	size_t size = PAGE_SIZE + 8;
	char *p = kmalloc(size, GFP_KERNEL);
	int ret;

	if (!p)
		return -ENOMEM;
	OPTIMIZER_HIDE_VAR(p);
	ret = READ_ONCE(p[size]) == 42 ? 1 : 0;
	kfree(p);
	return ret;
}

/* A plain WARN(): what every other detector's panic_on_warn=1 stands for. */
static int detect_warn(void)
{
	WARN(1, "rl2_detect: a WARN for the harness\n");
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(void);
} detectors[] = {
	{ "circular", detect_circular },
	{ "inconsistent", detect_inconsistent },
	{ "sleep", detect_sleep },
	{ "ubsan", detect_ubsan },
	{ "kfence", detect_kfence },
	{ "kasan", detect_kasan },
	{ "warn", detect_warn },
};

static int __init rl2_detect_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(detectors); i++) {
		if (!sysfs_streq(bug, detectors[i].name))
			continue;
		pr_info("provoking %s\n", detectors[i].name);
		ret = detectors[i].fn();
		return ret < 0 ? ret : 0;
	}
	pr_err("unknown bug '%s'\n", bug);
	return -EINVAL;
}

static void __exit rl2_detect_exit(void)
{
}

module_init(rl2_detect_init);
module_exit(rl2_detect_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("robust_list2 tests: make a debug kernel detector report");
