/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64: the function-entry layout robust_list2's ftrace redirects rely
 * on, and the registers of the library's try-unlock window.  Included by
 * compat.h only.
 *
 * A traced function starts "mov x9, x30" at sym+0, then the ftrace call
 * slot (a NOP or "bl ftrace_caller") at sym+4, which is the ip ftrace
 * hands our callbacks, then the body (with PAC, "paciasp" at sym+8).  With
 * DYNAMIC_FTRACE_WITH_CALL_OPS (6.12) an 8-byte ops pointer precedes
 * sym+0.  ftrace leaves its trampoline with x30 and sp as the traced
 * function got them and "ret x9" to the (possibly moved) pc, so a kernel
 * function we enter through a redirect signs and authenticates its own
 * return address exactly as after a direct call: PAC stays balanced, and a
 * RET is not checked by BTI.
 */
#ifndef _RL2_ARCH_ARM64_H
#define _RL2_ARCH_ARM64_H

#include <linux/ftrace.h>
#include <linux/uaccess.h>
#include <asm/insn.h>
#include <asm/ptrace.h>

/*
 * Offsets from a function's kprobe address (sym+0 here: arm64 kprobes do
 * not skip to the ftrace slot): sym+0 runs the whole function (entering at
 * the call slot itself, without the "mov x9, x30" before it, oopses);
 * sym+8, right after the call slot, skips our own hook on it.
 */
#define RL2_ENTRY_WHOLE		0
#define RL2_ENTRY_RESUME	(2 * AARCH64_INSN_SIZE)

/*
 * Does the function at @ip (its kprobe address) start as assumed above?
 * ftrace turned its first patchable NOP into "mov x9, x30" at boot, and
 * the call slot after it is a NOP or a "bl" (another tracer attached); a
 * kernel laid out otherwise (with BTI, "bti c" comes first) is refused at
 * load rather than entered or resumed at the wrong place.
 */
#define RL2_INSN_MOV_X9_LR	0xaa1e03e9
#define RL2_INSN_NOP		0xd503201f
#define RL2_INSN_BL_MASK	0xfc000000
#define RL2_INSN_BL		0x94000000

#define RL2_ENTRY_BYTES		(2 * AARCH64_INSN_SIZE)

static inline bool rl2_entry_expected(const u8 *bytes)
{
	const __le32 *insn = (const __le32 *)bytes;
	u32 slot = le32_to_cpu(insn[1]);

	return le32_to_cpu(insn[0]) == RL2_INSN_MOV_X9_LR &&
	       (slot == RL2_INSN_NOP ||
		(slot & RL2_INSN_BL_MASK) == RL2_INSN_BL);
}

/*
 * A thread that died inside libshim/try_unlock_aarch64.S's window, which
 * starts right after its store-exclusive: the word was released if Z is
 * set (it compared equal to the tid) and w3, the store's status, is 0.
 * x2 holds the pending field's address (r3 and r2 for an AArch32 task).
 */
static inline bool rl2_window_released(struct pt_regs *regs)
{
	return (regs->pstate & PSR_Z_BIT) && !(u32)regs->regs[3];
}

static inline unsigned long rl2_window_pop(struct pt_regs *regs)
{
	return compat_user_mode(regs) ? (u32)regs->regs[2] : regs->regs[2];
}

/*
 * The header's inline copies (robust_list2_try_unlock{64,32}_inline() in
 * libshim/include/robust_list2.h), known by their encodings wherever they
 * sit, with the lock in x0, the tid in w1, pop in x2, w16 and w17 scratch:
 *
 *   exclusive (ARMv8.0)		LSE (ARMv8.1+)
 *   0: ldxr  w16, [x0]		0: mov   w16, w1
 *   1: cmp   w16, w1		1: casl  w16, wzr, [x0]
 *   2: b.ne  <anywhere>		2: cmp   w16, w1	<- window
 *   3: stlxr w17, wzr, [x0]		3: b.ne  <anywhere>	<- window
 *   4: cbnz  w17, 0b	<- window	4: str   xzr, [x2]	<- window
 *   5: str   xzr, [x2]	<- window
 *
 * (str wzr for a 32-bit pending field).  The b.ne's target is free: it
 * goes to the caller's slow path.  Released means: the stlxr stored (w17 =
 * 0; at the str it must have), or the casl saw the tid (w16 = w1 from
 * there on).  Single instructions are fixed 4-byte words, so a copy cannot
 * be laid out any other way.
 */
