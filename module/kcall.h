/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calls into kernel functions that are not exported, through module stubs
 * that the module's ftrace ops redirects, and the kernel functions the
 * exit hook replaces (kcall.c; why this is IBT-safe is explained there).
 */
#ifndef _RL2_KCALL_H
#define _RL2_KCALL_H

#include <linux/types.h>
#include <linux/compiler_types.h>
#include <linux/ktime.h>

#include "compat.h"

struct task_struct;
struct ftrace_ops;

/*
 * A kernel function the exit hook replaces: its name on this kernel, its
 * fentry site (the ip ftrace hands our callback, give or take the span
 * below) and where its body resumes after that site.
 */
struct rl2_release_fn {
	const char *sym;
	unsigned long site;
	unsigned long resume;
};

/*
 * ftrace hands a callback the address of the call it patched into a
 * function's entry: sym+0, or past a 4-byte ENDBR (x86 IBT) or "mov x9,
 * x30" (arm64), or past "bti c" as well.  Every function we filter on
 * begins at least this far from the next one, so "@ip is within
 * RL2_SITE_SPAN bytes after the function's kprobe address" names exactly
 * one of them, whatever the architecture adds in front.
 */
#define RL2_SITE_SPAN	16

static inline bool rl2_site_is(unsigned long ip, unsigned long fn)
{
	return ip - fn < RL2_SITE_SPAN;
}

int rl2_kcall_init(void);
int rl2_kcall_filter(struct ftrace_ops *ops);
bool rl2_kcall_redirect(unsigned long ip, struct rl2_ftrace_regs *fregs);
const struct rl2_release_fn *rl2_kcall_release(bool exec);

long rl2_kcall_do_futex(u32 __user *uaddr, int op, u32 val, ktime_t *timeout,
			u32 __user *uaddr2, u32 val2, u32 val3);
bool rl2_kcall_ptrace_may_access(struct task_struct *task, unsigned int mode);

#endif /* _RL2_KCALL_H */
