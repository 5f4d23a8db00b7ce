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
 *   fi_plant             a mask of RL2_FI_PLANT_* bugs (fault_inject.h)
 *                        that make fuzz and the KCSAN run must find
 *
 * And, on a kernel with CONFIG_KCOV, the fuzzer's feedback (make fuzz):
 * every ioctl and every exit or exec wrapper is a KCOV remote section of
 * the common handle the calling task inherited from the fuzzer's
 * KCOV_REMOTE_ENABLE, so the fuzzer sees the module code its programs
 * ran, also in a thread that dies (do_exit() turns a task's own KCOV off
 * before exit_mm()).  Tasks without a handle pay one read.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/kcov.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "compat.h"
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

static unsigned int fi_plant;
module_param(fi_plant, uint, 0600);
MODULE_PARM_DESC(fi_plant, "test build: bugs to plant (1 overrun, 2 lost wake, 4 data race)");

/* Written without a lock on purpose by RL2_FI_PLANT_RACE. */
static unsigned long rl2_fi_racy;

static bool rl2_fi_plant(unsigned int bug)
{
	return READ_ONCE(fi_plant) & bug;
}

/* RL2_FI_PLANT_LOST_WAKE: a 32-bit list's wake goes to no address. */
u32 __user *rl2_fi_wake_addr(u32 __user *u, bool is32)
{
	return is32 && rl2_fi_plant(RL2_FI_PLANT_LOST_WAKE) ? NULL : u;
}

/*
 * RL2_FI_PLANT_OVERRUN: a walk that came back to the head after @n >= 3
 * entries clears the 4 bytes right after the head (@past, a host address
 * the walk never checked).
 */
void rl2_fi_list_end(unsigned long past, unsigned long n)
{
	if (n >= 3 && rl2_fi_plant(RL2_FI_PLANT_OVERRUN) && past < TASK_SIZE)
		(void)put_user(0U, (u32 __user *)past);
}

/*
 * kcov_common_handle() returns a struct kcov_common_handle_id on 7.2 (a
 * u64 before; 6.12 has the u64), empty without CONFIG_KCOV.  Only the
 * test build uses it, so a kernel between the two with the wrong guess
 * fails to build that build, not the module users get.
 */
static u64 rl2_fi_kcov_handle(void)
{
#if !IS_ENABLED(CONFIG_KCOV)
	return 0;
#elif defined(RL2_KCOV_HANDLE_STRUCT)
	return kcov_common_handle().val;
#else
	return kcov_common_handle();
#endif
}

bool rl2_fi_cov_start(void)
{
	u64 handle = rl2_fi_kcov_handle();

	if (rl2_fi_plant(RL2_FI_PLANT_RACE))
		rl2_fi_racy++;
	if (!handle)
		return false;
	kcov_remote_start(handle);
	return true;
}

void rl2_fi_cov_stop(bool started)
{
	if (started)
		kcov_remote_stop();
}

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
