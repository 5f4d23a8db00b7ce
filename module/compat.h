/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every kernel-version and configuration difference robust_list2 depends
 * on, in one place.  This is the only file allowed to test
 * LINUX_VERSION_CODE; feature code uses the rl2_* wrappers below.
 */
#ifndef _RL2_COMPAT_H
#define _RL2_COMPAT_H

#include <linux/version.h>
#include <linux/compiler.h>
#include <linux/ftrace.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

/* The floor: BUILD_EXCLUSIVE_KERNEL_MIN of dkms.conf, passed in by Kbuild. */
#if !defined(RL2_KERNEL_MIN_MAJOR) || !defined(RL2_KERNEL_MIN_MINOR)
#error "build robust_list2 through its Kbuild: no RL2_KERNEL_MIN_*"
#elif LINUX_VERSION_CODE < KERNEL_VERSION(RL2_KERNEL_MIN_MAJOR, RL2_KERNEL_MIN_MINOR, 0)
#error "robust_list2: this kernel is older than BUILD_EXCLUSIVE_KERNEL_MIN (dkms.conf)"
#endif

/* What differs between architectures: one header each. */
#if defined(CONFIG_X86_64)
# include "arch-x86.h"
#elif defined(CONFIG_ARM64)
# include "arch-arm64.h"
#else
# error "robust_list2 supports x86-64 and arm64"
#endif

#if !defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS) && \
	!defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
#error "robust_list2 needs CONFIG_DYNAMIC_FTRACE_WITH_REGS or _WITH_ARGS"
#endif

#ifndef CONFIG_FUTEX
#error "robust_list2 needs CONFIG_FUTEX"
#endif

#ifndef CONFIG_KPROBES
#error "robust_list2 needs CONFIG_KPROBES (to locate kernel functions)"
#endif

/*
 * Stubs that ftrace redirects into kernel text must keep the plain C
 * calling convention: no IPA clones, no dropped or constant-propagated
 * arguments.  6.1 lacks the __noipa helper.
 */
#ifndef __noipa
# if __has_attribute(__noipa__)
#  define __noipa __attribute__((__noipa__))
# else
#  define __noipa __noclone
# endif
#endif

/*
 * The exit hook's release function has the prototype of the kernel's
 * futex_exit_release(), whose argument the resume thunk passes on to the
 * body: checked against the kernel's header where it still declares that
 * name (probed in Kbuild; kcall.c looks the function up under several
 * names).
 */
#ifdef RL2_HAVE_FUTEX_EXIT_RELEASE
# define rl2_release_proto_check(stub) \
	static_assert(__same_type(&(stub), &futex_exit_release))
#else
# define rl2_release_proto_check(stub) \
	static_assert(__same_type(&(stub), void (*)(struct task_struct *)))
#endif

/*
 * Moving the instruction pointer from an ftrace callback.  With
 * DYNAMIC_FTRACE_WITH_ARGS the light ftrace_caller trampoline restores a
 * modified ip (what livepatch relies on); without it we need full
 * pt_regs, i.e. FTRACE_OPS_FL_SAVE_REGS.  arm64's 6.12 setter is a static
 * inline, not a macro (probed in Kbuild); there SAVE_REGS is -EINVAL.  On
 * arm64 6.1 (WITH_REGS only) ftrace_instruction_pointer_set() exists but
 * does nothing: that kernel takes the SAVE_REGS branch.
 */
#ifdef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
# define RL2_FTRACE_OPS_FLAGS	0
# if defined(ftrace_regs_set_instruction_pointer) || \
	defined(RL2_HAVE_ARCH_FTRACE_SET_IP)	/* 6.8+ name; arm64: inline */
#  define rl2_ftrace_set_ip(fregs, ip) \
	ftrace_regs_set_instruction_pointer(fregs, ip)
# elif defined(ftrace_instruction_pointer_set)
#  define rl2_ftrace_set_ip(fregs, ip) \
	ftrace_instruction_pointer_set(fregs, ip)
# else
#  error "no way to set the ip from an ftrace callback on this kernel"
# endif
#elif defined(RL2_HAVE_FTRACE_REGS)
# define RL2_FTRACE_OPS_FLAGS	FTRACE_OPS_FL_SAVE_REGS
# define rl2_ftrace_set_ip(fregs, ip) \
	instruction_pointer_set(ftrace_get_regs(fregs), ip)
