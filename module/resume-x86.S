/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exit hook's resume thunks, x86-64 (see exit_hook.c).
 *
 * ftrace enters a thunk with a RET in place of futex_exit_release(tsk) or
 * futex_exec_release(tsk): %rdi is tsk and the stack is exactly as the
 * release function's caller left it, its return address on top.  The
 * thunk calls our part, then continues in the release function's own body
 * right after its 5-byte fentry site by pushing that address and
 * returning to it: the body then returns to the original caller.  Kernel
 * text is entered by RET only (IBT does not check RET targets; the
 * function's sealed ENDBR does not matter), and nothing can skip the body.
 */
#include <linux/linkage.h>
#include <asm/unwind_hints.h>
#if __has_include(<asm/ibt.h>)
#include <asm/ibt.h>
#endif

#ifndef ENDBR
#define ENDBR
#endif
#ifndef RET
#define RET	ret
#endif

.macro RL2_RESUME_THUNK name, resume
SYM_CODE_START(\name)
	/* entered by RET; an ENDBR is a NOP here, and keeps objtool's IBT check quiet */
	UNWIND_HINT_FUNC
	ENDBR
	push	%rdi			/* tsk, for the body; keeps %rsp 16-aligned at the call */
	call	rl2_exit_hook_release
	pop	%rdi
	pushq	\resume(%rip)
	/* the stack now holds a return address, as at a function's entry */
	UNWIND_HINT_FUNC
	RET
SYM_CODE_END(\name)
.endm

	.text
RL2_RESUME_THUNK rl2_exit_thunk, rl2_exit_resume
RL2_RESUME_THUNK rl2_exec_thunk, rl2_exec_resume
