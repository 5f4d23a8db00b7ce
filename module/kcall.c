// SPDX-License-Identifier: GPL-2.0
/*
 * How robust_list2 calls the few kernel functions it needs that are not
 * exported, without ever making an indirect call into kernel text, and
 * where it finds the functions its exit hook replaces.
 *
 * do_futex() (for the wake) and ptrace_may_access() (for get) are reached
 * through stubs: tiny module functions with the same prototype, called
 * directly, whose own fentry site is in the filter of the module's one
 * ftrace ops (exit_hook.c), which moves the ip to the kernel function.
 * ftrace leaves its trampoline with RET to the new ip, with the stub's
 * caller as return address, so the kernel function runs as if called
 * directly and returns to us.  The ops is registered from load to unload,
 * so a stub's redirect is there whenever a stub can be called.
 *
 * Why this is IBT-safe.  With CONFIG_X86_KERNEL_IBT (Debian 6.12) every
 * indirect CALL/JMP must land on an ENDBR64, and objtool seals (overwrites
 * with a NOP) the ENDBR of every function whose address is never taken:
 * futex_exit_release, futex_exec_release, do_futex and ptrace_may_access
 * are all sealed, so calling them through a pointer would be a fatal
 * "Missing ENDBR" on IBT hardware (TCG does not emulate IBT, so no VM test
 * can catch it).  Here no pointer to kernel text is ever called: we enter
 * kernel code only by RET, out of ftrace's trampoline or out of the exit
 * hook's resume thunk (resume-*.S), and IBT does not check RET targets.
 * The only indirect calls involved are ftrace calling our callback and
 * the RCU/kernel calling our functions, all module functions whose
 * address is taken and which therefore keep their ENDBR, and the pv_ops
 * slots of the irq save/restore inside rhashtable's bucket locks, which
 * the paravirt patcher turns into inline instructions at load (their
 * targets sit in pv_ops, so their address is taken too).
 *
 * Kernel addresses come from disabled kprobes (rl2_fentry_of()), which
 * patch no kernel text; no kallsyms lookup function is ever called, and no
 * private kernel structure is read.  Before any of them is used, the
 * instruction there is checked to be the ftrace site we expect
 * (rl2_entry_expected(), per architecture), so that resuming after it
 * lands on an instruction boundary.
 */
#include <linux/module.h>
#include <linux/err.h>
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

/*
 * The stubs.  Each has exactly the prototype of the kernel function it
 * stands for (checked below against the kernel's own header, so a changed
 * prototype breaks the build, not the kernel).  __noipa keeps GCC from
 * cloning them or changing how arguments are passed, which would move
 * calls away from the traced entry point.
 *
 * Their bodies run only if the redirect did not fire: the ops is
 * registered before the device exists and removed after it is gone, so
 * only ftrace itself failing (ftrace_kill()) could do that.  If one ever
 * runs, it says so loudly, and leaves the safe answer behind: no wake, no
 * permission.  Nothing the kernel must do depends on them: the exit
 * hook's resume into futex_exit_release()'s body is no redirect.
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

static_assert(__same_type(&rl2_kcall_do_futex, &do_futex));
static_assert(__same_type(&rl2_kcall_ptrace_may_access, &ptrace_may_access));

/* A stub and the kernel function it continues in. */
struct rl2_stub {
	void *stub;
	const char *const *syms;	/* its name (one) */
	unsigned long target;		/* its fentry site, once resolved */
	bool skip;			/* fault injection: leave it unredirected */
};

static struct rl2_stub rl2_stubs[] = {
	{ rl2_kcall_do_futex, (const char *const[]){ "do_futex", NULL } },
	{ rl2_kcall_ptrace_may_access,
	  (const char *const[]){ "ptrace_may_access", NULL } },
};

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

static struct rl2_release_fn rl2_exit_fn, rl2_exec_fn;