#else
# define RL2_FTRACE_OPS_FLAGS	FTRACE_OPS_FL_SAVE_REGS
# define rl2_ftrace_set_ip(regs, ip)	instruction_pointer_set(regs, ip)
#endif

/*
 * What an ftrace callback gets besides the ips: struct ftrace_regs since
 * 5.11; before, the struct pt_regs that FTRACE_OPS_FL_SAVE_REGS saved.
 * RL2_HAVE_FTRACE_REGS is probed in Kbuild.  Callbacks are declared with
 * "struct rl2_ftrace_regs *".
 */
#ifdef RL2_HAVE_FTRACE_REGS
# define rl2_ftrace_regs	ftrace_regs
#else
# define rl2_ftrace_regs	pt_regs
#endif

/* Every ftrace ops of ours moves the ip, and must not be turned off. */
#define RL2_IPMODIFY_OPS_FLAGS	(FTRACE_OPS_FL_IPMODIFY | \
				 FTRACE_OPS_FL_PERMANENT | RL2_FTRACE_OPS_FLAGS)

/*
 * Empty an unregistered ops' filter, ready for its next registration.
 * ftrace_free_filter() (exported in Debian's 6.1 and later; probed in
 * Kbuild) frees the hashes but leaves the ops pointing at them, so the ops
 * is wiped and initialised afresh next time.  Without it (5.10), the
 * entries are removed as 5.10's livepatch does and the empty hash stays
 * with the ops for its next registration (and, once, past unload).
 */
static inline void rl2_ftrace_clear_filter(struct ftrace_ops *ops)
{
#ifdef RL2_HAVE_FTRACE_FREE_FILTER
	ftrace_free_filter(ops);
	memset(ops, 0, sizeof(*ops));
#else
	ftrace_set_filter(ops, NULL, 0, 1);
#endif
}

/*
 * The head a thread gave set_robust_list(): a task_struct field until the
 * futex fields moved into task_struct::futex (struct futex_sched_data,
 * Debian's 7.2; probed in Kbuild).
 */
#ifdef RL2_HAVE_FUTEX_SCHED_DATA
# define rl2_task_robust_list(tsk)	((tsk)->futex.robust_list)
#else
# define rl2_task_robust_list(tsk)	((tsk)->robust_list)
#endif

/*
 * A user address without its tag (arm64's top byte under the tagged
 * address ABI, x86's LAM bits; the kernel's untagged_addr(), for current's
 * mm): what range checks and VMA lookups need.  Accesses keep the tag, as
 * the kernel's own walk of the legacy list does: its accessors accept a
 * tagged pointer where the thread enabled the ABI, and MTE checks the tag.
 */
#define rl2_untag(addr)		((unsigned long)untagged_addr(addr))

/*
 * get_user_pages_remote() lost its vmas argument in 6.5.  One page of @mm
 * at @addr with @flags; returns 1 (and *@page referenced), 0 or -errno.
 */
/* 7.2's kcov_common_handle() returns a struct (fault_inject.c) */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
#define RL2_KCOV_HANDLE_STRUCT
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
# define rl2_get_user_page(mm, addr, flags, page) \
	get_user_pages_remote(mm, addr, 1, flags, page, NULL, NULL)
#else
# define rl2_get_user_page(mm, addr, flags, page) \
	get_user_pages_remote(mm, addr, 1, flags, page, NULL)
#endif

/*
 * Keep our caches out of other caches of the same size, where a leak of
 * our records would hide (t_bounds counts them; accounted caches merge
 * with each other too): SLAB_NO_MERGE from 6.5.  Before it,
 * SLAB_NOLEAKTRACE, which never merges either and costs nothing but
 * kmemleak's view of our records (a leak still shows at
 * kmem_cache_destroy()).  Not SLAB_TYPESAFE_BY_RCU (0.4), with which SLUB
 * keeps its free pointer outside the object: 8 bytes more per record.
 */
#ifdef SLAB_NO_MERGE
# define RL2_SLAB_NO_MERGE	SLAB_NO_MERGE
#else
# define RL2_SLAB_NO_MERGE	SLAB_NOLEAKTRACE
#endif

#endif /* _RL2_COMPAT_H */
