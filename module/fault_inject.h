/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection for the VM tests (fault_inject.c): compiled in only when
 * the module is built with RL2_FAULT_INJECT=1 (scripts/build-module
 * --fault-inject); in every other build these are constant false and
 * vanish.
 */
#ifndef _RL2_FAULT_INJECT_H
#define _RL2_FAULT_INJECT_H

#include <linux/types.h>

/* Bugs make fuzz must find (fi_plant, a mask of these). */
#define RL2_FI_PLANT_OVERRUN	0x1	/* a walk writes past its list */
#define RL2_FI_PLANT_LOST_WAKE	0x2	/* a 32-bit list's waiters are not woken */
#define RL2_FI_PLANT_RACE	0x4	/* a data race in every ioctl (KCSAN) */

#ifdef RL2_FAULT_INJECT
int rl2_fi_unregister_error(void);
bool rl2_fi_skip_redirect(const char *sym);
bool rl2_fi_unlock_race(void);
u32 __user *rl2_fi_wake_addr(u32 __user *u, bool is32);
void rl2_fi_list_end(unsigned long past, unsigned long n);
bool rl2_fi_cov_start(void);
void rl2_fi_cov_stop(bool started);
#else
static inline int rl2_fi_unregister_error(void)
{
	return 0;
}

static inline bool rl2_fi_skip_redirect(const char *sym)
{
	return false;
}

static inline bool rl2_fi_unlock_race(void)
{
	return false;
}

static inline u32 __user *rl2_fi_wake_addr(u32 __user *u, bool is32)
{
	return u;
}

static inline void rl2_fi_list_end(unsigned long past, unsigned long n)
{
}

static inline bool rl2_fi_cov_start(void)
{
	return false;
}

static inline void rl2_fi_cov_stop(bool started)
{
}
#endif

#endif /* _RL2_FAULT_INJECT_H */
