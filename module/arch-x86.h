/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64: the function-entry layout robust_list2's ftrace redirects rely
 * on, and the registers of the library's try-unlock window.  Included by
 * compat.h only.
 */
#ifndef _RL2_ARCH_X86_H
#define _RL2_ARCH_X86_H

#include <linux/ftrace.h>
#include <linux/uaccess.h>
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

/*
 * The try-unlock's exact bytes, wherever a copy of it sits: the library's
 * (try_unlock_x86_64.S, try_unlock_i386.S) and every inlined copy of
 * robust_list2_try_unlock{64,32}_inline() (libshim/include/robust_list2.h
 * emits them with .byte, so no compiler or assembler choice can change
 * them).  @code is the whole unlock, from the compare-exchange to the end
 * of the store(s); @at lists the offsets in @code of the instructions
 * inside the window (the jnz, then each store), where a dying thread's ip
 * with ZF set means "released, *pop not yet cleared".  @size: the width of
 * the pending field; @compat: the pattern of a 32-bit task.
 */
#define RL2_INSN_WINDOWS	1
#define RL2_INSN_MAX		23

struct rl2_insn_window {
	u8 code[RL2_INSN_MAX];
	u8 len;
	u8 at[3];
	u8 nr_at;
	u8 size;
	bool compat;
};

static const struct rl2_insn_window rl2_insn_windows[] = {
	{	/* lock cmpxchg %ecx,(%rdi); jnz 1f; movq $0,(%rdx); 1: */
		.code = { 0xf0, 0x0f, 0xb1, 0x0f, 0x75, 0x07,
			  0x48, 0xc7, 0x02, 0x00, 0x00, 0x00, 0x00 },
		.len = 13, .at = { 4, 6 }, .nr_at = 2, .size = 8,
	},
	{	/* lock cmpxchg %ecx,(%rdi); jnz 1f; movl $0,(%rdx); 1: */
		.code = { 0xf0, 0x0f, 0xb1, 0x0f, 0x75, 0x06,
			  0xc7, 0x02, 0x00, 0x00, 0x00, 0x00 },
		.len = 12, .at = { 4, 6 }, .nr_at = 2, .size = 4,
	},
	{	/* i386: lock cmpxchg %ebx,(%ecx); jnz 1f; movl $0,(%edx); 1: */
		.code = { 0xf0, 0x0f, 0xb1, 0x19, 0x75, 0x06,
			  0xc7, 0x02, 0x00, 0x00, 0x00, 0x00 },
		.len = 12, .at = { 4, 6 }, .nr_at = 2, .size = 4,
		.compat = true,
	},
	{	/* i386: ...; jnz 1f; movl $0,(%edx); movl $0,4(%edx); 1: */
		.code = { 0xf0, 0x0f, 0xb1, 0x19, 0x75, 0x0d,
			  0xc7, 0x02, 0x00, 0x00, 0x00, 0x00,
			  0xc7, 0x42, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00 },
		.len = 19, .at = { 4, 6, 12 }, .nr_at = 3, .size = 8,
		.compat = true,
	},
};

/*
 * Is the user ip of @regs inside a copy of the try-unlock?  Returns the
 * width of its pending field, or 0.  The code is read with page faults
 * disabled (a text page that is not present is not waited for: the
 * pending entry is then walked as before).
 */
static inline unsigned int rl2_window_insn(struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs);
	bool compat = !user_64bit_mode(regs);
	u8 buf[RL2_INSN_MAX];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(rl2_insn_windows); i++) {
		const struct rl2_insn_window *w = &rl2_insn_windows[i];

		if (w->compat != compat)
			continue;
		for (j = 0; j < w->nr_at; j++) {
			const void __user *code;

			if (ip < w->at[j])
				continue;
			code = (const void __user *)(ip - w->at[j]);
			if (!copy_from_user_nofault(buf, code, w->len) &&
			    !memcmp(buf, w->code, w->len))
				return w->size;
		}
	}
	return 0;
}

#endif /* _RL2_ARCH_X86_H */