#define RL2_INSN_WINDOWS	1

#define RL2_A64_BNE_MASK	0xff00001f	/* b.ne: cond NE, any imm19 */
#define RL2_A64_BNE		0x54000001
#define RL2_A64_STR_MASK	0xbfffffff	/* str xzr/wzr, [x2] */
#define RL2_A64_STR		0xb900005f
#define RL2_A64_STR_64		0x40000000	/* the size bit: xzr */

struct rl2_insn_window {
	u32 insn[6];		/* RL2_A64_BNE / _STR: matched by mask */
	u8 len;			/* instructions */
	u8 first, last;		/* the window: instructions first .. last */
	bool llsc;		/* released: w17 == 0; else w16 == w1 */
};

static const struct rl2_insn_window rl2_insn_windows[] = {
	{	/* exclusive */
		.insn = { 0x885f7c10, 0x6b01021f, RL2_A64_BNE, 0x8811fc1f,
			  0x35ffff91, RL2_A64_STR },
		.len = 6, .first = 4, .last = 5, .llsc = true,
	},
	{	/* LSE */
		.insn = { 0x2a0103f0, 0x88b0fc1f, 0x6b01021f, RL2_A64_BNE,
			  RL2_A64_STR },
		.len = 5, .first = 2, .last = 4,
	},
};

/* Does @code match @w?  Returns the width of its pending field, or 0. */
static inline unsigned int rl2_insn_match(const struct rl2_insn_window *w,
					  const u32 *code)
{
	unsigned int i, size = 0;

	for (i = 0; i < w->len; i++) {
		u32 c = le32_to_cpu((__force __le32)code[i]);

		if (w->insn[i] == RL2_A64_BNE) {
			if ((c & RL2_A64_BNE_MASK) != RL2_A64_BNE)
				return 0;
		} else if (w->insn[i] == RL2_A64_STR) {
			if ((c & RL2_A64_STR_MASK) != RL2_A64_STR)
				return 0;
			size = c & RL2_A64_STR_64 ? sizeof(u64) : sizeof(u32);
		} else if (c != w->insn[i]) {
			return 0;
		}
	}
	return size;
}

/* Could @regs be inside a copy of the try-unlock, released?  No user read. */
static inline bool rl2_window_insn_maybe(struct pt_regs *regs)
{
	return !compat_user_mode(regs) &&
	       (!(u32)regs->regs[17] || (u32)regs->regs[16] == (u32)regs->regs[1]);
}

/*
 * Is the user pc of @regs inside a copy of the inline try-unlock, with the
 * word released?  Returns the width of its pending field, or 0.  The
 * registers are checked first; the code is read with page faults disabled
 * (a text page that is not present is not waited for: the pending entry
 * is then walked as before).
 */
static inline unsigned int rl2_window_insn(struct pt_regs *regs)
{
	unsigned long pc = instruction_pointer(regs);
	u32 code[ARRAY_SIZE(rl2_insn_windows[0].insn)];
	unsigned int i, k, size;

	if (compat_user_mode(regs) || (pc & 3))
		return 0;
	for (i = 0; i < ARRAY_SIZE(rl2_insn_windows); i++) {
		const struct rl2_insn_window *w = &rl2_insn_windows[i];

		if (w->llsc ? (u32)regs->regs[17] != 0 :
			      (u32)regs->regs[16] != (u32)regs->regs[1])
			continue;
		for (k = w->first; k <= w->last; k++) {
			unsigned long start = pc - k * AARCH64_INSN_SIZE;

			if (pc < k * AARCH64_INSN_SIZE ||
			    copy_from_user_nofault(code, (const void __user *)start,
						   w->len * AARCH64_INSN_SIZE))
				continue;
			size = rl2_insn_match(w, code);
			if (size)
				return size;
		}
	}
	return 0;
}

#endif /* _RL2_ARCH_ARM64_H */
