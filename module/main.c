// SPDX-License-Identifier: GPL-2.0
/*
 * robust_list2: the proposed set_robust_list2()/get_robust_list2() futex
 * API on stock kernels, as a misc device (/dev/robust_list2, mode 0666).
 *
 * The ioctls always act on the calling thread (set) or on a thread the
 * caller may ptrace-read (get), never on the file, so the device needs no
 * per-open state and may be world-writable.  Handlers are shaped
 * copy-in -> validate -> act on the caller's own record -> copy-out; no
 * user memory is touched under a lock.  The ABI and every errno are
 * documented in uapi/linux/robust_list2.h.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/overflow.h>

#include "rl2_types.h"
#include "exit_hook.h"
#include "fault_inject.h"
#include "fault_work.h"
#include "kcall.h"
#include "registry.h"
#include "uaccess.h"
#include "unlock.h"
#include "walk.h"
#include "window.h"

struct rl2_stats rl2_stats;

static int rl2_walk_limit_set(const char *val, const struct kernel_param *kp)
{
	unsigned long v;
	int ret = kstrtoul(val, 0, &v);

	if (ret)
		return ret;
	if (v < 1 || v > INT_MAX)
		return -EINVAL;
	*(unsigned long *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops rl2_walk_limit_ops = {
	.set = rl2_walk_limit_set,
	.get = param_get_ulong,
};
module_param_cb(walk_limit, &rl2_walk_limit_ops, &rl2_walk_limit, 0444);
MODULE_PARM_DESC(walk_limit,
		 "Most list entries walked for one thread's exit or exec, all slots together (default 1048576; cycles are detected independently)");

static bool rl2_caller_is_compat(void)
{
	return in_compat_syscall();
}

static long rl2_ioctl_info(void __user *uarg)
{
	struct robust_list2_info info = {
		.abi_version = ROBUST_LIST2_ABI_VERSION,
		.nr_slots = RL2_NR_SLOTS,
		.walk_limit = READ_ONCE(rl2_walk_limit),
		.features = ROBUST_LIST2_F_LIST32 | ROBUST_LIST2_F_CYCLE_SAFE |
			    ROBUST_LIST2_F_PRIVATE_WAKE |
			    ROBUST_LIST2_F_EXEC_WALK | ROBUST_LIST2_F_CREATE |
			    ROBUST_LIST2_F_UNLOCK |
			    ROBUST_LIST2_F_UNLOCK_WINDOW | ROBUST_LIST2_F_BASED |
			    ROBUST_LIST2_F_FAULTS,
		.io_wait_ms = rl2_io_wait_ms_get(),
	};

	if (!rl2_caller_is_compat())
		info.features |= ROBUST_LIST2_F_LIST64;
	if (RL2_INSN_WINDOWS)
		info.features |= ROBUST_LIST2_F_INLINE_WINDOW;
	if (copy_to_user(uarg, &info, sizeof(info)))
		return -EFAULT;
	return 0;
}

/*
 * Module-wide counters describe every user's threads, so only a caller
 * with CAP_SYS_ADMIN (in the initial user namespace) may read them, as
 * with /proc/slabinfo; what a caller may learn of its own threads it can
 * ask for by name with get.
 */
static long rl2_ioctl_stats(void __user *uarg)
{
	struct robust_list2_stats st = {
		.tasks = rl2_registry_count(),
		.walks = atomic64_read(&rl2_stats.walks),
		.entries = atomic64_read(&rl2_stats.entries),
		.recovered = atomic64_read(&rl2_stats.recovered),
		.woken = atomic64_read(&rl2_stats.woken),
		.cycles = atomic64_read(&rl2_stats.cycles),
		.limited = atomic64_read(&rl2_stats.limited),
		.faults = atomic64_read(&rl2_stats.faults),
		.fixups = atomic64_read(&rl2_stats.fixups),
		.io_timeouts = atomic64_read(&rl2_stats.io_timeouts),
	};

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	rl2_fault_totals(&st.faults_in_flight, &st.faults_pinned);
	if (copy_to_user(uarg, &st, sizeof(st)))
		return -EFAULT;
	return 0;
}

