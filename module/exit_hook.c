// SPDX-License-Identifier: GPL-2.0
/*
 * How robust_list2 learns that a thread exits or execs.
 *
 * do_exit() calls futex_exit_release() from exit_mm(), before the address
 * space is released, in the dying thread's own sleepable context;
 * exec_mmap() calls futex_exec_release() while the old mm is still
 * attached.  An ftrace ops with FTRACE_OPS_FL_IPMODIFY on each of them
 * checks, for every task that gets there, whether it has a slot in use
 * (one atomic read when nobody has one, an RCU hash lookup otherwise).
 * For registered threads it moves the ip to our wrapper, which ftrace
 * enters with a RET and the untouched stack of the original call, so the
 * wrapper runs exactly as if do_exit() had called it.  The wrapper
 * finishes an interrupted try-unlock, walks the lists, and then runs the
 * original function body through its kcall.c stub.  These two hooks, and
 * the redirects of our own stubs, are the module's only footprint on the
 * rest of the kernel, and they exist only while the module is in use.
 *
 * In use.  Every open file and every thread record holds a "user"
 * (rl2_hook_users).  The first user installs the ops (the stubs'
 * redirects first, then the hooks); a second after the last user has gone,
 * rl2_hook_idle() removes them (hooks first) and checks every
 * unregistration.  While any of our ops is registered the module holds a
 * reference to itself, so rmmod cannot free the text or the ftrace_ops a
 * live ops points at; an unregistration that fails (after ftrace_kill(),
 * every one fails with -ENODEV) leaves that ops registered, so the
 * module stays loaded, for good if ftrace is dead, with one pr_crit line.
 * The delay keeps a machine that runs many short programs from patching
 * kernel text for each of them; rmmod says "in use" during it.
 *
 * Unload.  The wrappers also run under a module reference taken in the
 * ftrace callback, dropped on their last instructions; rl2_exit_hook_exit()
 * waits for a tasks-RCU grace period for those.
 */
#include <linux/module.h>
#include <linux/ftrace.h>
#include <linux/sched.h>
#include <linux/rcupdate.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "rl2_types.h"
#include "compat.h"
#include "exit_hook.h"
#include "fault_inject.h"
#include "kcall.h"
#include "registry.h"
#include "walk.h"
#include "window.h"

struct rl2_hook {
	struct ftrace_ops ops;		/* on the kernel function */
	char sym[32];			/* ftrace_set_filter() may write to it */
	unsigned long wrapper;		/* entered instead of @sym */
	bool exec;			/* the exec hook */
	bool unused;			/* @sym is the other hook's: one hook */
	bool registered;		/* under rl2_hook_lock */
};

/* How long the ops stay installed after the last user has gone. */
#define RL2_HOOK_IDLE_DELAY	HZ

/*
 * rl2_hook_lock serialises installing and removing the ops, and protects
 * every ->registered flag and rl2_hook_ref.  rl2_hook_users counts open
 * files and thread records; it goes 0 -> 1 only under the lock, after the
 * ops are installed, so a user that finds it non-zero finds them live.
 */
static DEFINE_MUTEX(rl2_hook_lock);
static atomic_t rl2_hook_users = ATOMIC_INIT(0);
static bool rl2_hook_ref;	/* we hold a reference on our own module */
static void rl2_hook_idle(struct work_struct *work);
static DECLARE_DELAYED_WORK(rl2_hook_idle_work, rl2_hook_idle);

/*
 * Entered instead of futex_exit_release(tsk) / futex_exec_release(tsk),
 * with a module reference taken by rl2_hook_cb().
 */
static void rl2_hook_release(struct task_struct *tsk, bool exec)
{
	struct rl2_task *rec = NULL;

	if (tsk == current)
		rec = rl2_task_detach();
	if (rec) {
		/* A thread stopped inside a try-unlock window: finish it. */
		rl2_window_fixup(rec);
		rl2_walk_task(rec);
		rl2_task_free(rec);
	}
	if (exec)
		rl2_kcall_futex_exec_release(tsk);
	else
		rl2_kcall_futex_exit_release(tsk);
	/* The record's user, only now: the stub above needs its redirect. */
	if (rec)
		rl2_exit_hook_put();
}

static noinline void rl2_exit_release(struct task_struct *tsk)
{
	rl2_hook_release(tsk, false);
	module_put(THIS_MODULE);
}

static noinline void rl2_exec_release(struct task_struct *tsk)
{
	rl2_hook_release(tsk, true);
	module_put(THIS_MODULE);
}

static void notrace rl2_hook_cb(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op,
				struct rl2_ftrace_regs *fregs)
{
	struct rl2_hook *h = container_of(op, struct rl2_hook, ops);

	if (likely(!rl2_task_registered()))
		return;
	if (!try_module_get(THIS_MODULE))
		return;
	rl2_ftrace_set_ip(fregs, h->wrapper);
}

/* Their @sym: the name kcall.c found on this kernel (rl2_exit_hook_init()). */
static struct rl2_hook rl2_hooks[] = {
	{
		.wrapper = (unsigned long)rl2_exit_release,
	},
	{
		.wrapper = (unsigned long)rl2_exec_release,
		.exec = true,
	},
};

static int rl2_hook_register(struct rl2_hook *h)
{
	int ret;

	h->ops.func = rl2_hook_cb;
	h->ops.flags |= RL2_IPMODIFY_OPS_FLAGS;
	ret = ftrace_set_filter(&h->ops, h->sym, strlen(h->sym), 1);
	if (!ret)
		ret = register_ftrace_function(&h->ops);
	if (ret) {
		rl2_ftrace_clear_filter(&h->ops);
		rl2_ftrace_err(h->sym, ret);
		return ret;
	}
	h->registered = true;
	return 0;
}

