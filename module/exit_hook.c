// SPDX-License-Identifier: GPL-2.0
/*
 * How robust_list2 learns that a thread exits or execs, and how it calls
 * the few kernel functions it needs that are not exported — without ever
 * making an indirect call into kernel text.
 *
 * Exit and exec.  do_exit() calls futex_exit_release() from exit_mm(),
 * before the address space is released, in the dying thread's own
 * sleepable context; exec_mmap() calls futex_exec_release() while the old
 * mm is still attached.  An ftrace ops with FTRACE_OPS_FL_IPMODIFY on each
 * of them checks, for every task that gets there, whether it has a slot in
 * use (one atomic read when nobody uses the module, an RCU hash lookup
 * otherwise).  For registered threads it moves the ip to our wrapper,
 * which ftrace enters with a RET and the untouched stack of the original
 * call, so the wrapper runs exactly as if do_exit() had called it.  The
 * wrapper walks the lists and then runs the original function body.
 *
 * Calling kernel text.  The original futex_*_release() body, do_futex()
 * (for the wake) and ptrace_may_access() (for get) are reached through
 * stubs: tiny module functions with the same prototype, called directly,
 * whose own fentry site carries a second IPMODIFY ops that moves the ip
 * to the kernel function.  ftrace leaves its trampoline with RET to the
 * new ip, with the stub's caller as return address, so the kernel function
 * runs as if called directly and returns to us.
 *
 * Why this is IBT-safe.  With CONFIG_X86_KERNEL_IBT (Debian 6.12) every
 * indirect CALL/JMP must land on an ENDBR64, and objtool seals (overwrites
 * with a NOP) the ENDBR of every function whose address is never taken:
 * futex_exit_release, futex_exec_release, do_futex and ptrace_may_access
 * are all sealed, so calling them through a pointer would be a fatal
 * "Missing ENDBR" on IBT hardware (TCG does not emulate IBT, so no VM test
 * can catch it).  Here no pointer to kernel text is ever called: we enter
 * kernel code only by RET out of ftrace's trampoline, and IBT does not
 * check RET targets.  The only indirect calls involved are ftrace calling
 * our callbacks and the RCU/kernel calling our functions, all module
 * functions whose address is taken and which therefore keep their ENDBR,
 * and the pv_ops slots of the irq save/restore inside rhashtable's bucket
 * locks, which the paravirt patcher turns into inline instructions at load
 * (their targets sit in pv_ops, so their address is taken too).
 * Kernel addresses are read back from ftrace's own filter (set by name,
 * never registered), which patches no kernel text: no kprobe is placed on
 * these hot functions, and no kallsyms lookup function is ever called.
 *
 * Unload.  Each registration pins the module; the exit/exec wrappers run
 * under a module reference taken in the ftrace callback.  So rmmod can
 * only succeed when no thread has a slot and no wrapper is between its
 * try_module_get() and module_put().  rl2_hooks_exit() then removes the
 * hooks first, waits for a tasks-RCU grace period (any wrapper still on
 * its last instructions after module_put() finishes), and only then
 * removes the stubs' redirects.
 */
#include <linux/module.h>
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/ftrace.h>
#include <linux/sched.h>
#include <linux/rcupdate.h>
#include <linux/ptrace.h>

#include "robust_list2.h"

/* ftrace_set_filter() may write to the pattern, so names live in arrays. */
#define RL2_SYM_LEN	32

struct rl2_redirect {
	struct ftrace_ops ops;		/* on a module stub */
	unsigned long target;		/* where the stub continues */
	const char *what;		/* for messages */
};

struct rl2_hook {
	struct ftrace_ops ops;		/* on the kernel function */
	char sym[RL2_SYM_LEN];
	ftrace_func_t func;		/* decides whether to redirect */
	unsigned long wrapper;		/* entered instead of @sym */
	bool registered;
};

#define RL2_OPS_FLAGS	(FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_PERMANENT | \
			 RL2_FTRACE_OPS_FLAGS)

/*
 * The stubs.  Their bodies run only if the redirect is missing, which the
 * init/exit ordering rules out; they fail safe (no wake, no permission).
 * __noipa keeps GCC from cloning them or changing how arguments are
 * passed, which would move calls away from the traced entry point.
 */
