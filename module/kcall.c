// SPDX-License-Identifier: GPL-2.0
/*
 * How robust_list2 calls the few kernel functions it needs that are not
 * exported, without ever making an indirect call into kernel text.
 *
 * do_futex() (for the wake), ptrace_may_access() (for get) and the
 * original futex_*_release() bodies are reached through stubs: tiny module
 * functions with the same prototype, called directly, whose own fentry
 * site carries an IPMODIFY ftrace ops that moves the ip to the kernel
 * function.  ftrace leaves its trampoline with RET to the new ip, with the
 * stub's caller as return address, so the kernel function runs as if
 * called directly and returns to us.
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
 *
 * Kernel addresses come from disabled kprobes (rl2_fentry_of()), which
 * patch no kernel text; no kallsyms lookup function is ever called, and no
 * private kernel structure is read.
 */
#include <linux/module.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/ftrace.h>
#include <linux/futex.h>
#include <linux/ptrace.h>
#include <linux/sched.h>

#include "compat.h"
#include "fault_inject.h"
#include "kcall.h"

struct rl2_redirect {
	struct ftrace_ops ops;		/* on a module stub */
	unsigned long target;		/* where the stub continues */
	const char *what;		/* for messages */
	bool registered;		/* under the exit hook's lock */
};

/*
 * The stubs.  Each has exactly the prototype of the kernel function it
 * stands for (checked below against the kernel's own header, so a changed
 * prototype breaks the build, not the kernel).  __noipa keeps GCC from
 * cloning them or changing how arguments are passed, which would move
 * calls away from the traced entry point.
 *
 * Their bodies run only if the redirect is missing, which the ordering of
 * rl2_exit_hook_get() and rl2_exit_hook_put() rules out (every redirect is
 * registered before a file opens or a record exists, and removed only
 * after the last of them has gone and made its last stub call).  If one
 * ever runs, it says so loudly: a silent futex_exit_release() stub would
 * skip the kernel's futex cleanup (PI state left pointing at a freed
 * task), a silent do_futex() a wake.  The answers left behind are the
 * safe ones: no wake, no permission.
 */
#define RL2_STUB_MISSED(fn) \
	WARN_ONCE(1, KBUILD_MODNAME ": %s ran without its redirect\n", fn)

__noipa long rl2_kcall_do_futex(u32 __user *uaddr, int op, u32 val,
				ktime_t *timeout, u32 __user *uaddr2,
				u32 val2, u32 val3)
{
	RL2_STUB_MISSED("do_futex");
	return -EOPNOTSUPP;
}

__noipa bool rl2_kcall_ptrace_may_access(struct task_struct *task,
					 unsigned int mode)
{
	RL2_STUB_MISSED("ptrace_may_access");
	return false;
}

__noipa void rl2_kcall_futex_exit_release(struct task_struct *tsk)
{
	RL2_STUB_MISSED("futex_exit_release");
}

__noipa void rl2_kcall_futex_exec_release(struct task_struct *tsk)
{
	RL2_STUB_MISSED("futex_exec_release");
}

static_assert(__same_type(&rl2_kcall_do_futex, &do_futex));
static_assert(__same_type(&rl2_kcall_ptrace_may_access, &ptrace_may_access));
rl2_release_proto_check(rl2_kcall_futex_exit_release);
rl2_release_proto_check(rl2_kcall_futex_exec_release);

static void notrace rl2_redirect_cb(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    struct rl2_ftrace_regs *fregs)
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
 * The names the kernel's release functions may have, newest first, so a
 * kernel where only the name moved needs no new code: up to 7.2,
 * futex_exit_release() at exit and futex_exec_release() at exec (which in
 * 7.2 only calls the former); newer trees have one
 * futex_exit_exec_release(), the same prototype, for both; where both
 * lists find that one, exit_hook.c hooks it once.
 */
static const char *const rl2_exit_syms[] = {
	"futex_exit_exec_release", "futex_exit_release", NULL
};

static const char *const rl2_exec_syms[] = {
	"futex_exit_exec_release", "futex_exec_release", NULL
};

/*
 * Where each stub continues, as an offset from the kernel function's
 * kprobe address (compat.h, per architecture): the whole function, or for
 * the release bodies the instruction right after the ftrace call (so our
 * own exit hook is not entered twice).  @sym is the candidate of @syms
 * this kernel has.
 */
static struct {
	struct rl2_redirect *r;
	void *stub;
	const char *const *syms;
	unsigned int skip;
	const char *sym;
} rl2_redirects[] = {
	{ &rl2_do_futex, rl2_kcall_do_futex,
	  (const char *const[]){ "do_futex", NULL }, RL2_ENTRY_WHOLE },
	{ &rl2_ptrace_may_access, rl2_kcall_ptrace_may_access,
	  (const char *const[]){ "ptrace_may_access", NULL }, RL2_ENTRY_WHOLE },
	{ &rl2_exit_resume, rl2_kcall_futex_exit_release, rl2_exit_syms,
	  RL2_ENTRY_RESUME },
	{ &rl2_exec_resume, rl2_kcall_futex_exec_release, rl2_exec_syms,
	  RL2_ENTRY_RESUME },
};

/*
 * The fentry site of kernel function @sym, where ftrace calls our
 * callbacks: the address of a kprobe registered disabled on @sym, which
 * looks the name up and skips an ENDBR slot exactly as ftrace does, and
 * patches no text (a disabled kprobe is never armed).  Only the public
 * struct kprobe is read.  sprint_symbol() must then name @sym at offset 0
 * or 4 (after the ENDBR slot on IBT kernels), or we refuse to use it.
 * (On arm64 this is sym+0, before the ftrace call slot.)
 */
