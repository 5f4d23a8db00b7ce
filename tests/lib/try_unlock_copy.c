// SPDX-License-Identifier: GPL-2.0
/*
 * Copies of the header's inline try-unlock in an object of their own, one
 * per function, for t_unlock's race: the module must recognise every copy
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