__noipa long rl2_kcall_do_futex(u32 __user *uaddr, int op, u32 val,
				ktime_t *timeout, u32 __user *uaddr2,
				u32 val2, u32 val3)
{
	return -EOPNOTSUPP;
}

__noipa bool rl2_kcall_ptrace_may_access(struct task_struct *task,
					 unsigned int mode)
{
	return false;
}

static __noipa void rl2_kcall_futex_exit_release(struct task_struct *tsk)
{
}

static __noipa void rl2_kcall_futex_exec_release(struct task_struct *tsk)
{
}

static void notrace rl2_redirect_cb(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct ftrace_regs *fregs)
{
	struct rl2_redirect *r = container_of(op, struct rl2_redirect, ops);
	unsigned long target = READ_ONCE(r->target);

	if (likely(target))
		rl2_ftrace_set_ip(fregs, target);
}

static struct rl2_redirect rl2_do_futex = { .what = "the do_futex stub" };
static struct rl2_redirect rl2_ptrace_may_access = { .what = "the ptrace_may_access stub" };
static struct rl2_redirect rl2_exit_resume = { .what = "the futex_exit_release stub" };
static struct rl2_redirect rl2_exec_resume = { .what = "the futex_exec_release stub" };

/*
 * Where each stub continues: the kernel function's fentry site (entering
 * there runs the whole function), or for the release bodies the
 * instruction right after it (so our own hook is not entered twice).
 */
static struct {
	struct rl2_redirect *r;
	void *stub;
	const char *sym;
	unsigned int skip;
} rl2_redirects[] = {
	{ &rl2_do_futex, rl2_kcall_do_futex, "do_futex", 0 },
	{ &rl2_ptrace_may_access, rl2_kcall_ptrace_may_access, "ptrace_may_access", 0 },
	{ &rl2_exit_resume, rl2_kcall_futex_exit_release, "futex_exit_release", MCOUNT_INSN_SIZE },
	{ &rl2_exec_resume, rl2_kcall_futex_exec_release, "futex_exec_release", MCOUNT_INSN_SIZE },
};

/*
 * Entered instead of futex_exit_release(tsk) / futex_exec_release(tsk),
 * with a module reference taken by rl2_hook_cb().
 */
static void rl2_release(struct task_struct *tsk, bool exec)
{
	struct rl2_task *rec = NULL;

	if (tsk == current)
		rec = rl2_task_detach();
	if (rec) {
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
	rl2_release(tsk, false);
	module_put(THIS_MODULE);
}

static noinline void rl2_exec_release(struct task_struct *tsk)
{
	rl2_release(tsk, true);
	module_put(THIS_MODULE);
}

static void notrace rl2_hook_cb(unsigned long ip,
					   unsigned long parent_ip,
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
		.func = rl2_hook_cb,
		.wrapper = (unsigned long)rl2_exit_release,
	},
	{
		.sym = "futex_exec_release",
		.func = rl2_hook_cb,
		.wrapper = (unsigned long)rl2_exec_release,
	},
};

/*
 * Filter only, never registered.  ftrace_free_filter() leaves the hash
 * pointers dangling, so the ops is zeroed before every use.
 */
static struct ftrace_ops rl2_probe_ops;

/*
 * The fentry site of kernel function @sym: ftrace_set_filter() looks the
 * name up among ftrace locations, and the one entry of the filter hash is
 * its address.  sprint_symbol() must then name @sym at offset 0 or 4 (after
 * the ENDBR slot on IBT kernels), or we refuse to use it.
 */