static unsigned long rl2_fentry_of(const char *sym, bool quiet)
{
	struct kprobe kp = {
		.symbol_name = sym,
		.flags = KPROBE_FLAG_DISABLED,
	};
	unsigned long ip;
	char *buf;
	int ret;

	ret = register_kprobe(&kp);
	if (ret) {
		if (!quiet)
			pr_err("cannot locate %s on this kernel (register_kprobe: %d); not supported\n",
			       sym, ret);
		return 0;
	}
	ip = (unsigned long)kp.addr;
	unregister_kprobe(&kp);

	buf = kmalloc(KSYM_SYMBOL_LEN, GFP_KERNEL);
	if (!buf)
		return 0;
	sprint_symbol(buf, ip);
	if (strncmp(buf, sym, strlen(sym)) ||
	    (strncmp(buf + strlen(sym), "+0x0/", 5) &&
	     strncmp(buf + strlen(sym), "+0x4/", 5))) {
		pr_err("cannot locate %s (its kprobe address is %s); not supported\n",
		       sym, buf);
		ip = 0;
	}
	kfree(buf);
	return ip;
}

/**
 * rl2_ftrace_err - one line that says why an IPMODIFY ops was refused
 * @what: the function or stub
 * @ret: register_ftrace_function()'s answer
 */
void rl2_ftrace_err(const char *what, int ret)
{
	/* also on open(), so rate-limited */
	if (ret == -EBUSY)
		pr_err_ratelimited("cannot hook %s: ftrace is disabled (sysctl kernel.ftrace_enabled=0) or another ftrace user modifies it (a livepatch?)\n",
				   what);
	else
		pr_err_ratelimited("cannot hook %s through ftrace: %d\n", what, ret);
}

static int rl2_redirect_register(struct rl2_redirect *r, void *stub)
{
	int ret;

	r->ops.func = rl2_redirect_cb;
	r->ops.flags |= RL2_IPMODIFY_OPS_FLAGS;
	ret = ftrace_set_filter_ip(&r->ops, (unsigned long)stub, 0, 0);
	if (!ret)
		ret = register_ftrace_function(&r->ops);
	if (ret) {
		rl2_ftrace_clear_filter(&r->ops);
		rl2_ftrace_err(r->what, ret);
		return ret;
	}
	r->registered = true;
	return 0;
}

/*
 * Checked: an ops that fails to unregister (ftrace_kill() makes every
 * unregistration -ENODEV) is still live and stays marked registered, so
 * its memory, and the module, stay (rl2_exit_hook_put()).
 */
static int rl2_redirect_unregister(struct rl2_redirect *r)
{
	int ret = rl2_fi_unregister_error();

	if (!r->registered)
		return 0;
	if (!ret)
		ret = unregister_ftrace_function(&r->ops);
	if (ret)
		return ret;
	rl2_ftrace_clear_filter(&r->ops);
	r->registered = false;
	return 0;
}

/**
 * rl2_kcall_init - resolve the kernel functions the stubs continue in
 *
 * Registers nothing (rl2_kcall_install() does).  Returns 0 or a negative
 * errno after printing one line that says why.
 */
int rl2_kcall_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(rl2_redirects); i++) {
		const char *const *sym = rl2_redirects[i].syms;
		unsigned long ip = 0;

		/* quiet while another name is left to try */
		for (; *sym && !ip; sym++)
			ip = rl2_fentry_of(*sym, sym[1]);
		if (!ip)
			return -ENOENT;
		rl2_redirects[i].sym = sym[-1];
		if (!rl2_entry_expected(ip)) {
			pr_err("%s does not begin as expected on this architecture; not supported\n",
			       rl2_redirects[i].sym);
			return -ENOENT;
		}
		rl2_redirects[i].r->target = ip + rl2_redirects[i].skip;
	}
	return 0;
}

/**
 * rl2_kcall_release_sym - the kernel function a release stub continues in
 * @exec: futex_exec_release()'s stub, else futex_exit_release()'s
 *
 * Its name on this kernel (rl2_exit_syms, rl2_exec_syms), once
 * rl2_kcall_init() has succeeded.
 */
const char *rl2_kcall_release_sym(bool exec)
{
	struct rl2_redirect *r = exec ? &rl2_exec_resume : &rl2_exit_resume;
	int i;

	for (i = 0; i < ARRAY_SIZE(rl2_redirects); i++)
		if (rl2_redirects[i].r == r)
			return rl2_redirects[i].sym;
	return NULL;
}

/**
 * rl2_kcall_install - redirect every stub not yet redirected
 *
 * Called with the exit hook's lock held.  On failure the redirects made
 * stay registered for rl2_kcall_remove(); returns 0 or a negative errno
 * after printing one line that says why.
 */
int rl2_kcall_install(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(rl2_redirects); i++) {
		if (rl2_redirects[i].r->registered ||
		    rl2_fi_skip_redirect(rl2_redirects[i].sym))
			continue;
		ret = rl2_redirect_register(rl2_redirects[i].r,
					    rl2_redirects[i].stub);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * rl2_kcall_remove - remove the stubs' redirects
 *
 * Only once no caller of a stub can be left (no thread has a slot, no file
 * is open).  Stops at the first unregistration that fails and returns its
 * error; what is still registered is still marked so.
 */
int rl2_kcall_remove(void)
{
	int i, ret;

	for (i = ARRAY_SIZE(rl2_redirects) - 1; i >= 0; i--) {
		ret = rl2_redirect_unregister(rl2_redirects[i].r);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * rl2_kcall_installed - is any stub's redirect registered?
 */
bool rl2_kcall_installed(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(rl2_redirects); i++)
		if (rl2_redirects[i].r->registered)
			return true;
	return false;
}
