// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation and user-copy failures at every point where the module makes
 * one, on kernels that can inject them (CONFIG_FAULT_INJECTION with
 * failslab, fail_page_alloc, fail_usercopy and the stack filter: the
 * debug kernels).  For N = 1, 2, ... the N-th allocation or user copy
 * made below one of the module's frames (the stack filter's require range:
 * every address above the kernel image, where module text lives) fails
 * (/proc/thread-self/fail-nth), until the call succeeds without using up
 * N.  Every failure must be a documented errno that leaves no trace: the
 * slot as it was, no record or base table left behind (the harness's
 * rmmod then finds the caches empty, or the kernel log says "Objects
 * remaining"), the next call working; a failed load must unwind every step
 * it made, so that the next load works.  Skipped where the kernel has no
 * fail-nth.
 *
 * Allocation failures print warnings with a stack dump by design (a
 * kmem_cache_create() or vmalloc() that fails): each loop runs inside the
 * harness's "expected OOM" markers, which excuse a Call Trace and nothing
 * else (tests/qemu/init.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "helpers.h"
#include "cgroup.h"

#define MAX_POINTS	256	/* more would mean fail-nth is not being used up */
#define FI_DEBUGFS	"/sys/kernel/debug/"

static const char *ko_path;
static char require_start[32];
static bool have_fail_nth;
static pid_t runner_pid;

/*
 * The registration loops run in forked children with cmocka's asserts: a
 * failing one jumps back into the child's copy of the runner, which would
 * go on with the next tests (unloading the module under the parent) and
 * the group's teardown.  Each of those ends such a child instead; the
 * parent sees its failure in the exit status.
 */
#define RUNNER_ONLY()							\
	do {								\
		if (getpid() != runner_pid) {				\
			fflush(NULL);					\
			_exit(1);					\
		}							\
	} while (0)

static const char *const fi_attrs[] = { "failslab", "fail_page_alloc", "fail_usercopy" };

static int fi_set(const char *attr, const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FI_DEBUGFS "%s/%s", attr, file);
	return th_write_file(path, val);
}

/*
 * The lowest address above the kernel image: one past the highest symbol
 * of /proc/kallsyms that is not a module's.  Module text (and nothing
 * else a kernel stack holds) lies above it.
 */
static bool kernel_image_end(uint64_t *end)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	uint64_t max = 0;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		uint64_t a = strtoull(line, NULL, 16);

		if (!strchr(line, '[') && a > max)
			max = a;
	}
	fclose(f);
	*end = max + 1;
	return max != 0;	/* 0: kptr_restrict hides the addresses */
}

static int setup(void **state)
{
	uint64_t end;
	unsigned int i;

	runner_pid = getpid();
	if (geteuid() != 0 || access("/proc/thread-self/fail-nth", W_OK) ||
	    access(FI_DEBUGFS "fail_usercopy", F_OK) ||
	    access(FI_DEBUGFS "failslab/require-start", F_OK)) {
		print_message("# no fail-nth, fail_usercopy or stack filter here (CONFIG_FAULT_INJECTION*): skipped\n");
		return 0;
	}
	if (!kernel_image_end(&end)) {
		print_message("# /proc/kallsyms hides addresses: skipped\n");
		return 0;
	}
	snprintf(require_start, sizeof(require_start), "%" PRIu64, end);
	for (i = 0; i < sizeof(fi_attrs) / sizeof(fi_attrs[0]); i++) {
		if (fi_set(fi_attrs[i], "verbose", "0") ||
		    fi_set(fi_attrs[i], "require-start", require_start) ||
		    fi_set(fi_attrs[i], "require-end", "18446744073709551615"))
			return -1;
	}
	if (fi_set("failslab", "ignore-gfp-wait", "N") ||
	    fi_set("fail_page_alloc", "ignore-gfp-wait", "N") ||
	    fi_set("fail_page_alloc", "ignore-gfp-highmem", "N") ||
	    fi_set("fail_page_alloc", "min-order", "0"))
		return -1;
	ko_path = getenv("RL2_KO") ?: "/lib/robust_list2/robust_list2.ko";
	have_fail_nth = true;
	return 0;
}

