/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cg_*: a cgroup v2 child group of our own, for the suites that freeze or
 * OOM-kill a process (t_freezer, t_oom).  Needs root.
 *
 * cg_setup_group() mounts cgroup2 on CG_ROOT when nothing is mounted
 * there, enables the memory controller in the root's subtree_control if
 * asked to and not yet on, and makes CG_ROOT/<name>-<pid>.  cg_teardown()
 * (a cmocka teardown) kills the tracked children (th_kill_kids()) and
 * whatever is left in the group, thaws it, removes it and undoes the rest,
 * so a failed case leaves nothing behind.
 */
#ifndef TH_CGROUP_H
#define TH_CGROUP_H

#include <stdbool.h>
#include <sys/types.h>

#define CG_ROOT		"/sys/fs/cgroup"

struct cg_group {
	char path[128];		/* our child group, "" if none */
	bool mounted;		/* we mounted cgroup2 on CG_ROOT */
	bool memory_enabled;	/* we enabled +memory in the root's subtree_control */
};

extern struct cg_group cg;

/* Mount cgroup2 if needed and make our group; with @memory, under memcg. 0 or -errno. */
int cg_setup_group(const char *name, bool memory);
int cg_teardown(void **state);

/* "<cg.path>/<name>", in a static buffer (valid until the next call). */
const char *cg_file(const char *name);
/* "key value" in cgroup.events / memory.events; -1 if absent. */
long cg_event(const char *file, const char *key);
/* Bounded wait until cgroup.events says @key @want. */
bool cg_wait_event(const char *key, long want, int timeout_ms);
/* Move @pid into the group, and assert (cmocka) that it is there. */
void cg_enter(pid_t pid);

/*
 * Open or close the window in which tests/qemu/init.sh tolerates the OOM
 * killer's stack dump ("Call Trace:") in the kernel log, and only that.
 * Closing an unopened window does nothing; cg_teardown() closes it.
 */
void cg_oom_window(bool open);

#endif /* TH_CGROUP_H */
