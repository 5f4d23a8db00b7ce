// SPDX-License-Identifier: GPL-2.0
/*
 * OOM kill (SPEC "Reliability and security"): a process the OOM killer
 * ends inside a memory cgroup has its locks recovered, in our slots and
 * on the legacy list, and their waiters woken (the victim: lib/victim.c).
 * The kernel log must name the kill and the cgroup.
 *
 * Needs root (cgroups, /dev/kmsg) and the memory controller, which the VM
 * has; without them the case skips, not passes.  The victim dies in a
 * forked child, every wait is bounded, waiters are confirmed asleep
 * through /proc.  RL2_TEST_FILTER runs a subset.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cgroup.h"
#include "helpers.h"
#include "victim.h"

/* /dev/kmsg positioned at its end: later reads see only new records. */
static int kmsg_open_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * Read the records from @fd on: is there one with both @a1 and @a2, and
 * (in *@found_b) one with both @b1 and @b2?
 */
static bool kmsg_find(int fd, const char *a1, const char *a2, bool *found_b,
		      const char *b1, const char *b2)
{
	char rec[8192];
	bool found_a = false;

	*found_b = false;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);

		if (n < 0 && errno == EPIPE)	/* overwritten under us: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		if (strstr(rec, a1) && strstr(rec, a2))
			found_a = true;
		if (strstr(rec, b1) && strstr(rec, b2))
			*found_b = true;
	}
	return found_a;
}

static int oom_setup(void **state)
{
	int err = cg_setup_group("rl2-oom", true);

	if (err)
		fprintf(stderr, "# memory cgroup unavailable: %s\n", strerror(-err));
	return 0;	/* the test skips when cg.path is empty */
}

/*
 * The OOM killer's victim dies of SIGKILL like any other, but two things
 * differ: it dies with its memory cgroup at its limit, and the OOM reaper
 * (mm/oom_kill.c, __oom_reap_task_mm) may unmap its *private* anonymous
 * memory before or while the exit walk runs.  A robust futex word in
 * private memory can then read as 0 and be left alone -- by the kernel's
 * own legacy walk as much as by ours, and harmlessly so, since nobody else
 * can see private memory.  Locks other processes wait on live in shared
 * memory, which the reaper skips (VM_SHARED; shared anonymous memory is
 * shmem): that is what we test, with the lists and words in MAP_SHARED
 * memory the parent allocated (so charged to the parent's cgroup, not to
 * the victim's full one).
 */
static void test_oom_kill(void **state)
{
	struct victim *v;
	char pidstr[64], memcg[160];
	bool kill_line, summary;
	int kfd, status;
	pid_t pid;

	if (!cg.path[0])
		skip();
	assert_int_equal(0, th_write_file(cg_file("memory.max"), "32M"));
	if (access(cg_file("memory.swap.max"), F_OK) == 0)
		assert_int_equal(0, th_write_file(cg_file("memory.swap.max"), "0"));

	v = victim_new(V_OOM);
	pid = victim_start(v);
	cg_enter(pid);
	victim_check_untouched(v, pid);

	kfd = kmsg_open_end();
	assert_true(kfd >= 0);
	cg_oom_window(true);

	th_set_flag(&v->go, 1);
	status = th_reap_kid(pid, 6 * TH_TIMEOUT_MS);
	cg_oom_window(false);

	if (status != 128 + SIGKILL)
		print_error("victim: status %d (63: never OOM-killed)\n", status);
	assert_int_equal(128 + SIGKILL, status);
	assert_true(cg_event("memory.events", "oom_kill") >= 1);
	snprintf(pidstr, sizeof(pidstr), "Killed process %d (", (int)pid);
	snprintf(memcg, sizeof(memcg), "task_memcg=%s,", cg.path + strlen(CG_ROOT));
	kill_line = kmsg_find(kfd, "Memory cgroup out of memory", pidstr, &summary, "oom-kill:", memcg);
	close(kfd);
	if (!kill_line || !summary)
		print_error("kernel log: '%s' %s, '%s' %s\n", pidstr,
			    kill_line ? "found" : "missing", memcg, summary ? "found" : "missing");
	assert_true(kill_line);
	assert_true(summary);
	victim_check(v);
	th_free(v, sizeof(*v));
}

/* Runs even when the test failed: no child left, the OOM window closed, then the group. */
static int oom_teardown(void **state)
{
	return cg_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_oom_kill, oom_setup, oom_teardown),
	};

	if (getenv("RL2_TEST_FILTER"))		/* e.g. RL2_TEST_FILTER='test_oom_*' */
		cmocka_set_test_filter(getenv("RL2_TEST_FILTER"));
	return cmocka_run_group_tests_name("oom", tests, NULL, NULL);
}