/* The caller's own account: what its exits' fault-ins hold (fault_work.c). */
static long rl2_ioctl_faults(void __user *uarg)
{
	struct robust_list2_faults f;

	rl2_fault_acct_read(&f);
	if (copy_to_user(uarg, &f, sizeof(f)))
		return -EFAULT;
	return 0;
}

/*
 * Validate a set or create request and encode its slot word in @word (0
 * empties the slot).  The v6 syscall's order: flags, cmd, index, then per
 * command.  LIST_LIMIT is left to the caller.
 */
static __always_inline int rl2_set_word(const struct robust_list2_set *a,
					u64 *word)
{
	if (a->flags || a->pad)
		return -EINVAL;
	if (a->cmd > ROBUST_LIST2_CMD_LIST_LIMIT)
		return -EINVAL;
	if (a->index >= RL2_NR_SLOTS)
		return -EINVAL;

	*word = 0;
	switch (a->cmd) {
	case ROBUST_LIST2_CMD_SET_64:
		if (rl2_caller_is_compat())
			return -EOPNOTSUPP;
		if (a->head & (sizeof(u64) - 1))
			return -EINVAL;
		if (a->head)
			*word = a->head | RL2_SLOT_USED;
		break;
	case ROBUST_LIST2_CMD_SET_32:
		/* A 32-bit list's pointers are 32-bit: its head too. */
		if ((a->head & (sizeof(u32) - 1)) || a->head > U32_MAX)
			return -EINVAL;
		if (a->head)
			*word = a->head | RL2_SLOT_USED | RL2_SLOT_32;
		break;
	}
	return 0;
}

/*
 * Read SET's argument in one user-access window: for 24 bytes,
 * copy_from_user() is an out-of-line call with its own checks and copy
 * loop, on the path every thread takes once.
 */
