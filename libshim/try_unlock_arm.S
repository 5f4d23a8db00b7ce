/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Robust futex try-unlock without a system call, 32-bit Arm (armhf
 * programs, e.g. on an arm64 kernel's AArch32 EL0); the contract is that of
 * try_unlock_aarch64.S.  ARMv7 load/store-exclusive, in A32 (callers in
 * Thumb reach it through the linker's interworking).  The window
 * [rl2__window*_start, rl2__window*_end) starts right after the strex:
 * there r2 holds pop, Z is set (the word compared equal) and r3 is the
 * store's status (0: released; the "cmp r3, #0" inside keeps Z == (r3 == 0)
 * once it has run), which module/arch-arm64.h reads for an AArch32 task.
 */
	.syntax	unified
	.arm
	.text

	.globl	robust_list2_try_unlock32
	.type	robust_list2_try_unlock32, %function
	.p2align 2
robust_list2_try_unlock32:
	.fnstart
	mov	r12, #0
1:	ldrex	r3, [r0]
	cmp	r3, r1
	bne	2f
	dmb	ish			/* release: earlier stores first */
	strex	r3, r12, [r0]		/* r3 = 0: released (the old word was r1) */
	.globl	rl2__window32_start
	.hidden	rl2__window32_start
rl2__window32_start:
	cmp	r3, #0
	bne	1b			/* lost the reservation: again */
	str	r12, [r2]		/* *pop = 0 */
	.globl	rl2__window32_end
	.hidden	rl2__window32_end
rl2__window32_end:
	mov	r0, r1
	bx	lr
2:	clrex
	mov	r0, r3
	bx	lr
	.fnend
	.size	robust_list2_try_unlock32, .-robust_list2_try_unlock32

	/* A 64-bit pending field from a 32-bit process: two stores. */
	.globl	robust_list2_try_unlock64
	.type	robust_list2_try_unlock64, %function
	.p2align 2
robust_list2_try_unlock64:
	.fnstart
	mov	r12, #0
1:	ldrex	r3, [r0]
	cmp	r3, r1
	bne	2f
	dmb	ish
	strex	r3, r12, [r0]
	.globl	rl2__window64_start
	.hidden	rl2__window64_start
rl2__window64_start:
	cmp	r3, #0
	bne	1b
	str	r12, [r2]
	str	r12, [r2, #4]
	.globl	rl2__window64_end
	.hidden	rl2__window64_end
rl2__window64_end:
	mov	r0, r1
	bx	lr
2:	clrex
	mov	r0, r3
	bx	lr
	.fnend
	.size	robust_list2_try_unlock64, .-robust_list2_try_unlock64

	.section .note.GNU-stack, "", %progbits
