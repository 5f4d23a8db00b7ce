// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection for the VM tests: module parameters, writable by root at
 * run time under /sys/module/robust_list2/parameters/, that make the
 * module take paths no stock kernel can be made to take on demand.  Only
 * in the test build (RL2_FAULT_INJECT=1); never in a DKMS or package build.
 *
 *   fi_unregister_errno  N > 0: every ftrace ops unregistration fails with
 *                        -N and leaves the ops registered, as after
 *                        ftrace_kill() (-ENODEV is 19)
 *   fi_no_redirect       a kernel function name (do_futex,
 *                        ptrace_may_access): its kcall stub is left out of
 *                        the ops's filter when the module loads (give it to
 *                        insmod); the exit hook's resume of the release
 *                        bodies is no redirect, so naming them does nothing
 *   fi_unlock_races      the next N compare-exchanges of the unlock ioctl
 *                        lose as if another thread changed the word first
 *                        (4294967295: every one, until reset)
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "fault_inject.h"

static int fi_unregister_errno;
module_param(fi_unregister_errno, int, 0600);
MODULE_PARM_DESC(fi_unregister_errno, "test build: ftrace ops unregistration fails with -N");

static char fi_no_redirect[32];
module_param_string(fi_no_redirect, fi_no_redirect, sizeof(fi_no_redirect), 0600);
MODULE_PARM_DESC(fi_no_redirect, "test build: leave this function's kcall stub unredirected");

static unsigned int fi_unlock_races;
module_param(fi_unlock_races, uint, 0600);
MODULE_PARM_DESC(fi_unlock_races, "test build: the next N unlock compare-exchanges lose");

int rl2_fi_unregister_error(void)
{
	int e = READ_ONCE(fi_unregister_errno);

	return e > 0 && e < MAX_ERRNO ? -e : 0;
}

bool rl2_fi_skip_redirect(const char *sym)
{
	/* the parameter may end in the newline of an "echo name >" */
	size_t n = strlen(sym);

	return !strncmp(fi_no_redirect, sym, n) &&
	       (!fi_no_redirect[n] || fi_no_redirect[n] == '\n');
}

bool rl2_fi_unlock_race(void)
{
	unsigned int v = READ_ONCE(fi_unlock_races);

	if (v == UINT_MAX)
		return true;
	while (v && !try_cmpxchg(&fi_unlock_races, &v, v - 1))
		;
	return v != 0;
}
