// SPDX-License-Identifier: GPL-2.0
/*
 * How robust_list2 learns that a thread exits or execs: the module's one
 * ftrace ops, registered at load and removed at unload.
 *
 * do_exit() calls futex_exit_release() from exit_mm(), before the address
 * space is released, in the dying thread's own sleepable context;
 * exec_mmap() calls futex_exec_release() while the old mm is still
 * attached.  The ops's filter holds their fentry sites and those of the
 * kcall.c stubs; its callback dispatches on the ip.  At a release site it
 * checks whether the task has a slot in use (one load when nobody does,
 * a counter of the registry's filter when its process does not) and, for
 * a registered thread, moves the ip to a resume thunk (resume-*.S).  ftrace
 * enters the thunk with a RET and the untouched stack of the original
 * call, so it runs exactly as if do_exit() had called it: it calls
 * rl2_exit_hook_release(), which finishes an interrupted try-unlock and
 * walks the lists, then it continues in the kernel function's own body,
 * right after its fentry site, by pushing that address and returning to
 * it.  So the kernel's futex cleanup runs for every task whatever happens
 * to our part: it is our thunk's last instruction, not a second ftrace
 * redirect that ftrace could fail to make (ftrace_kill(), 5.10's
 * recursion guard, another ops on the site).  At a stub site the callback
 * sends the stub on to its kernel function (kcall.c).
 *
 * Lifetime.  The ops is registered in rl2_init() before the device exists
 * and unregistered in rl2_exit() after it is gone: no open(), close(),
 * ioctl or idle path ever patches kernel text, waits for a grace period
 * or takes a lock shared with other devices.  Installing it once costs
 * one text patch of four sites and one grace period; it is FTRACE_OPS_FL_
 * PERMANENT, so while the module is loaded `sysctl kernel.ftrace_enabled=0`
 * fails with EBUSY, and it is IPMODIFY, so a livepatch of the hooked
 * functions cannot be applied (nor can the module load after one): only
 * loading the module, which is root's decision, decides that.
 *
 * Unload.  Every record and open file holds a module reference, so rmmod
 * cannot begin while any thread has a slot.  A thread in the thunk has a
 * record (the callback sends no other there, and only the thread itself
 * removes it), and its reference is dropped last, at the end of
 * rl2_exit_hook_release(): so the callback takes none of its own, and an
 * exit pays no atomic on the module's shared refcount beyond the one the
 * record already holds.  The thunk's last instructions after it do not
 * sleep, so the tasks-RCU grace period of rl2_exit_hook_exit() sees them
 * out of module text.  If unregistering the ops fails (only after
 * ftrace_kill(), a kernel ftrace bug), the ops still points into module
 * memory: the unload then waits, retrying, rather than free it.
 */
#include <linux/module.h>
#include <linux/ftrace.h>
#include <linux/futex.h>
#include <linux/sched.h>
#include <linux/rcupdate.h>

#include "rl2_types.h"
#include "compat.h"
#include "exit_hook.h"
#include "fault_inject.h"
#include "kcall.h"
#include "registry.h"
#include "walk.h"

/* Where the thunks continue: right after each function's fentry site. */
unsigned long rl2_exit_resume __ro_after_init;
unsigned long rl2_exec_resume __ro_after_init;

/* The fentry sites; 0 for exec where one function serves both. */
static unsigned long rl2_exit_site __ro_after_init;
static unsigned long rl2_exec_site __ro_after_init;

static struct ftrace_ops rl2_ops;

/**
 * rl2_exit_hook_release - our part of futex_exit_release()/_exec_release()
 * @tsk: the exiting or exec'ing task (current)
 *
 * Called by the resume thunks for a thread rl2_hook_cb() found a record
 * of; the thunk then runs the kernel function's own body.  The record's
 * module reference covers this function and the thunk until the last
 * line here.
 */
void rl2_exit_hook_release(struct task_struct *tsk)
{
	bool cov = rl2_fi_cov_start();	/* the fuzzer's feedback; test build */
	struct rl2_task *rec = NULL;

	if (tsk == current)
		rec = rl2_task_detach();
	/* The callback saw it, and only current removes its own record. */
	if (WARN_ON_ONCE(!rec)) {
		rl2_fi_cov_stop(cov);
		return;
	}
	/* Also finishes a try-unlock the thread was stopped in. */
	rl2_walk_task(rec);
	rl2_task_free(rec);
	rl2_fi_cov_stop(cov);
	module_put(THIS_MODULE);	/* the record's */
}