static __always_inline int rl2_get_set_arg(struct robust_list2_set *a,
					   const struct robust_list2_set __user *u)
{
	u64 index_cmd, flags_pad;

	BUILD_BUG_ON(offsetof(struct robust_list2_set, cmd) !=
		     offsetof(struct robust_list2_set, index) + sizeof(u32) ||
		     offsetof(struct robust_list2_set, pad) !=
		     offsetof(struct robust_list2_set, flags) + sizeof(u32));
	if (!user_access_begin(u, sizeof(*u)))
		return -EFAULT;
	/* Three loads, not five: the u32 pairs are read as one u64 each. */
	unsafe_get_user(a->head, &u->head, efault);
	unsafe_get_user(index_cmd, (const u64 __user *)&u->index, efault);
	unsafe_get_user(flags_pad, (const u64 __user *)&u->flags, efault);
	user_access_end();
#ifdef __LITTLE_ENDIAN
	a->index = lower_32_bits(index_cmd);
	a->cmd = upper_32_bits(index_cmd);
	a->flags = lower_32_bits(flags_pad);
	a->pad = upper_32_bits(flags_pad);
#else
	a->index = upper_32_bits(index_cmd);
	a->cmd = lower_32_bits(index_cmd);
	a->flags = upper_32_bits(flags_pad);
	a->pad = lower_32_bits(flags_pad);
#endif
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

static long rl2_ioctl_set(struct file *file, void __user *uarg, bool create)
{
	struct rl2_window *win = READ_ONCE(file->private_data);
	struct robust_list2_set a;
	u64 word;
	int ret;

	if (rl2_get_set_arg(&a, uarg))
		return -EFAULT;
	if (create && a.index)
		return -EINVAL;
	ret = rl2_set_word(&a, &word);
	if (ret)
		return ret;
	if (a.cmd == ROBUST_LIST2_CMD_LIST_LIMIT)
		return create ? -EINVAL : RL2_NR_SLOTS;
	if (!create)
		return rl2_slot_set(a.index, word, win);
	return word ? rl2_slot_create(word, win) : -EINVAL;
}

/*
 * Validate a SET_BASED request and encode its slot word in @word: the
 * head's host address base + head | flags (0 empties the slot).  SET's
 * checks in SET's order on the guest head, then the base's.
 */
static int rl2_set_based_word(const struct robust_list2_set_based *a,
			      u64 *word)
{
	struct robust_list2_set s = {
		.head = a->head, .index = a->index, .cmd = a->cmd,
		.flags = a->flags, .pad = a->pad,
	};
	u64 host, align;
	int ret;

	if (a->cmd == ROBUST_LIST2_CMD_LIST_LIMIT)
		return -EINVAL;
	ret = rl2_set_word(&s, word);
	if (ret || !*word)
		return ret;
	/* The host head keeps the guest head's alignment (and flag bits). */
	align = a->cmd == ROBUST_LIST2_CMD_SET_32 ? sizeof(u32) : sizeof(u64);
	if ((a->base & (align - 1)) ||
	    check_add_overflow(a->base, a->head, &host))
		return -EINVAL;
	*word = host | (*word & RL2_SLOT_FLAGS);
	return 0;
}

static long rl2_ioctl_set_based(struct file *file, void __user *uarg)
{
	struct rl2_window *win = READ_ONCE(file->private_data);
	struct robust_list2_set_based a;
	u64 word;
	int ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	ret = rl2_set_based_word(&a, &word);
	if (ret)
		return ret;
	return rl2_slot_set_based(a.index, word, a.base, win);
}

/*
 * Find thread @pid in the caller's pid namespace and take a reference,
 * like the kernel's find_get_task_by_vpid().
 */
static struct task_struct *rl2_get_task(pid_t pid)
{
	struct task_struct *t;

	rcu_read_lock();
	t = pid_task(find_vpid(pid), PIDTYPE_PID);
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	return t;
}

/*
 * Read slot @index of thread @pid (0: the caller) for GET and GET_BASED:
 * its word in @word, its base in @base, after validating @index and
 * @flags (EINVAL in that order).
 */
static long rl2_read_slot(pid_t pid, unsigned int index, u32 flags,
			  u64 *word, u64 *base)
{
	struct task_struct *t;
	long ret = 0;

	if (index >= RL2_NR_SLOTS || flags)
		return -EINVAL;
	if (!pid) {
		*word = rl2_slot_get(current, index, base);
	} else {
		t = rl2_get_task(pid);
		if (!t)
			return -ESRCH;
		/*
		 * Reference, then exec_update_lock, then the ptrace-read check,
		 * then the slot (upstream get_robust_list() since 6b54082c3ed4):
		 * a racing exec of a setuid program cannot slip between the
		 * check and the read.
		 */
		ret = down_read_killable(&t->signal->exec_update_lock);
		if (ret) {
			put_task_struct(t);
			return ret;
		}
		if (rl2_kcall_ptrace_may_access(t, PTRACE_MODE_READ_REALCREDS))
			*word = rl2_slot_get(t, index, base);
		else
			ret = -EPERM;
		up_read(&t->signal->exec_update_lock);
		put_task_struct(t);
	}
	return ret;
}

static u32 rl2_slot_type(u64 word)
{
	return !word ? ROBUST_LIST2_TYPE_EMPTY :
	       (word & RL2_SLOT_32) ? ROBUST_LIST2_TYPE_32 :
	       ROBUST_LIST2_TYPE_64;
}

/* A based slot answers the guest head as set: host head - base. */
static long rl2_ioctl_get(void __user *uarg)
{
	struct robust_list2_get a;
	u64 word, head, base;
	long ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	ret = rl2_read_slot(a.pid, a.index, a.flags, &word, &base);
	if (ret)
		return ret;

	head = word ? (word & ~RL2_SLOT_FLAGS) - base : 0;
	a.head = head;
	a.type = rl2_slot_type(word);

	/* Store a whole pointer of the caller's width, zero-extended. */
	if (rl2_caller_is_compat()) {
		if (head > U32_MAX)
			return -EOVERFLOW;
		if (put_user((u32)head, (u32 __user *)u64_to_user_ptr(a.head_ptr)))
			return -EFAULT;
	} else if (put_user(head, (u64 __user *)u64_to_user_ptr(a.head_ptr))) {
		return -EFAULT;
	}

	if (copy_to_user(uarg, &a, sizeof(a)))
		return -EFAULT;
	return 0;
}

static long rl2_ioctl_get_based(void __user *uarg)
{
	struct robust_list2_get_based a;
	u64 word, base;
	long ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	ret = rl2_read_slot(a.pid, a.index, a.flags, &word, &base);
	if (ret)
		return ret;

	a.head = word ? (word & ~RL2_SLOT_FLAGS) - base : 0;
	a.base = base;
	a.type = rl2_slot_type(word);
	if (copy_to_user(uarg, &a, sizeof(a)))
		return -EFAULT;
	return 0;
}

/* Every command but SET; out of line so that SET's path has no frame. */
static noinline long rl2_ioctl_other(struct file *file, unsigned int cmd,
				     void __user *uarg)
{
	switch (cmd) {
	case ROBUST_LIST2_IOC_INFO:
		return rl2_ioctl_info(uarg);
	case ROBUST_LIST2_IOC_CREATE:
		return rl2_ioctl_set(file, uarg, true);
	case ROBUST_LIST2_IOC_UNLOCK:
		return rl2_ioctl_unlock(uarg);
	case ROBUST_LIST2_IOC_SET_WINDOW:
		return rl2_ioctl_set_window(file, uarg);
	case ROBUST_LIST2_IOC_GET:
		return rl2_ioctl_get(uarg);
	case ROBUST_LIST2_IOC_SET_BASED:
		return rl2_ioctl_set_based(file, uarg);
	case ROBUST_LIST2_IOC_GET_BASED:
		return rl2_ioctl_get_based(uarg);
	case ROBUST_LIST2_IOC_STATS:
		return rl2_ioctl_stats(uarg);
	case ROBUST_LIST2_IOC_FAULTS:
		return rl2_ioctl_faults(uarg);
	}
	return -ENOIOCTLCMD;
}

/*
 * SET is the one command on a path anyone waits for (once per thread):
 * it is tested first, and the dispatcher keeps no locals of its own.
 */
static long rl2_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	bool cov = rl2_fi_cov_start();	/* the fuzzer's feedback; test build */
	long ret;

	if (likely(cmd == ROBUST_LIST2_IOC_SET))
		ret = rl2_ioctl_set(file, uarg, false);
	else
		ret = rl2_ioctl_other(file, cmd, uarg);
	rl2_fi_cov_stop(cov);
	return ret;
}