static unsigned long rl2_fentry_of(const char *sym)
{
	struct rl2_ftrace_hash *hash;
	struct ftrace_func_entry *entry;
	unsigned long ip = 0, i;
	char name[RL2_SYM_LEN], *buf;
	int ret;

	strscpy(name, sym, sizeof(name));
	memset(&rl2_probe_ops, 0, sizeof(rl2_probe_ops));
	ret = ftrace_set_filter(&rl2_probe_ops, name, strlen(name), 1);
	if (ret) {
		pr_err("%s is not a traceable function on this kernel (%d); not supported\n",
		       sym, ret);
		return 0;
	}
	hash = (struct rl2_ftrace_hash *)rl2_probe_ops.func_hash->filter_hash;
	if (hash && hash->count == 1 && hash->size_bits < 16) {
		for (i = 0; i < (1UL << hash->size_bits) && !ip; i++)
			hlist_for_each_entry(entry, &hash->buckets[i], hlist)
				ip = entry->ip;
	}
	ftrace_free_filter(&rl2_probe_ops);

	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!buf)
		return 0;
	if (ip)
		sprint_symbol(buf, ip);
	if (!ip || strncmp(buf, sym, strlen(sym)) ||
	    (strncmp(buf + strlen(sym), "+0x0/", 5) &&
	     strncmp(buf + strlen(sym), "+0x4/", 5))) {
		pr_err("cannot locate %s through ftrace (got %s); not supported\n",
		       sym, ip ? buf : "nothing");
		ip = 0;
	}
	kfree(buf);
	return ip;
}

/* One line that says why an IPMODIFY ops could not be registered. */
static void rl2_ftrace_err(const char *what, int ret)
{
	if (ret == -EBUSY)
		pr_err("cannot hook %s: ftrace is disabled (sysctl kernel.ftrace_enabled=0) or another ftrace user modifies it (a livepatch?)\n",
		       what);
	else
		pr_err("cannot hook %s through ftrace: %d\n", what, ret);
}

static int rl2_redirect_register(struct rl2_redirect *r, void *stub)
{
	int ret;

	r->ops.func = rl2_redirect_cb;
	r->ops.flags = RL2_OPS_FLAGS;
	ret = ftrace_set_filter_ip(&r->ops, (unsigned long)stub, 0, 0);
	if (!ret)
		ret = register_ftrace_function(&r->ops);
	if (ret) {
		ftrace_free_filter(&r->ops);
		rl2_ftrace_err(r->what, ret);
	}
	return ret;
}

static void rl2_redirect_unregister(struct rl2_redirect *r)
{
	unregister_ftrace_function(&r->ops);
	ftrace_free_filter(&r->ops);
}

static int rl2_hook_register(struct rl2_hook *h)
{
	int ret;

	h->ops.func = h->func;
	h->ops.flags = RL2_OPS_FLAGS;
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
 * rl2_hooks_init - resolve kernel functions, install stubs and exit hooks
 *
 * Returns 0 or a negative errno after printing one line that says why.
 */
int rl2_hooks_init(void)
{
	int nr_redirects = 0, nr_hooks = 0;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(rl2_redirects); i++) {
		unsigned long ip = rl2_fentry_of(rl2_redirects[i].sym);

		if (!ip)
			return -ENOENT;
		rl2_redirects[i].r->target = ip + rl2_redirects[i].skip;
	}

	for (; nr_redirects < ARRAY_SIZE(rl2_redirects); nr_redirects++) {
		ret = rl2_redirect_register(rl2_redirects[nr_redirects].r,
					    rl2_redirects[nr_redirects].stub);
		if (ret)
			goto err_redirects;
	}

	for (; nr_hooks < ARRAY_SIZE(rl2_hooks); nr_hooks++) {
		ret = rl2_hook_register(&rl2_hooks[nr_hooks]);
		if (ret)
			goto err_hooks;
	}
	return 0;

err_hooks:
	while (nr_hooks--)
		rl2_hook_unregister(&rl2_hooks[nr_hooks]);
	synchronize_rcu_tasks();
err_redirects:
	while (nr_redirects--)
		rl2_redirect_unregister(rl2_redirects[nr_redirects].r);
	return ret;
}

/**
 * rl2_hooks_exit - remove the hooks, then the stubs' redirects
 *
 * Only called once the module is unused: no thread has a slot, so no
 * wrapper can be entered any more.
 */
void rl2_hooks_exit(void)
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
	for (i = ARRAY_SIZE(rl2_redirects) - 1; i >= 0; i--)
		rl2_redirect_unregister(rl2_redirects[i].r);
}
