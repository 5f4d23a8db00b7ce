// SPDX-License-Identifier: GPL-2.0
/*
 * Copies of the header's inline try-unlock in an object of their own, one
 * per function, for t_unlock_race: the module must recognise every copy
 * in a process, not only the library's or the test's own.
 */
#include "try_unlock_copy.h"

#ifdef ROBUST_LIST2_HAVE_TRY_UNLOCK_INLINE
__attribute__((noinline)) uint32_t th_try_unlock64_copy(uint32_t *lock, uint32_t tid,
							 uint64_t *pop)
{
	return robust_list2_try_unlock64_inline(lock, tid, pop);
}

__attribute__((noinline)) uint32_t th_try_unlock32_copy(uint32_t *lock, uint32_t tid,
							 uint32_t *pop)
{
	return robust_list2_try_unlock32_inline(lock, tid, pop);
}

#endif

#if defined(__x86_64__) || defined(__i386__)
/*
 * The header's instructions with the jnz in its long form (0f 85 rel32),
 * as a compiler emits it when the slow path is far away, e.g. in
 * .text.unlikely: the module must recognise that form as well.
 */
__attribute__((noinline)) uint32_t th_try_unlock32_far(uint32_t *lock, uint32_t tid,
							uint32_t *pop)
{
	__asm__ __volatile__ goto("movl %k[t], %%eax\n\t"
				  ROBUST_LIST2_TRY_UNLOCK_CAS "\n\t"
				  "%{disp32%} jnz %l[busy]\n\t"
				  ROBUST_LIST2_TRY_UNLOCK32_STORE
				  : : [t] "r" (tid), ROBUST_LIST2_TRY_UNLOCK_REGS(lock, pop)
				  : "eax", "memory", "cc" : busy);
	return tid;
busy:
	return __atomic_load_n(lock, __ATOMIC_RELAXED);
}
#endif

#ifdef __aarch64__
#include <sys/auxv.h>
#include <asm/hwcap.h>

bool th_have_lse(void)
{
	return getauxval(AT_HWCAP) & HWCAP_ATOMICS;
}

__attribute__((noinline)) uint32_t th_try_unlock64_lse(uint32_t *lock, uint32_t tid,
							uint64_t *pop)
{
	ROBUST_LIST2_TRY_UNLOCK_ASM_LSE(ROBUST_LIST2_TRY_UNLOCK64_STORE, tid, lock, pop, busy);
	return tid;
busy:
	return __atomic_load_n(lock, __ATOMIC_RELAXED);
}

__attribute__((noinline)) uint32_t th_try_unlock32_lse(uint32_t *lock, uint32_t tid,
							uint32_t *pop)
{
	ROBUST_LIST2_TRY_UNLOCK_ASM_LSE(ROBUST_LIST2_TRY_UNLOCK32_STORE, tid, lock, pop, busy);
	return tid;
busy:
	return __atomic_load_n(lock, __ATOMIC_RELAXED);
}

/* stlxr w17, wzr, [x0]; nop; cbnz w17, <the ldxr>: not the header's bytes */
#define TH_UNKNOWN_TAIL ".inst 0x8811fc1f, 0xd503201f, 0x35ffff71"

__attribute__((noinline)) uint32_t th_try_unlock64_unknown(uint32_t *lock, uint32_t tid,
							    uint64_t *pop)
{
	ROBUST_LIST2_TRY_UNLOCK_ASM_FORM(ROBUST_LIST2_TRY_UNLOCK_LLSC_HEAD, TH_UNKNOWN_TAIL,
					 ROBUST_LIST2_TRY_UNLOCK64_STORE, tid, lock, pop, busy);
	return tid;
busy:
	return __atomic_load_n(lock, __ATOMIC_RELAXED);
}

__attribute__((noinline)) uint32_t th_try_unlock32_unknown(uint32_t *lock, uint32_t tid,
							    uint32_t *pop)
{
	ROBUST_LIST2_TRY_UNLOCK_ASM_FORM(ROBUST_LIST2_TRY_UNLOCK_LLSC_HEAD, TH_UNKNOWN_TAIL,
					 ROBUST_LIST2_TRY_UNLOCK32_STORE, tid, lock, pop, busy);
	return tid;
busy:
	return __atomic_load_n(lock, __ATOMIC_RELAXED);
}
#endif
