// SPDX-License-Identifier: GPL-2.0
/*
 * OOM kill (SPEC "Reliability and security"): a process the OOM killer
 * ends inside a memory cgroup has its locks recovered, in our slots and
 * on the legacy list, and their waiters woken (the victim: lib/victim.c).
 * The kernel log must name the kill and the cgroup.
 *
 * An OOM victim's exit has a deadline of at most 1 s for pages (module/
 * uaccess.c): the OOM reaper takes its private memory 2 s after the kill
 * (5.18 on), where list heads live, so a walk held longer on one list
 * (here a word on a FUSE page that is never read) would find the next
 * list's head gone and lose its locks; the second case checks that it
 * does not.
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
#include <sys/mman.h>
#include <sys/utsname.h>
#include <cmocka.h>

#include "cgroup.h"
#include "fusesrv.h"
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

static struct fs_srv srv = {
	.fd = -1,
	.mnt = "/tmp/rl2-oom-fuse",
	.file = { { "u", FS_NO_READ } },
};

struct stalled {
	uint32_t ready, go;
	int32_t err;
	uint32_t tid;
	struct th_lock64 l;	/* slot 1's lock, in shared memory; its head is private */
};

/*
 * Slot 0: one entry whose word is on a page of "u" that is never read;
 * slot 1: a private head (malloc()) and a lock in shared memory.  Then eat
 * memory until the OOM killer ends it.
 */
static int stalled_main(void *p)
{
	struct stalled *v = p;
	struct robust_list_head *h0 = malloc(sizeof(*h0)), *h1 = malloc(sizeof(*h1));
	struct robust_list *n = malloc(sizeof(*n));
	char path[128], *u;
	int fd = open(fs_path(&srv, "u", path, sizeof(path)), O_RDWR);

	if (!h0 || !h1 || !n || fd < 0)
		return 2;
	u = mmap(NULL, th_page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (u == MAP_FAILED)
		return 3;
	h0->list.next = n;
	n->next = &h0->list;
	h0->futex_offset = u - (char *)n;
	h0->list_op_pending = NULL;
	th_list64_init(h1, TH_OFF64);
	v->l.futex = th_gettid();
	th_list64_add(h1, &v->l, false);
	v->err = set_robust_list2(h0, 0, TH_NATIVE, 0) || set_robust_list2(h1, 1, TH_NATIVE, 0) ?
		 errno : 0;
	v->tid = th_gettid();
	th_set_flag(&v->ready, 1);
	if (!th_wait_flag(&v->go, 1, TH_TIMEOUT_MS))
		return 4;
	for (;;) {
		char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return 5;
		memset(m, 1, 1 << 20);
	}
}

/* Does this kernel's OOM reaper wait for the victim's futex cleanup (5.18)? */
static bool reaper_waits(void)
{
	struct utsname u;
	int maj, min;

	return !uname(&u) && sscanf(u.release, "%d.%d", &maj, &min) == 2 &&
	       (maj > 5 || (maj == 5 && min >= 18));
}

static void test_oom_victim_reads_every_head_before_the_reaper(void **state)
{
	struct stalled *v = th_shared_alloc(sizeof(*v), false);
	struct robust_list2_stats st0, st1;
	struct th_waiter w;
	char path[128];
	int status, fd;
	long t0;
	pid_t pid;

	TH_NATIVE_DIFFERS("no exit deadline: the walk waits on the stalled page as the legacy one does");
	if (!cg.path[0] || srv.fd < 0)
		skip();
	if (!reaper_waits()) {
		print_message("# the OOM reaper does not wait for futex cleanup before 5.18\n");
		skip();
	}
	if (sizeof(long) != 8) {
		print_message("# 64-bit only: the deadline does not depend on the ABI\n");
		skip();
	}
	assert_non_null(v);
	assert_int_equal(0, th_write_file(cg_file("memory.max"), "32M"));
	if (access(cg_file("memory.swap.max"), F_OK) == 0)
		assert_int_equal(0, th_write_file(cg_file("memory.swap.max"), "0"));
	/* the default deadline, 10 s: longer than the reaper waits */
	assert_int_equal(0, th_write_file("/sys/module/robust_list2/parameters/io_wait_ms",
					  "10000"));

	/*
	 * The page's READ started here, in our cgroup, and is never answered:
	 * the victim's fault finds it locked and waits (its full cgroup could
	 * not even allocate the page, which fails the fault at once).
	 */
	fd = open(fs_path(&srv, "u", path, sizeof(path)), O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(0, posix_fadvise(fd, 0, th_page_size(), POSIX_FADV_WILLNEED));
	close(fd);
	for (int i = 0; i < 500 && !srv.reads; i++)
		th_sleep_ms(10);
	assert_true(srv.reads > 0);

	pid = th_spawn_kid(stalled_main, v);
	assert_true(pid > 0);
	assert_true(th_wait_flag(&v->ready, 1, TH_TIMEOUT_MS));
	assert_int_equal(0, v->err);
	cg_enter(pid);
	w = (struct th_waiter){ .uaddr = &v->l.futex, .val = v->tid | FUTEX_WAITERS,
				.timeout_ms = 20000 };
	assert_int_equal(v->tid, __sync_val_compare_and_swap(&v->l.futex, v->tid,
							     v->tid | FUTEX_WAITERS));
	assert_int_equal(0, th_waiter_start(&w));
	assert_int_equal(0, th_wait_futex_sleeper(getpid(), w.tid, &v->l.futex));

	assert_int_equal(0, robust_list2_stats(&st0));
	cg_oom_window(true);
	t0 = th_now_ms();
	th_set_flag(&v->go, 1);
	status = th_reap_kid(pid, 6 * TH_TIMEOUT_MS);
	cg_oom_window(false);
	th_waiter_join(&w);
	print_message("# OOM victim with a stalled first list: status %d after %ld ms, its second "
		      "list's word 0x%08x, waiter %s\n", status, th_now_ms() - t0, v->l.futex,
		      w.result ? "not woken" : "woken");
	assert_int_equal(0, robust_list2_stats(&st1));
	assert_int_equal(128 + SIGKILL, status);
	/* the first list's word was given up at the deadline, not failed at once */
	assert_int_equal(1, st1.io_timeouts - st0.io_timeouts);
	assert_true(cg_event("memory.events", "oom_kill") >= 1);
	assert_true(v->l.futex & FUTEX_OWNER_DIED);
	assert_int_equal(0, w.result);
	th_free(v, sizeof(*v));
}

static int stalled_setup(void **state)
{
	if (geteuid() == 0 && th_have_device() && fs_start(&srv))
		fs_stop(&srv);
	return oom_setup(state);
}

static int stalled_teardown(void **state)
{
	fs_stop(&srv);
	th_write_file("/sys/module/robust_list2/parameters/io_wait_ms", "10000");
	return cg_teardown(state);
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
		cmocka_unit_test_setup_teardown(test_oom_victim_reads_every_head_before_the_reaper,
						stalled_setup, stalled_teardown),
	};

	if (getenv("RL2_TEST_FILTER"))		/* e.g. RL2_TEST_FILTER='test_oom_*' */
		cmocka_set_test_filter(getenv("RL2_TEST_FILTER"));
	return cmocka_run_group_tests_name("oom", tests, NULL, NULL);
}
