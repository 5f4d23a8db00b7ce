// SPDX-License-Identifier: GPL-2.0
/*
 * How robust_list2 learns that a thread exits or execs.
 *
 * do_exit() calls futex_exit_release() from exit_mm(), before the address
 * space is released, in the dying thread's own sleepable context;
 * exec_mmap() calls futex_exec_release() while the old mm is still
 * attached.  An ftrace ops with FTRACE_OPS_FL_IPMODIFY on each of them
 * checks, for every task that gets there, whether it has a slot in use
 * (one atomic read when nobody uses the module, an RCU hash lookup
 * otherwise).  For registered threads it moves the ip to our wrapper,
 * which ftrace enters with a RET and the untouched stack of the original
 * call, so the wrapper runs exactly as if do_exit() had called it.  The
 * wrapper finishes an interrupted try-unlock, walks the lists, and then
 * runs the original function body through its kcall.c stub.  These two
 * hooks are the module's only footprint on the rest of the kernel.
 *
 * Unload.  Each registration pins the module; the wrappers run under a
 * module reference taken in the ftrace callback.  So rmmod can only
 * succeed when no thread has a slot and no wrapper is between its
 * try_module_get() and module_put().  rl2_exit_hook_exit() removes the
 * hooks and waits for a tasks-RCU grace period (any wrapper still on its
 * last instructions after module_put() finishes); only then may the stubs'
 * redirects go (rl2_kcall_exit()).
 */
#include <linux/module.h>
#include <linux/ftrace.h>
#include <linux/sched.h>
#include <linux/rcupdate.h>

#include "rl2_types.h"
#include "exit_hook.h"
#include "kcall.h"
#include "registry.h"
#include "walk.h"
#include "window.h"

struct rl2_hook {
	struct ftrace_ops ops;		/* on the kernel function */
	char sym[32];			/* ftrace_set_filter() may write to it */
	unsigned long wrapper;		/* entered instead of @sym */
	bool registered;
};

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
		module_put(THIS_MODULE);	/* the record's reference */
	}
	if (exec)
		rl2_kcall_futex_exec_release(tsk);
	else
		rl2_kcall_futex_exit_release(tsk);
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
				struct ftrace_regs *fregs)
{
	struct rl2_hook *h = container_of(op, struct rl2_hook, ops);

	if (likely(!rl2_task_registered()))
		return;
	if (!try_module_get(THIS_MODULE))
		return;
	rl2_ftrace_set_ip(fregs, h->wrapper);
}

static struct rl2_hook rl2_hooks[] = {
	{
		.sym = "futex_exit_release",
		.wrapper = (unsigned long)rl2_exit_release,
	},
	{
		.sym = "futex_exec_release",
		.wrapper = (unsigned long)rl2_exec_release,
	},
};

static int rl2_hook_register(struct rl2_hook *h)
{
	int ret;

	h->ops.func = rl2_hook_cb;
	h->ops.flags = RL2_IPMODIFY_OPS_FLAGS;
	ret = ftrace_set_filter(&h->ops, h->sym, strlen(h->sym), 1);
	if (!ret)
		ret = register_ftrace_function(&h->ops);
	if (ret) {
		ftrace_free_filter(&h->ops);
		rl2_ftrace_err(h->sym, ret);
		return ret;
	}
	h->registered = true;
	return 0;
}

static void rl2_hook_unregister(struct rl2_hook *h)
{
	if (!h->registered)
		return;
	unregister_ftrace_function(&h->ops);
	ftrace_free_filter(&h->ops);
	h->registered = false;
}

/**
 * rl2_exit_hook_init - install the exit and exec hooks
 *
 * The kcall.c stubs must already be redirected.  Returns 0 or a negative
 * errno after printing one line that says why.
 */
int rl2_exit_hook_init(void)
{
	int nr, ret;

	for (nr = 0; nr < ARRAY_SIZE(rl2_hooks); nr++) {
		ret = rl2_hook_register(&rl2_hooks[nr]);
		if (ret)
			goto err;
	}
	return 0;
err:
	while (nr--)
		rl2_hook_unregister(&rl2_hooks[nr]);
	synchronize_rcu_tasks();
	return ret;
}

/**
 * rl2_exit_hook_exit - remove the hooks and wait until no wrapper runs
 *
 * Only called once the module is unused: no thread has a slot, so no
 * wrapper can be entered any more.
 */
void rl2_exit_hook_exit(void)
{
	int i;

	for (i = ARRAY_SIZE(rl2_hooks) - 1; i >= 0; i--)
		rl2_hook_unregister(&rl2_hooks[i]);
	/*
	 * A wrapper may still be on its last instructions after module_put();
	 * they do not sleep, so a tasks-RCU grace period sees them out of
	 * module text.
	 */
	synchronize_rcu_tasks();
}