static int teardown(void **state)
{
	unsigned int i;

	RUNNER_ONLY();
	if (!have_fail_nth)
		return 0;
	for (i = 0; i < sizeof(fi_attrs) / sizeof(fi_attrs[0]); i++) {
		fi_set(fi_attrs[i], "require-start", "0");
		fi_set(fi_attrs[i], "verbose", "2");
	}
	fi_set("failslab", "ignore-gfp-wait", "Y");
	fi_set("fail_page_alloc", "ignore-gfp-wait", "Y");
	fi_set("fail_page_alloc", "ignore-gfp-highmem", "Y");
	fi_set("fail_page_alloc", "min-order", "1");
	cg_oom_window(false);
	return 0;
}

#define NEED_FAIL_NTH()							\
	do {								\
		RUNNER_ONLY();						\
		if (!have_fail_nth)					\
			skip();						\
	} while (0)

/* This thread's fail-nth: arm it with N, read what is left, disarm. */
static int nth_open(void)
{
	return open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
}

static void nth_arm(int fd, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	assert_int_equal(len, pwrite(fd, buf, len, 0));
}

/* True if the N armed was used up: a failure was injected. */
static bool nth_fired(int fd)
{
	char buf[16] = "";
	bool fired;

	assert_true(pread(fd, buf, sizeof(buf) - 1, 0) > 0);
	fired = strtoul(buf, NULL, 10) == 0;
	if (!fired)
		assert_int_equal(1, pwrite(fd, "0", 1, 0));	/* disarm */
	return fired;
}

/* One call of the loop; returns 0 or -errno. */
typedef int (*call_fn)(int dev, void *arg);

struct tally {
	unsigned int points, enomem, efault, absorbed;
};

/*
 * Run @call with the N-th failure point armed, N = 1, 2, ..., until a run
 * injects nothing: each failure must answer one of @errs (a 0-terminated
 * list) and leave what @check() checks as it was.  @check also undoes a
 * success; the last run's success is undone only if @undo_last (a load's
 * or an unlock's is what the caller wants to keep).
 */
static struct tally fail_each(const char *what, call_fn call, int dev, void *arg,
			      const int *errs, void (*check)(int dev, void *arg),
			      bool undo_last)
{
	struct tally t = { 0 };
	int fd = nth_open();
	unsigned int n, retried = 0;

	assert_true(fd >= 0);
	cg_oom_window(true);
	for (n = 1; n <= MAX_POINTS; n++) {
		const int *e;
		int ret;

		nth_arm(fd, n);
		ret = call(dev, arg);
		if (!nth_fired(fd)) {
			if (ret)
				fail_msg("%s: failed with %d without an injected failure", what, ret);
			if (check && undo_last)
				check(dev, arg);
			break;
		}
		if (!ret) {
			/*
			 * A failure the module absorbed: fine (kvcalloc()
			 * falling back to vmalloc for the registry's filter).
			 * It may have changed what comes first -- the filter,
			 * made once per load, is there now -- so the same N
			 * runs once more, or the point after it is never hit.
			 */
			t.absorbed++;
			if (check)
				check(dev, arg);	/* and undo the success */
			if (retried != n) {
				retried = n;
				n--;
			}
			continue;
		}
		for (e = errs; *e && *e != -ret; e++)
			;
		if (!*e)
			fail_msg("%s: failure point %u answered errno %d (%s)", what, n,
				 -ret, strerror(-ret));
		t.points++;
		t.enomem += ret == -ENOMEM;
		t.efault += ret == -EFAULT;
		if (check)
			check(dev, arg);
	}
	cg_oom_window(false);
	close(fd);
	assert_true(n <= MAX_POINTS);
	print_message("# %s: %u failure points (%u ENOMEM, %u EFAULT; %u more absorbed), "
		      "then success\n", what, t.points, t.enomem, t.efault, t.absorbed);
	return t;
}

static int xioctl(int dev, unsigned long cmd, void *arg)
{
	return ioctl(dev, cmd, arg) < 0 ? -errno : 0;
}

static struct robust_list_head head64;
static struct robust_list_head head64b;

/* The calling thread's slot @i: its head (0 if empty). */
static uint64_t slot_head(int dev, unsigned int i)
{
	struct robust_list2_get_based g = { .pid = 0, .index = i };

	assert_int_equal(0, xioctl(dev, ROBUST_LIST2_IOC_GET_BASED, &g));
	return g.head;
}

static int call_set(int dev, void *arg)
{
	struct robust_list2_set a = {
		.head = (uintptr_t)&head64, .index = 3, .cmd = TH_NATIVE,
	};

	return xioctl(dev, ROBUST_LIST2_IOC_SET, &a);
}

