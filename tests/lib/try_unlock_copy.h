/* SPDX-License-Identifier: GPL-2.0 */
/* Inline try-unlock copies in an object of their own (try_unlock_copy.c). */
#ifndef TH_TRY_UNLOCK_COPY_H
#define TH_TRY_UNLOCK_COPY_H

#include <stdbool.h>
#include <stdint.h>
#include <robust_list2.h>

#ifdef ROBUST_LIST2_HAVE_TRY_UNLOCK_INLINE
uint32_t th_try_unlock64_copy(uint32_t *lock, uint32_t tid, uint64_t *pop);
uint32_t th_try_unlock32_copy(uint32_t *lock, uint32_t tid, uint32_t *pop);
#endif

#if defined(__x86_64__) || defined(__i386__)
uint32_t th_try_unlock32_far(uint32_t *lock, uint32_t tid, uint32_t *pop);
#endif

#ifdef __aarch64__
/* The encoding of the exclusive form's "stlxr w17, wzr, [x0]". */
#define TH_A64_STLXR_W17	0x8811fc1fU

/* Does this CPU have the LSE atomics (HWCAP_ATOMICS)? */
bool th_have_lse(void);
/* The header's LSE form, whatever the compiler targets. */
uint32_t th_try_unlock64_lse(uint32_t *lock, uint32_t tid, uint64_t *pop);
uint32_t th_try_unlock32_lse(uint32_t *lock, uint32_t tid, uint32_t *pop);
/*
 * The exclusive form with one NOP inside its window: the module must not
 * know it, so a thread killed there has its released word marked (the
 * negative control of the byte recognition).
 */
uint32_t th_try_unlock64_unknown(uint32_t *lock, uint32_t tid, uint64_t *pop);
uint32_t th_try_unlock32_unknown(uint32_t *lock, uint32_t tid, uint32_t *pop);
#endif

#endif /* TH_TRY_UNLOCK_COPY_H */
