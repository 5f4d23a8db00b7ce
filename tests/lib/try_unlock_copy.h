/* SPDX-License-Identifier: GPL-2.0 */
/* Inline try-unlock copies in an object of their own (try_unlock_copy.c). */
#ifndef TH_TRY_UNLOCK_COPY_H
#define TH_TRY_UNLOCK_COPY_H

#include <stdint.h>
#include <robust_list2.h>

#ifdef ROBUST_LIST2_HAVE_TRY_UNLOCK_INLINE
uint32_t th_try_unlock64_copy(uint32_t *lock, uint32_t tid, uint64_t *pop);
uint32_t th_try_unlock32_copy(uint32_t *lock, uint32_t tid, uint32_t *pop);
uint32_t th_try_unlock32_far(uint32_t *lock, uint32_t tid, uint32_t *pop);
#endif

#endif /* TH_TRY_UNLOCK_COPY_H */