static int call_create(int dev, void *arg)
{
	struct robust_list2_set a = { .head = (uintptr_t)&head64, .cmd = TH_NATIVE };

	return ioctl(dev, ROBUST_LIST2_IOC_CREATE, &a) < 0 ? -errno : 0;
}

static int call_set_based(int dev, void *arg)
{
	struct robust_list2_set_based a = {
		.head = (uintptr_t)&head64 - 4096, .base = 4096, .index = 5,
		.cmd = TH_NATIVE,
	};

	return xioctl(dev, ROBUST_LIST2_IOC_SET_BASED, &a);
}

static uint64_t tasks_base;	/* registered threads before the loops */

static uint64_t tasks_now(int dev)
{
	struct robust_list2_stats st;

	assert_int_equal(0, xioctl(dev, ROBUST_LIST2_IOC_STATS, &st));
	return st.tasks;
}

/*
 * After a failure or a success: every slot empty again, and no record
 * left for the thread (the module's count of registered threads is back).
 */
static void check_empty(int dev, void *arg)
{
	struct robust_list2_set clear = { .head = 0, .cmd = TH_NATIVE };
	unsigned int i;

	for (i = 0; i < 8; i++) {
		if (!slot_head(dev, i))
			continue;
		/* a success: empty it, so the next run starts with no record */
		clear.index = i;
		assert_int_equal(0, xioctl(dev, ROBUST_LIST2_IOC_SET, &clear));
	}
	assert_int_equal(tasks_base, tasks_now(dev));
}

#define PARAM_REUSE	"/sys/module/robust_list2/parameters/reuse"

/*
 * A first set takes a pooled record when there is one (module/registry.c)
 * and allocates nothing: reuse=N makes every one allocate, as the loops
 * below need.  A module without the pool has no such parameter.
 */
static void pool_reuse(bool on)
{
	if (!access(PARAM_REUSE, W_OK))
		assert_int_equal(0, th_write_file(PARAM_REUSE, on ? "Y" : "N"));
}

/*
 * Registering from a thread with no record (SET, CREATE, SET_BASED with
 * its base table), and a second registration beside one that stays.
 */
static int child_registrations(void *unused)
{
	static const int errs[] = { ENOMEM, EFAULT, 0 };
	struct robust_list2_set keep = {
		.head = (uintptr_t)&head64b, .index = 0, .cmd = TH_NATIVE,
	};
	struct tally t;
	int dev = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);

	assert_true(dev >= 0);
	pool_reuse(false);
	head64.list.next = &head64.list;
	head64b.list.next = &head64b.list;
	tasks_base = tasks_now(dev);
	t = fail_each("SET, first slot", call_set, dev, NULL, errs, check_empty, true);
	assert_true(t.enomem >= 1);	/* the record */
	t = fail_each("CREATE, first slot", call_create, dev, NULL, errs, check_empty,
		      true);
	assert_true(t.enomem >= 1);
	t = fail_each("SET_BASED, first slot", call_set_based, dev, NULL, errs,
		      check_empty, true);
	assert_true(t.enomem >= 1);	/* the record with its base table: one object */

	/* with a record that stays: only its based copy can fail */
	assert_int_equal(0, xioctl(dev, ROBUST_LIST2_IOC_SET, &keep));
	t = fail_each("SET_BASED beside a slot", call_set_based, dev, NULL, errs, NULL,
		      false);
	assert_true(t.enomem >= 1);
	assert_int_equal((uintptr_t)&head64b, slot_head(dev, 0));
	pool_reuse(true);
	close(dev);
	return 0;
}

static void test_registration_failures(void **state)
{
	NEED_FAIL_NTH();
	assert_int_equal(0, th_wait_child(th_spawn_child(child_registrations, NULL)));
}

static int call_window(int dev, void *arg)
{
	struct robust_list2_window w = { .start64 = 0x1000, .end64 = 0x1010 };
	int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);
	int ret;

	/* a new file each time: a window is set once per file */
	if (fd < 0)
		return -errno;
	ret = xioctl(fd, ROBUST_LIST2_IOC_SET_WINDOW, &w);
	if (!ret) {
		/*
		 * The window is there: a second one is refused.  That call
		 * copies its argument and allocates before it finds the file
		 * taken, so the armed failure may land in it instead.
		 */
		ret = xioctl(fd, ROBUST_LIST2_IOC_SET_WINDOW, &w);
		if (ret == -EBUSY)
			ret = 0;
		else if (ret != -EFAULT && ret != -ENOMEM)
			ret = -EPROTO;
	}
	close(fd);
	return ret;
}

