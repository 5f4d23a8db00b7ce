/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own robust unlock (Linux 7.2, x86): the vDSO try-unlock
 * functions and the FUTEX_ROBUST_UNLOCK op modifiers, for the tests and
 * the benchmark that run beside them.  Absent elsewhere: callers skip.
 */
#ifndef TH_VDSO_H
#define TH_VDSO_H

#include <stdbool.h>
#include <stdint.h>

#ifndef FUTEX_ROBUST_UNLOCK
#define FUTEX_ROBUST_UNLOCK	512	/* uapi/linux/futex.h, 7.2 */
#endif
#ifndef FUTEX_ROBUST_LIST32
#define FUTEX_ROBUST_LIST32	1024
#endif

/* __vdso_futex_robust_list{64,32}_try_unlock(lock, tid, pop) */
typedef uint32_t (*th_vdso_try_unlock_fn)(uint32_t *lock, uint32_t tid, void *pop);

/* A symbol of this process's vDSO (version LINUX_2.6), or NULL. */
void *th_vdso_sym(const char *name);

/* The try-unlock for a @pop of 8 (64) or 4 (32) bytes, or NULL. */
th_vdso_try_unlock_fn th_vdso_try_unlock(int bits);

/*
 * Does this kernel have FUTEX_ROBUST_UNLOCK?  Asks it once with a
 * harmless call (a FUTEX_WAKE of nobody on a private word); else the
 * reason in @why.
 */
bool th_have_robust_unlock(const char **why);

#endif
