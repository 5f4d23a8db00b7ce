/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exit hook's resume thunks, arm64 (see exit_hook.c, arch-arm64.h).
 *
 * ftrace leaves its trampoline with "ret x9" to a thunk in place of
 * futex_exit_release(tsk) or futex_exec_release(tsk): x0 is tsk, x30 the
 * caller's return address and sp as the caller left them.  The thunk
 * calls our part, then continues in the release function's own body right
 * after its ftrace call slot (sym+8) with "ret x9", x0 and x30 restored:
 * the body's own "paciasp" signs x30 with the original sp, as after a
 * direct call, and returns to the original caller.  Kernel text is entered
 * by RET only (BTI does not check it), and nothing can skip the body.  The
 * thunk signs the x30 it keeps on the stack meanwhile (a hint, a NOP where
 * pointer authentication is off).
 */
#include <linux/linkage.h>

.macro RL2_RESUME_THUNK name, resume
SYM_CODE_START(\name)
	hint	#25			/* paciasp */
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	str	x0, [sp, #16]
	bl	rl2_exit_hook_release
	ldr	x0, [sp, #16]
	ldp	x29, x30, [sp], #32
	hint	#29			/* autiasp */
	adrp	x9, \resume
	ldr	x9, [x9, :lo12:\resume]
	ret	x9
SYM_CODE_END(\name)
.endm

	.text
RL2_RESUME_THUNK rl2_exit_thunk, rl2_exit_resume
RL2_RESUME_THUNK rl2_exec_thunk, rl2_exec_resume