static int call_get(int dev, void *arg)
{
	uint64_t out = 0xa5a5a5a5a5a5a5a5ULL;
	struct robust_list2_get g = { .pid = 0, .index = 0, .head_ptr = (uintptr_t)&out };
	int ret = xioctl(dev, ROBUST_LIST2_IOC_GET, &g);

	if (!ret && g.head != (uintptr_t)&head64b)
		return -EPROTO;
	return ret;
}

static int call_info(int dev, void *arg)
{
	struct robust_list2_info i;

	return xioctl(dev, ROBUST_LIST2_IOC_INFO, &i);
}

static int call_stats(int dev, void *arg)
{
	struct robust_list2_stats s;

	return xioctl(dev, ROBUST_LIST2_IOC_STATS, &s);
}

static int call_unlock(int dev, void *arg)
{
	struct th_lock64 *l = arg;
	struct robust_list2_unlock u = {
		.uaddr = (uintptr_t)&l->futex, .tid = (uint32_t)th_gettid(),
		.nr_wake = 1,
	};

	l->futex = u.tid;
	return xioctl(dev, ROBUST_LIST2_IOC_UNLOCK, &u);
}

/* The unlock's word: released only by the success. */
static void check_unlock(int dev, void *arg)
{
	struct th_lock64 *l = arg;

	assert_int_equal(th_gettid(), l->futex);
}

/* The other commands: their copies in and out, the window's allocation. */
static int child_other_commands(void *unused)
{
	static const int errs[] = { ENOMEM, EFAULT, 0 };
	static struct th_lock64 lock;
	struct robust_list2_set keep = {
		.head = (uintptr_t)&head64b, .index = 0, .cmd = TH_NATIVE,
	};
	struct tally t;
	int dev = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);

	assert_true(dev >= 0);
	head64b.list.next = &head64b.list;
	assert_int_equal(0, xioctl(dev, ROBUST_LIST2_IOC_SET, &keep));
	t = fail_each("SET_WINDOW", call_window, dev, NULL, errs, NULL, false);
	assert_true(t.enomem >= 1);
	t = fail_each("GET", call_get, dev, NULL, errs, NULL, false);
	assert_true(t.efault >= 1);
	t = fail_each("INFO", call_info, dev, NULL, errs, NULL, false);
	assert_true(t.efault >= 1);
	t = fail_each("STATS", call_stats, dev, NULL, errs, NULL, false);
	assert_true(t.efault >= 1);
	t = fail_each("UNLOCK", call_unlock, dev, &lock, errs, check_unlock, false);
	assert_true(t.efault >= 1);
	assert_int_equal(0, lock.futex);	/* the success released it */
	close(dev);
	return 0;
}

static void test_other_command_failures(void **state)
{
	NEED_FAIL_NTH();
	assert_int_equal(0, th_wait_child(th_spawn_child(child_other_commands, NULL)));
}

static int call_load(int unused, void *arg)
{
	return th_module_load(ko_path) ? -errno : 0;
}

/* A failed load left nothing: no module, no device; undo a success. */
static void check_unloaded(int unused, void *arg)
{
	struct stat st;

	if (stat("/sys/module/robust_list2", &st) == 0) {
		assert_int_equal(0, th_module_unload());	/* the load that worked */
		return;
	}
	assert_int_equal(-1, stat(ROBUST_LIST2_DEVICE, &st));
}

/*
 * Every step of the module's load failing in turn, then the first
 * registration after a load, which allocates the registry's filter.
 */
static void test_load_failures(void **state)
{
	static const int errs[] = { ENOMEM, EFAULT, 0 };
	struct stat st;
	struct tally t;

	NEED_FAIL_NTH();
	if (access(ko_path, R_OK))
		fail_msg("no module image at %s", ko_path);
	assert_int_equal(0, th_module_unload());
	t = fail_each("load", call_load, -1, NULL, errs, check_unloaded, false);
	assert_true(t.enomem >= 3);	/* the registry, the device, the hook */
	assert_int_equal(0, stat("/sys/module/robust_list2", &st));
	assert_int_equal(0, th_wait_child(th_spawn_child(child_registrations, NULL)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registration_failures),
		cmocka_unit_test(test_other_command_failures),
		cmocka_unit_test(test_load_failures),
	};

	TH_MODULE_ONLY_SUITE("fails the module's allocations and user copies one by one");
	return cmocka_run_group_tests_name("failnth", tests, setup, teardown);
}
