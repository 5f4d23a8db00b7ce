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
 * No copy of the try-unlock is recognised by its bytes here: the header's
 * inline variant is x86 only, and arm64 threads get the library's
 * registered window alone (window.c).
 */
#define RL2_INSN_WINDOWS	0

static inline unsigned int rl2_window_insn(struct pt_regs *regs)
{
	return 0;
}

#endif /* _RL2_ARCH_ARM64_H */