/*
 * The fentry site of kernel function @sym, where ftrace calls our
 * callbacks: the address of a kprobe registered disabled on @sym, which
 * looks the name up and skips an ENDBR slot exactly as ftrace does, and
 * patches no text (a disabled kprobe is never armed).  Only the public
 * struct kprobe is read.  sprint_symbol() must then name @sym at offset 0
 * or 4 (after the ENDBR slot on IBT kernels), or we refuse to use it.
 * (On arm64 this is sym+0, before the ftrace call slot.)  0 if @sym is
 * not usable here, or -ENOMEM as an error value: a load that failed to
 * allocate says so, not "not supported".
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
	if (ret == -ENOMEM)
		return -ENOMEM;
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
		return -ENOMEM;
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

/*
 * The first kernel function of @syms that this kernel has, checked as the
 * place our ftrace site offsets assume; 0 after one line that says why,
 * or an error value (IS_ERR_VALUE(): -ENOMEM).
 */
static unsigned long rl2_resolve(const char *const *syms, const char **found)
{
	u8 insn[RL2_ENTRY_BYTES] = { 0 };
	unsigned long ip = 0;

	/* quiet while another name is left to try */
	for (; *syms && !ip; syms++)
		ip = rl2_fentry_of(*syms, syms[1]);
	if (!ip || IS_ERR_VALUE(ip))
		return ip;
	*found = syms[-1];
	if (copy_from_kernel_nofault(insn, (void *)ip, sizeof(insn)) ||
	    !rl2_entry_expected(insn)) {
		pr_err("%s does not begin as expected on this architecture (%*ph); not supported\n",
		       *found, (int)sizeof(insn), insn);
		return 0;
	}
	return ip;
}

static int rl2_release_init(struct rl2_release_fn *fn,
			    const char *const *syms)
{
	fn->site = rl2_resolve(syms, &fn->sym);
	if (IS_ERR_VALUE(fn->site))
		return (int)fn->site;
	if (!fn->site)
		return -ENOENT;
	fn->resume = fn->site + RL2_ENTRY_RESUME;
	return 0;
}

/**
 * rl2_kcall_init - resolve every kernel function we call or replace
 *
 * Registers nothing (exit_hook.c does).  Returns 0 or a negative errno
 * after printing one line that says why.
 */
int rl2_kcall_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(rl2_stubs); i++) {
		struct rl2_stub *s = &rl2_stubs[i];
		const char *found;
		unsigned long ip = rl2_resolve(s->syms, &found);

		if (IS_ERR_VALUE(ip))
			return (int)ip;
		if (!ip)
			return -ENOENT;
		s->target = ip + RL2_ENTRY_WHOLE;
		s->skip = rl2_fi_skip_redirect(found);
	}
	ret = rl2_release_init(&rl2_exit_fn, rl2_exit_syms);
	if (!ret)
		ret = rl2_release_init(&rl2_exec_fn, rl2_exec_syms);
	return ret;
}

/**
 * rl2_kcall_release - the kernel function the exit or exec hook replaces
 * @exec: futex_exec_release()'s (or the one function both use), else
 *	  futex_exit_release()'s
 *
 * Its name, fentry site and resume address, once rl2_kcall_init() has
 * succeeded.
 */
const struct rl2_release_fn *rl2_kcall_release(bool exec)
{
	return exec ? &rl2_exec_fn : &rl2_exit_fn;
}

/**
 * rl2_kcall_filter - add every stub's fentry site to @ops's filter
 * @ops: the module's one ftrace ops, not yet registered
 *
 * Returns 0 or a negative errno.
 */
int rl2_kcall_filter(struct ftrace_ops *ops)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(rl2_stubs); i++) {
		if (rl2_stubs[i].skip)
			continue;
		ret = ftrace_set_filter_ip(ops, (unsigned long)rl2_stubs[i].stub,
					   0, 0);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * rl2_kcall_redirect - send a stub on to its kernel function
 * @ip: the fentry site ftrace called the module's ops for
 * @fregs: the registers ftrace will return with
 *
 * Called from the ftrace callback (notrace, preemption off).  Returns
 * whether @ip was a stub's.
 */
bool notrace rl2_kcall_redirect(unsigned long ip,
				struct rl2_ftrace_regs *fregs)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(rl2_stubs); i++) {
		if (rl2_site_is(ip, (unsigned long)rl2_stubs[i].stub)) {
			rl2_ftrace_set_ip(fregs, rl2_stubs[i].target);
			return true;
		}
	}
	return false;
}