/* Checked, as rl2_redirect_unregister(): a failure leaves @h registered. */
static int rl2_hook_unregister(struct rl2_hook *h)
{
	int ret = rl2_fi_unregister_error();

	if (!h->registered)
		return 0;
	if (!ret)
		ret = unregister_ftrace_function(&h->ops);
	if (ret)
		return ret;
	rl2_ftrace_clear_filter(&h->ops);
	h->registered = false;
	return 0;
}

static bool rl2_hook_any_registered(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(rl2_hooks); i++)
		if (rl2_hooks[i].registered)
			return true;
	return rl2_kcall_installed();
}

/* Hold a module reference exactly while any of our ops is registered. */
static void rl2_hook_update_ref(void)
{
	bool want;

	lockdep_assert_held(&rl2_hook_lock);
	want = rl2_hook_any_registered();
	if (want && !rl2_hook_ref)
		__module_get(THIS_MODULE);
	else if (!want && rl2_hook_ref)
		module_put(THIS_MODULE);
	rl2_hook_ref = want;
}

/* Remove every ops, hooks first; stop at the first that will not go. */
static int rl2_hook_remove(void)
{
	int i, ret = 0;

	lockdep_assert_held(&rl2_hook_lock);
	for (i = ARRAY_SIZE(rl2_hooks) - 1; i >= 0 && !ret; i--)
		ret = rl2_hook_unregister(&rl2_hooks[i]);
	if (!ret)
		ret = rl2_kcall_remove();
	if (ret)
		pr_crit("cannot remove its ftrace ops (%d): staying loaded, until reboot if ftrace is dead\n",
			ret);
	rl2_hook_update_ref();
	return ret;
}

/* Install every ops not installed yet: the stubs' redirects, then the hooks. */
static int rl2_hook_install(void)
{
	int i, ret;

	lockdep_assert_held(&rl2_hook_lock);
	ret = rl2_kcall_install();
	for (i = 0; i < ARRAY_SIZE(rl2_hooks) && !ret; i++)
		if (!rl2_hooks[i].registered && !rl2_hooks[i].unused)
			ret = rl2_hook_register(&rl2_hooks[i]);
	rl2_hook_update_ref();
	return ret;
}

static void rl2_hook_idle(struct work_struct *work)
{
	mutex_lock(&rl2_hook_lock);
	if (!atomic_read(&rl2_hook_users))
		rl2_hook_remove();
	mutex_unlock(&rl2_hook_lock);
}

/**
 * rl2_exit_hook_get - become a user of the hooks (open())
 *
 * Installs the ops if they are not installed.  Returns 0 or a negative
 * errno (ftrace refused an ops; one rate-limited line says why).
 */
int rl2_exit_hook_get(void)
{
	int ret;

	if (atomic_inc_not_zero(&rl2_hook_users))
		return 0;
	mutex_lock(&rl2_hook_lock);
	ret = rl2_hook_install();
	if (!ret)
		atomic_inc(&rl2_hook_users);	/* after the ops are live */
	else if (!atomic_read(&rl2_hook_users))
		rl2_hook_remove();		/* undo a partial install */
	mutex_unlock(&rl2_hook_lock);
	return ret;
}

/**
 * rl2_exit_hook_hold - one more user, for a caller that already is one
 *
 * A thread record is created inside an ioctl on an open file.
 */
void rl2_exit_hook_hold(void)
{
	WARN_ON_ONCE(!atomic_inc_not_zero(&rl2_hook_users));
}

/**
 * rl2_exit_hook_put - drop a user
 *
 * The last one schedules the removal of the ops.  Process context: a
 * release(), an ioctl, or the exit wrapper after its last stub call.
 */
void rl2_exit_hook_put(void)
{
	if (atomic_dec_and_test(&rl2_hook_users))
		mod_delayed_work(system_wq, &rl2_hook_idle_work,
				 RL2_HOOK_IDLE_DELAY);
}

/**
 * rl2_exit_hook_init - check at load that the ops can be installed
 *
 * The kcall.c stubs' targets must be resolved.  Installs and removes every
 * ops once, so that a kernel where ftrace refuses them fails insmod with one
 * line instead of every open().  Returns 0 or a negative errno.
 */
int rl2_exit_hook_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(rl2_hooks); i++) {
		struct rl2_hook *h = &rl2_hooks[i];

		strscpy(h->sym, rl2_kcall_release_sym(h->exec), sizeof(h->sym));
		/* one function for exit and exec (futex_exit_exec_release) */
		h->unused = i && !strcmp(h->sym, rl2_hooks[0].sym);
	}
	mutex_lock(&rl2_hook_lock);
	ret = rl2_hook_install();
	/* An ops that will not go pins us: then the load must succeed. */
	if (rl2_hook_remove())
		ret = 0;
	mutex_unlock(&rl2_hook_lock);
	return ret;
}

/**
 * rl2_exit_hook_pinned - is an ops still registered (so we must stay)?
 */
bool rl2_exit_hook_pinned(void)
{
	bool ret;

	mutex_lock(&rl2_hook_lock);
	ret = rl2_hook_ref;
	mutex_unlock(&rl2_hook_lock);
	return ret;
}

/**
 * rl2_exit_hook_exit - wait until no wrapper runs
 *
 * Only called once the module is unused: no user, and every ops removed
 * (each held a module reference).
 */
void rl2_exit_hook_exit(void)
{
	/* queued by the last put; it already removed the ops and let us go */
	cancel_delayed_work_sync(&rl2_hook_idle_work);
	/*
	 * A wrapper may still be on its last instructions after module_put();
	 * they do not sleep, so a tasks-RCU grace period sees them out of
	 * module text.
	 */
	synchronize_rcu_tasks();
}