rl2_release_proto_check(rl2_exit_hook_release);

static void notrace rl2_hook_cb(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op,
				struct rl2_ftrace_regs *fregs)
{
	unsigned long thunk;

	/* Every exit on the machine comes here: the release sites first. */
	if (rl2_site_is(ip, rl2_exit_site)) {
		thunk = (unsigned long)rl2_exit_thunk;
	} else if (rl2_exec_site && rl2_site_is(ip, rl2_exec_site)) {
		thunk = (unsigned long)rl2_exec_thunk;
	} else {
		rl2_kcall_redirect(ip, fregs);
		return;
	}
	/* A record pins the module until rl2_exit_hook_release() is done. */
	if (likely(!rl2_task_registered()))
		return;
	rl2_ftrace_set_ip(fregs, thunk);
}

/* One line that says why ftrace refused the ops (at load only). */
static void rl2_ftrace_err(int ret)
{
	const struct rl2_release_fn *x = rl2_kcall_release(false);
	const struct rl2_release_fn *e = rl2_kcall_release(true);

	if (ret == -EBUSY)
		pr_err("cannot hook %s and %s: ftrace is disabled (sysctl kernel.ftrace_enabled=0) or another ftrace user modifies them (a livepatch?)\n",
		       x->sym, e->sym);
	else
		pr_err("cannot hook %s and %s through ftrace: %d\n",
		       x->sym, e->sym, ret);
}

/* Checked: a failure (only after ftrace_kill()) leaves the ops registered. */
static int rl2_hook_unregister(void)
{
	int ret = rl2_fi_unregister_error();

	if (!ret)
		ret = unregister_ftrace_function(&rl2_ops);
	if (!ret)
		rl2_ftrace_clear_filter(&rl2_ops);
	return ret;
}

/**
 * rl2_exit_hook_init - install the exit and exec hooks and the stubs' redirects
 *
 * Called once at load, after rl2_kcall_init(), before the device exists.
 * Returns 0 or a negative errno after one line that says why.
 */
int rl2_exit_hook_init(void)
{
	const struct rl2_release_fn *x = rl2_kcall_release(false);
	const struct rl2_release_fn *e = rl2_kcall_release(true);
	int ret;

	rl2_exit_site = x->site;
	rl2_exit_resume = x->resume;
	/* one function for exit and exec (futex_exit_exec_release) */
	rl2_exec_site = e->site == x->site ? 0 : e->site;
	rl2_exec_resume = e->resume;

	rl2_ops.func = rl2_hook_cb;
	rl2_ops.flags = RL2_IPMODIFY_OPS_FLAGS;
	ret = ftrace_set_filter_ip(&rl2_ops, rl2_exit_site, 0, 0);
	if (!ret && rl2_exec_site)
		ret = ftrace_set_filter_ip(&rl2_ops, rl2_exec_site, 0, 0);
	if (!ret)
		ret = rl2_kcall_filter(&rl2_ops);
	if (!ret)
		ret = register_ftrace_function(&rl2_ops);
	if (ret) {
		rl2_ftrace_clear_filter(&rl2_ops);
		rl2_ftrace_err(ret);
	}
	return ret;
}

/**
 * rl2_exit_hook_exit - remove the ops and wait until no thunk runs
 *
 * Called once at unload (or a failed load) after the device is gone, when
 * no record and no open file is left.  If ftrace will not let the ops go
 * (it is dead), the ops still points at module text and data: freeing
 * them would crash the next exit, so this waits, retrying each second,
 * with one line, and never returns unless ftrace lets go.
 */
void rl2_exit_hook_exit(void)
{
	bool said = false;
	int ret;

	while ((ret = rl2_hook_unregister())) {
		if (!said)
			pr_crit("cannot remove its ftrace ops (%d): the unload waits until ftrace lets them go, for good if ftrace is dead\n",
				ret);
		said = true;
		schedule_timeout_idle(HZ);
	}
	/*
	 * A thunk may still be on its last instructions after module_put();
	 * they do not sleep, so a tasks-RCU grace period sees them out of
	 * module text.
	 */
	synchronize_rcu_tasks();
}
