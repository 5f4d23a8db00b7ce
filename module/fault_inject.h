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

#ifdef RL2_FAULT_INJECT
int rl2_fi_unregister_error(void);
bool rl2_fi_skip_redirect(const char *sym);
bool rl2_fi_unlock_race(void);
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
#endif

#endif /* _RL2_FAULT_INJECT_H */
