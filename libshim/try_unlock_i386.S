/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Robust futex try-unlock without a system call, i386 (32-bit processes);
 * the contract and the window rule are those of try_unlock_x86_64.S:
 * inside [rl2__window*_start, rl2__window*_end) pop is in %edx and ZF is
 * the cmpxchg's result.  Arguments come on the stack (cdecl); %ebx is
 * callee-saved, so it is pushed around its use as the zero source.
 */
#ifdef __CET__
# define ENDBR endbr32
#else
# define ENDBR
#endif

	.text

	.globl	robust_list2_try_unlock32
	.type	robust_list2_try_unlock32, @function
	.p2align 4
robust_list2_try_unlock32:
	.cfi_startproc
	ENDBR
	movl	4(%esp), %ecx		/* lock */
	movl	8(%esp), %eax		/* expected: tid */
	movl	12(%esp), %edx		/* pop */
	pushl	%ebx
	.cfi_adjust_cfa_offset 4
	xorl	%ebx, %ebx
	lock cmpxchgl %ebx, (%ecx)
	.globl	rl2__window32_start
	.hidden	rl2__window32_start
rl2__window32_start:
	jnz	1f
	movl	$0, (%edx)
	.globl	rl2__window32_end
	.hidden	rl2__window32_end
rl2__window32_end:
1:	popl	%ebx
	.cfi_adjust_cfa_offset -4
	ret
	.cfi_endproc
	.size	robust_list2_try_unlock32, .-robust_list2_try_unlock32

	/* A 64-bit pending field from a 32-bit process: two stores. */
	.globl	robust_list2_try_unlock64
	.type	robust_list2_try_unlock64, @function
	.p2align 4
robust_list2_try_unlock64:
	.cfi_startproc
	ENDBR
	movl	4(%esp), %ecx
	movl	8(%esp), %eax
	movl	12(%esp), %edx
	pushl	%ebx
	.cfi_adjust_cfa_offset 4
	xorl	%ebx, %ebx
	lock cmpxchgl %ebx, (%ecx)
	.globl	rl2__window64_start
	.hidden	rl2__window64_start
rl2__window64_start:
	jnz	1f
	movl	$0, (%edx)
	movl	$0, 4(%edx)
	.globl	rl2__window64_end
	.hidden	rl2__window64_end
rl2__window64_end:
1:	popl	%ebx
	.cfi_adjust_cfa_offset -4
	ret
	.cfi_endproc
	.size	robust_list2_try_unlock64, .-robust_list2_try_unlock64

	.section .note.GNU-stack, "", @progbits
