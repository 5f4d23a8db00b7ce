/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The native backend: set_robust_list2()/get_robust_list2() as system calls
 * of a kernel that has them (kernel-series/), compiled in only by
 * `make lib NATIVE=<kernel>`, against that kernel's exported headers
 * (native.c).  Each function returns a value >= 0 or -errno, and -ENOSYS
 * where the running kernel has no such system call: only then does the
 * library go to /dev/robust_list2.  In the default build these are stubs
 * answering -ENOSYS, which the compiler folds away: the default objects
 * contain no system call at all (tests/host/t_native_syscalls.sh).
 */
#ifndef RL2_NATIVE_H
#define RL2_NATIVE_H

#include <errno.h>
#include <stdint.h>

struct robust_list2_info;

#ifdef RL2_NATIVE
/* 1 if the running kernel has the system calls (probed once), else 0. */
int rl2__native_present(void) __attribute__((visibility("hidden")));
long rl2__native_set(void *head, unsigned int index, unsigned int cmd,
		     unsigned int flags) __attribute__((visibility("hidden")));
long rl2__native_get(int pid, void **head_ptr, unsigned int index,
		     unsigned int flags) __attribute__((visibility("hidden")));
/* CREATE_64/_32 for @cmd SET_64/_SET_32: the slot, or -errno. */
long rl2__native_create(void *head, unsigned int cmd)
	__attribute__((visibility("hidden")));
/* What the kernel's headers and LIST_LIMIT say (robust_list2_info(3)). */
long rl2__native_info(struct robust_list2_info *info)
	__attribute__((visibility("hidden")));
/* Forget the probe (the host tests' fake kernel changes its answer). */
void rl2__native_reset(void) __attribute__((visibility("hidden")));
#else
static inline int rl2__native_present(void)
{
	return 0;
}

static inline long rl2__native_set(void *head, unsigned int index,
				   unsigned int cmd, unsigned int flags)
{
	(void)head, (void)index, (void)cmd, (void)flags;
	return -ENOSYS;
}

static inline long rl2__native_get(int pid, void **head_ptr,
				   unsigned int index, unsigned int flags)
{
	(void)pid, (void)head_ptr, (void)index, (void)flags;
	return -ENOSYS;
}

static inline long rl2__native_create(void *head, unsigned int cmd)
{
	(void)head, (void)cmd;
	return -ENOSYS;
}

static inline long rl2__native_info(struct robust_list2_info *info)
{
	(void)info;
	return -ENOSYS;
}
#endif

#endif /* RL2_NATIVE_H */
