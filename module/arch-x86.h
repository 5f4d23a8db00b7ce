/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64: the function-entry layout robust_list2's ftrace redirects rely
 * on, and the registers of the library's try-unlock window.  Included by
 * compat.h only.
 */
#ifndef _RL2_ARCH_X86_H
#define _RL2_ARCH_X86_H

#include <linux/ftrace.h>
#include <asm/ptrace.h>

/*
 * Offsets from a function's kprobe address (its fentry call, after the
 * ENDBR slot on IBT kernels), which is also the ip ftrace hands our
 * callbacks: entering there runs the whole function; entering after the
 * 5-byte fentry call skips our own hook on it.
 */
#define RL2_ENTRY_WHOLE		0
#define RL2_ENTRY_RESUME	MCOUNT_INSN_SIZE

/* The layout is checked by rl2_fentry_of()'s symbol offset (0 or 4). */
static inline bool rl2_entry_expected(unsigned long ip)
{
	return true;
}

/*
 * A thread that died inside libshim/try_unlock_x86_64.S's window: ZF says
 * the cmpxchg released the word, (E)DX holds the pending field's address.
 */
static inline bool rl2_window_released(struct pt_regs *regs)
{
	return regs->flags & X86_EFLAGS_ZF;
}

static inline unsigned long rl2_window_pop(struct pt_regs *regs)
{
	return user_64bit_mode(regs) ? regs->dx : (u32)regs->dx;
}

#endif /* _RL2_ARCH_X86_H */