/*
 * misc_open() calls us with the misc core's global lock held: nothing here
 * may sleep on anything of ours (the exit hook lives from load to unload).
 */
static int rl2_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;	/* misc_open() put the miscdevice here */
	return nonseekable_open(inode, file);
}

/* The try-unlock window, if one was set; records keep their own reference. */
static int rl2_dev_release(struct inode *inode, struct file *file)
{
	rl2_window_put(file->private_data);
	return 0;
}

static const struct file_operations rl2_fops = {
	.owner		= THIS_MODULE,
	.open		= rl2_open,
	.release	= rl2_dev_release,
	.unlocked_ioctl	= rl2_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice rl2_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= "robust_list2",
	.fops		= &rl2_fops,
	.mode		= 0666,
};

static int __init rl2_init(void)
{
	int ret;

	ret = rl2_registry_init();
	if (ret)
		goto err_registry;
	ret = rl2_fault_work_init();
	if (ret)
		goto err_fault_work;
	ret = rl2_kcall_init();
	if (ret)
		goto err_hook;
	/* The hook before the device: a thread with a slot is never missed. */
	ret = rl2_exit_hook_init();
	if (ret)
		goto err_hook;
	ret = misc_register(&rl2_misc);
	if (ret) {
		pr_err("cannot register /dev/robust_list2: %d\n", ret);
		goto err_misc;
	}
	pr_info("version %s loaded, %u slots per thread, walk limit %lu\n",
		ROBUST_LIST2_VERSION, RL2_NR_SLOTS, rl2_walk_limit);
	return 0;

err_misc:
	rl2_exit_hook_exit();
err_hook:
	rl2_fault_work_exit();
err_fault_work:
	rl2_registry_exit();
err_registry:
	return ret;
}

static void __exit rl2_exit(void)
{
	misc_deregister(&rl2_misc);
	rl2_exit_hook_exit();
	rl2_fault_work_exit();
	rl2_registry_exit();
}

module_init(rl2_init);
module_exit(rl2_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("robust_list2 developers");
MODULE_DESCRIPTION("set_robust_list2()/get_robust_list2() futex API for stock kernels");
MODULE_VERSION(ROBUST_LIST2_VERSION);
