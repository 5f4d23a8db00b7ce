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

/*
 * Is the instruction at @ip (a kprobe address, which rl2_fentry_of() has
 * checked to be sym+0 or sym+4) the 5-byte site ftrace patches: the NOP it
 * wrote at boot, or a call when another tracer is attached?  Only then is
 * @ip + RL2_ENTRY_RESUME the next instruction, where the exit hook's thunk
 * resumes the function's body.  The NOP is P6's on every CPU since 5.14
 * and on Intel before; 5.10 writes K8's atomic one on older AMD CPUs
 * (QEMU's TCG "max" CPU is one).  Anything else (another layout, a jump
 * someone patched in) is refused at load rather than jumped into.
 */
#define RL2_ENTRY_BYTES		MCOUNT_INSN_SIZE

static inline bool rl2_entry_expected(const u8 *insn)
{
	static const u8 nop_p6[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const u8 nop_k8[] = { 0x66, 0x66, 0x66, 0x66, 0x90 };

	BUILD_BUG_ON(sizeof(nop_p6) != RL2_ENTRY_BYTES);
	return insn[0] == 0xe8 || !memcmp(insn, nop_p6, RL2_ENTRY_BYTES) ||
	       !memcmp(insn, nop_k8, RL2_ENTRY_BYTES);
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
 * The try-unlock's instructions, wherever a copy of them sits: the
 * library's (try_unlock_x86_64.S, try_unlock_i386.S) and every inlined
 * copy of robust_list2_try_unlock{64,32}_inline() (libshim/include/
 * robust_list2.h, which emits the compare-exchange and the store(s) with
 * .byte and pins their registers, so no compiler can change them):
 *
 *	lock cmpxchg %ecx, (%rdi)	(i386: %ebx, (%ecx))	@cas
 *	jnz <anywhere>			75 rel8 or 0f 85 rel32
 *	movq $0, (%rdx)			(or movl; two on i386)	@store
 *
 * The jnz's target is free: the inline copy jumps to its caller's slow
 * path.  With ZF set, an ip at the jnz or at a store means "released,
 * *pop not yet (fully) cleared".  @at: the offsets in @store of its
 * instructions; @size: the width of the pending field; @compat: the
 * pattern of a 32-bit task.
 */
#define RL2_INSN_WINDOWS	1
#define RL2_INSN_STORE_MAX	14

struct rl2_insn_window {
	u8 cas[4];
	u8 store[RL2_INSN_STORE_MAX];
	u8 store_len;
	u8 at[2];
	u8 nr_at;
	u8 size;
	bool compat;
};

static const struct rl2_insn_window rl2_insn_windows[] = {
	{	/* movq $0, (%rdx) */
		.cas = { 0xf0, 0x0f, 0xb1, 0x0f },
		.store = { 0x48, 0xc7, 0x02, 0x00, 0x00, 0x00, 0x00 },
		.store_len = 7, .at = { 0 }, .nr_at = 1, .size = 8,
	},
	{	/* movl $0, (%rdx) */
		.cas = { 0xf0, 0x0f, 0xb1, 0x0f },
		.store = { 0xc7, 0x02, 0x00, 0x00, 0x00, 0x00 },
		.store_len = 6, .at = { 0 }, .nr_at = 1, .size = 4,
	},
	{	/* i386: movl $0, (%edx) */
		.cas = { 0xf0, 0x0f, 0xb1, 0x19 },
		.store = { 0xc7, 0x02, 0x00, 0x00, 0x00, 0x00 },
		.store_len = 6, .at = { 0 }, .nr_at = 1, .size = 4,
		.compat = true,
	},
	{	/* i386: movl $0, (%edx); movl $0, 4(%edx) */
		.cas = { 0xf0, 0x0f, 0xb1, 0x19 },
		.store = { 0xc7, 0x02, 0x00, 0x00, 0x00, 0x00,
			   0xc7, 0x42, 0x04, 0x00, 0x00, 0x00, 0x00 },
		.store_len = 13, .at = { 0, 6 }, .nr_at = 2, .size = 8,
		.compat = true,
	},
};

/*
 * User code is read with page faults disabled: a text page that is not
 * present is not waited for (the pending entry is then walked as before).
 */
static inline bool rl2_code_is(unsigned long addr, const u8 *code,
			       unsigned int len)
{
	u8 buf[RL2_INSN_STORE_MAX];

	return len <= sizeof(buf) &&
	       !copy_from_user_nofault(buf, (const void __user *)addr, len) &&
	       !memcmp(buf, code, len);
}

/* The length of the jnz at @addr (2 or 6), or 0 if there is none. */
static inline unsigned int rl2_jnz_at(unsigned long addr)
{
	u8 op[2];

	if (copy_from_user_nofault(op, (const void __user *)addr, sizeof(op)))
		return 0;
	if (op[0] == 0x75)
		return 2;
	if (op[0] == 0x0f && op[1] == 0x85)
		return 6;
	return 0;
}

/* Do @w's compare-exchange and a jnz end right at @addr? */
static inline bool rl2_cas_jnz_before(const struct rl2_insn_window *w,
				      unsigned long addr)
{
	return (addr >= 6 && rl2_jnz_at(addr - 2) == 2 &&
		rl2_code_is(addr - 6, w->cas, sizeof(w->cas))) ||
	       (addr >= 10 && rl2_jnz_at(addr - 6) == 6 &&
		rl2_code_is(addr - 10, w->cas, sizeof(w->cas)));
}

/* Could @regs be inside a copy of the try-unlock, released?  No user read. */
static inline bool rl2_window_insn_maybe(struct pt_regs *regs)
{
	return rl2_window_released(regs);
}

/*
 * Is the user ip of @regs inside a copy of the try-unlock, with the word
 * released (ZF)?  Returns the width of its pending field, or 0.
 */
static inline unsigned int rl2_window_insn(struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs);
	bool compat = !user_64bit_mode(regs);
	unsigned int i, j, n;

	if (!rl2_window_released(regs))
		return 0;
	for (i = 0; i < ARRAY_SIZE(rl2_insn_windows); i++) {
		const struct rl2_insn_window *w = &rl2_insn_windows[i];

		if (w->compat != compat)
			continue;
		/* at the jnz */
		n = rl2_jnz_at(ip);
		if (n && ip >= sizeof(w->cas) &&
		    rl2_code_is(ip - sizeof(w->cas), w->cas, sizeof(w->cas)) &&
		    rl2_code_is(ip + n, w->store, w->store_len))
			return w->size;
		/* at a store */
		for (j = 0; j < w->nr_at; j++) {
			unsigned long store = ip - w->at[j];

			if (ip >= w->at[j] &&
			    rl2_code_is(store, w->store, w->store_len) &&
			    rl2_cas_jnz_before(w, store))
				return w->size;
		}
	}
	return 0;
}

#endif /* _RL2_ARCH_X86_H */
