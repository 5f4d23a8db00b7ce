/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * Robust futex try-unlock without a system call, AArch64 (mainline's vDSO
 * __vdso_futex_robust_list{64,32}_try_unlock contract):
 *
 *	uint32_t robust_list2_try_unlock64(uint32_t *lock, uint32_t tid,
 *					   uint64_t *pop);
 *	uint32_t robust_list2_try_unlock32(uint32_t *lock, uint32_t tid,
 *					   uint32_t *pop);
 *
 * If *lock == tid, store 0 in *lock (with release ordering) and then in
 * *pop; return the word seen before.  A caller that gets anything other
 * than tid back still holds the lock and unlocks through the kernel.
 *
 * Load/store-exclusive, not LSE, so that it runs on every ARMv8.0 CPU.
 * The window [rl2__window*_start, rl2__window*_end) that the library
 * registers with the module starts right after the exclusive store: there
 * x2 holds pop, Z is set (the word compared equal) and w3 is the store's
 * status (0: the word was released; the old word, equal to the tid, is in
 * w1).  A thread that dies there with Z set and w3 == 0 gets its unlock
 * finished by the module (module/arch-arm64.h) instead of its released lock
 * marked FUTEX_OWNER_DIED.  Keep exactly that property when editing:
 * nothing in the window may change x2, w3 or the flags.
 */
#if defined(__ARM_FEATURE_BTI_DEFAULT)
# define BTI_C	hint	#34	/* bti c: a NOP where BTI is off */
#else
# define BTI_C
#endif

	.text

	.globl	robust_list2_try_unlock64
	.type	robust_list2_try_unlock64, %function
	.p2align 4
robust_list2_try_unlock64:
	.cfi_startproc
	BTI_C
1:	ldxr	w3, [x0]
	cmp	w3, w1
	b.ne	2f
	stlxr	w3, wzr, [x0]		/* w3 = 0: released (the old word was w1) */
	.globl	rl2__window64_start
	.hidden	rl2__window64_start
rl2__window64_start:
	cbnz	w3, 1b			/* lost the reservation: again */
	str	xzr, [x2]		/* *pop = 0 */
	.globl	rl2__window64_end
	.hidden	rl2__window64_end
rl2__window64_end:
	mov	w0, w1
	ret
2:	clrex
	mov	w0, w3
	ret
	.cfi_endproc
	.size	robust_list2_try_unlock64, .-robust_list2_try_unlock64

	.globl	robust_list2_try_unlock32
	.type	robust_list2_try_unlock32, %function
	.p2align 4
robust_list2_try_unlock32:
	.cfi_startproc
	BTI_C
1:	ldxr	w3, [x0]
	cmp	w3, w1
	b.ne	2f
	stlxr	w3, wzr, [x0]
	.globl	rl2__window32_start
	.hidden	rl2__window32_start
rl2__window32_start:
	cbnz	w3, 1b
	str	wzr, [x2]		/* *pop = 0, a 32-bit field */
	.globl	rl2__window32_end
	.hidden	rl2__window32_end
rl2__window32_end:
	mov	w0, w1
	ret
2:	clrex
	mov	w0, w3
	ret
	.cfi_endproc
	.size	robust_list2_try_unlock32, .-robust_list2_try_unlock32

#if defined(__ARM_FEATURE_BTI_DEFAULT) || defined(__ARM_FEATURE_PAC_DEFAULT)
/* GNU property note: this object is BTI-compatible (and needs no PAC). */
	.pushsection .note.gnu.property, "a"
	.p2align 3
	.word	4
	.word	16
	.word	5			/* NT_GNU_PROPERTY_TYPE_0 */
	.asciz	"GNU"
	.word	0xc0000000		/* GNU_PROPERTY_AARCH64_FEATURE_1_AND */
	.word	4
	.word	1			/* BTI */
	.word	0
	.popsection
#endif

	.section .note.GNU-stack, "", %progbits
