// SPDX-License-Identifier: GPL-2.0
/*
 * cg_*: our own cgroup v2 child group; see cgroup.h.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <cmocka.h>

#include "cgroup.h"
#include "helpers.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif

struct cg_group cg;

static char cg_file_path[192];

const char *cg_file(const char *name)
{
	snprintf(cg_file_path, sizeof(cg_file_path), "%s/%s", cg.path, name);
	return cg_file_path;
}

/* Mount cgroup2 if needed and make our group; with @memory, under memcg. */
int cg_setup_group(const char *name, bool memory)
{
	struct statfs sf;
	char buf[512];

	if (geteuid() != 0)
		return -EPERM;
	if (statfs(CG_ROOT, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC) {
		if (mount("none", CG_ROOT, "cgroup2", 0, NULL))
			return -errno;
		cg.mounted = true;
	}
	if (memory) {
		if (th_read_file(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)) <= 0 ||
		    !strstr(buf, "memory"))
			return -ENODEV;
		if (th_read_file(CG_ROOT "/cgroup.subtree_control", buf, sizeof(buf)) < 0)
			return -ENODEV;
		if (!strstr(buf, "memory")) {
			if (th_write_file(CG_ROOT "/cgroup.subtree_control", "+memory"))
				return -ENODEV;
			cg.memory_enabled = true;
		}
	}
	snprintf(cg.path, sizeof(cg.path), CG_ROOT "/%s-%d", name, (int)getpid());
	rmdir(cg.path);
	if (mkdir(cg.path, 0755)) {
		cg.path[0] = 0;
		return -errno;
	}
	return 0;
}

/* "key value" in cgroup.events / memory.events; -1 if absent. */
long cg_event(const char *file, const char *key)
{
	char buf[1024], *p;
	size_t kl = strlen(key);

	if (th_read_file(cg_file(file), buf, sizeof(buf)) <= 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtol(p + kl + 1, NULL, 10);
	return -1;
}

bool cg_wait_event(const char *key, long want, int timeout_ms)
{
	long deadline = th_now_ms() + timeout_ms;

	while (cg_event("cgroup.events", key) != want) {
		if (th_now_ms() > deadline)
			return false;
		th_sleep_ms(1);
	}
	return true;
}

int cg_teardown(void **state)
{
	th_kill_kids();
	cg_oom_window(false);
	if (cg.path[0]) {
		/* a failed test may have left a frozen victim behind */
		if (th_write_file(cg_file("cgroup.kill"), "1")) {
			char buf[4096], *p = buf;

			if (th_read_file(cg_file("cgroup.procs"), buf, sizeof(buf)) > 0)
				while (*p) {
					kill((pid_t)strtol(p, &p, 10), SIGKILL);
					while (*p == '\n')
						p++;
				}
		}
		th_write_file(cg_file("cgroup.freeze"), "0");
		cg_wait_event("populated", 0, TH_TIMEOUT_MS);
		if (rmdir(cg.path))
			fprintf(stderr, "# rmdir %s: %s\n", cg.path, strerror(errno));
		cg.path[0] = 0;
	}
	if (cg.memory_enabled) {
		th_write_file(CG_ROOT "/cgroup.subtree_control", "-memory");
		cg.memory_enabled = false;
	}
	if (cg.mounted) {
		umount(CG_ROOT);
		cg.mounted = false;
	}
	return 0;
}

void cg_enter(pid_t pid)
{
	char buf[512], want[160];

	snprintf(buf, sizeof(buf), "%d", (int)pid);
	assert_int_equal(0, th_write_file(cg_file("cgroup.procs"), buf));
	snprintf(buf, sizeof(buf), "/proc/%d/cgroup", (int)pid);
	assert_true(th_read_file(buf, buf, sizeof(buf)) > 0);
	snprintf(want, sizeof(want), "0::%s\n", cg.path + strlen(CG_ROOT));
	assert_non_null(strstr(buf, want));
}

/* Markers for tests/qemu/init.sh (its OOM_BEGIN and OOM_END). */
#define OOM_BEGIN	"robust_list2-harness: expected OOM begin"
#define OOM_END		"robust_list2-harness: expected OOM end"

static bool oom_open;

void cg_oom_window(bool open)
{
	if (open == oom_open)
		return;
	if (th_write_file("/dev/kmsg", open ? OOM_BEGIN : OOM_END))
		fprintf(stderr, "# cannot write to /dev/kmsg\n");
	oom_open = open;
}
