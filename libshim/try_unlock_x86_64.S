/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Robust futex try-unlock without a system call, x86-64 (mainline's vDSO
 * __vdso_futex_robust_list{64,32}_try_unlock contract):
 *
 *	uint32_t robust_list2_try_unlock64(uint32_t *lock, uint32_t tid,
 *					   uint64_t *pop);
 *	uint32_t robust_list2_try_unlock32(uint32_t *lock, uint32_t tid,
 *					   uint32_t *pop);
 *
 * If *lock == tid, store 0 in *lock and then in *pop; return the word
 * seen before.  A caller that gets anything other than tid back (e.g.
 * tid | FUTEX_WAITERS) still holds the lock and unlocks through the
 * kernel (robust_list2_unlock()).
 *
 * Between the successful cmpxchg and the store to *pop the word is free
 * but the pending pointer still names it.  Those instructions form the
 * window [rl2__window*_start, rl2__window*_end) that the library registers
 * with the module: they keep pop in %rdx and leave ZF as the cmpxchg set
 * it (1 = exchanged), so a thread that dies there gets its unlock finished
 * by the module instead of its released lock marked FUTEX_OWNER_DIED.
 * Keep exactly that property when editing: nothing in the window may
 * change %rdx or the flags.
 */
#ifdef __CET__
# define ENDBR endbr64
#else
# define ENDBR
#endif

	.text

	.globl	robust_list2_try_unlock64
	.type	robust_list2_try_unlock64, @function
	.p2align 4
robust_list2_try_unlock64:
	.cfi_startproc
	ENDBR
	movl	%esi, %eax		/* expected: tid */
	xorl	%ecx, %ecx		/* new: 0 */
	lock cmpxchgl %ecx, (%rdi)	/* ZF = exchanged, %eax = old word */
	.globl	rl2__window64_start
	.hidden	rl2__window64_start
rl2__window64_start:
	jnz	1f
	movq	$0, (%rdx)		/* *pop = 0 */
	.globl	rl2__window64_end
	.hidden	rl2__window64_end
rl2__window64_end:
1:	ret
	.cfi_endproc
	.size	robust_list2_try_unlock64, .-robust_list2_try_unlock64

	.globl	robust_list2_try_unlock32
	.type	robust_list2_try_unlock32, @function
	.p2align 4
robust_list2_try_unlock32:
	.cfi_startproc
	ENDBR
	movl	%esi, %eax
	xorl	%ecx, %ecx
	lock cmpxchgl %ecx, (%rdi)
	.globl	rl2__window32_start
	.hidden	rl2__window32_start
rl2__window32_start:
	jnz	1f
	movl	$0, (%rdx)		/* *pop = 0, a 32-bit field */
	.globl	rl2__window32_end
	.hidden	rl2__window32_end
rl2__window32_end:
1:	ret
	.cfi_endproc
	.size	robust_list2_try_unlock32, .-robust_list2_try_unlock32

	.section .note.GNU-stack, "", @progbits
