// SPDX-License-Identifier: GPL-2.0
/*
 * Permissions (SPEC "Reliability and security"): get_robust_list2() on
 * another uid's thread, on a same-uid thread that then execs a
 * setuid-root program, and under Yama's ptrace_scope 1 and 2 answers
 * exactly as the kernel's own get_robust_list() does for the same pair of
 * processes.
 *
 * Needs root (setuid, sysctls), which the VM has; without it the cases
 * skip, not pass, as does the Yama case without Yama.  Every getter and
 * target is a forked child, every wait is bounded.  RL2_TEST_FILTER
 * runs a subset (cmocka_set_test_filter()).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "helpers.h"

#define SENTINEL	((void *)(uintptr_t)0x5a5a5a58UL)	/* 8-aligned, never a head here */
#define UID_A		1000	/* an ordinary user */
#define UID_NOBODY	65534
#define GET_SLOT	3	/* the slot the permission tests register and read */

/*
 * One get from another process, by both APIs: the answer of
 * get_robust_list2(pid, .., GET_SLOT) and of the kernel's
 * get_robust_list(pid), each output pre-filled with SENTINEL.
 */
struct get_result {
	int new_ret, new_errno;
	int old_ret, old_errno;
	void *new_head, *old_head;
};

struct get_req {
	pid_t target;
	uid_t uid;		/* the getter runs as this uid (0: stays root) */
	uid_t fsuid;		/* and with this fsuid (0: the same as uid) */
	struct get_result r;
};

static int getter_child(void *p)
{
	struct get_req *q = p;
	size_t len = 0;

	if (q->fsuid) {
		/* the saved uid lets an unprivileged setfsuid() pick it */
		if (setgroups(0, NULL) || setresgid(q->uid, q->uid, q->uid) ||
		    setresuid(q->uid, q->uid, q->fsuid))
			return 11;
		setfsuid(q->fsuid);
		if ((uid_t)setfsuid(-1) != q->fsuid)
			return 12;
	} else if (q->uid && th_become(q->uid)) {
		return 10;
	}
	q->r.new_head = SENTINEL;
	q->r.old_head = SENTINEL;
	q->r.new_ret = (int)get_robust_list2(q->target, &q->r.new_head, GET_SLOT, 0);
	q->r.new_errno = q->r.new_ret ? errno : 0;
	q->r.old_ret = (int)syscall(SYS_get_robust_list, q->target, &q->r.old_head, &len);
	q->r.old_errno = q->r.old_ret ? errno : 0;
	return 0;
}

/* Run a getter as @uid, @fsuid (a sibling of the target: not its ancestor). */
static struct get_result get_as_fs(pid_t target, uid_t uid, uid_t fsuid)
{
	struct get_req *q = th_shared_alloc(sizeof(*q), false);
	struct get_result r;

	assert_non_null(q);
	q->target = target;
	q->uid = uid;
	q->fsuid = fsuid;
	assert_int_equal(0, th_reap_kid(th_spawn_kid(getter_child, q), TH_TIMEOUT_MS));
	r = q->r;
	th_free(q, sizeof(*q));
	return r;
}

static struct get_result get_as(pid_t target, uid_t uid)
{
	return get_as_fs(target, uid, 0);
}

/* Both APIs gave the same verdict; on failure neither wrote its output. */
static void expect_same_verdict(const struct get_result *r, const char *what)
{
	print_message("# %s: get_robust_list2 %d (%s), get_robust_list %d (%s)\n", what,
		      r->new_ret, r->new_ret ? strerror(r->new_errno) : "ok",
		      r->old_ret, r->old_ret ? strerror(r->old_errno) : "ok");
	assert_int_equal(r->old_ret, r->new_ret);
	assert_int_equal(r->old_errno, r->new_errno);
	if (r->new_ret) {
		assert_ptr_equal(SENTINEL, r->new_head);
		assert_ptr_equal(SENTINEL, r->old_head);
	}
}

/* A target process: registers a slot and a legacy list, then waits. */
struct target {
	uint32_t ready, go;
	int err;
	uid_t uid;
	bool nondumpable;
	struct robust_list_head head;		/* in slot GET_SLOT */
	struct robust_list_head legacy;		/* set_robust_list() */
};

static int target_child(void *p)
{
	struct target *t = p;

	if (t->uid && th_become(t->uid))
		t->err = 1;
	else if (t->nondumpable && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		t->err = 2;
	else if (set_robust_list2(&t->head, GET_SLOT, TH_NATIVE, 0))
		t->err = 3;
	else if (syscall(SYS_set_robust_list, &t->legacy, sizeof(t->legacy)))
		t->err = 4;
	th_set_flag(&t->ready, 1);
	th_wait_flag(&t->go, 1, 3 * TH_TIMEOUT_MS);
	return t->err;
}

static pid_t start_target(struct target *t)
{
	pid_t pid;

	th_list64_init(&t->head, TH_OFF64);
	th_list64_init(&t->legacy, TH_OFF64);
	pid = th_spawn_kid(target_child, t);
	assert_true(pid > 0);
	assert_true(th_wait_flag(&t->ready, 1, TH_TIMEOUT_MS));
	assert_int_equal(0, t->err);
	return pid;
}

static void stop_target(struct target *t, pid_t pid)
{
	th_set_flag(&t->go, 1);
	assert_int_equal(0, th_reap_kid(pid, TH_TIMEOUT_MS));
}

/* Another uid -> EPERM from both APIs; the same uid -> both succeed. */
static void test_perm_other_uid(void **state)
{
	struct target *t;
	struct get_result r;
	pid_t pid;

	TH_NEED_ROOT();
	t = th_shared_alloc(sizeof(*t), false);
	assert_non_null(t);
	t->uid = UID_A;
	pid = start_target(t);

	r = get_as(pid, UID_NOBODY);
	expect_same_verdict(&r, "uid 65534 -> uid 1000");
	assert_int_equal(-1, r.new_ret);
	assert_int_equal(EPERM, r.new_errno);

	/* the control: same uid, the same pair of calls succeeds */
	r = get_as(pid, UID_A);
	expect_same_verdict(&r, "uid 1000 -> uid 1000");
	assert_int_equal(0, r.new_ret);
	assert_ptr_equal(&t->head, r.new_head);
	assert_ptr_equal(&t->legacy, r.old_head);

	/*
	 * The check uses the caller's real uid, not its fsuid
	 * (PTRACE_MODE_READ_REALCREDS, as get_robust_list()): uid 1000 with
	 * fsuid 65534 may read, and uid 65534 with fsuid 1000 may not.
	 */
	r = get_as_fs(pid, UID_A, UID_NOBODY);
	expect_same_verdict(&r, "uid 1000 (fsuid 65534) -> uid 1000");
	assert_int_equal(0, r.new_ret);
	assert_ptr_equal(&t->head, r.new_head);
	r = get_as_fs(pid, UID_NOBODY, UID_A);
	expect_same_verdict(&r, "uid 65534 (fsuid 1000) -> uid 1000");
	assert_int_equal(-1, r.new_ret);
	assert_int_equal(EPERM, r.new_errno);

	stop_target(t, pid);
	th_free(t, sizeof(*t));
}

/*
 * Exec of a setuid-root program.  The target (uid 65534) first
 * registers a slot another uid-65534 process may read; then it execs a
 * setuid-root copy of this binary, which registers a slot again.  Now the
 * target's euid is 0 (and it is not dumpable): the same get must fail
 * with EPERM, as the kernel's get_robust_list() does, while root still
 * reads the new head (so the slot is there and only permission is
 * refused).
 */
#define SETUID_HELPER	"/tmp/rl2_setuid_helper"
#define HELPER_MODE	"--setuid-holder"

struct holder_msg {
	int32_t err;
	uint32_t ruid, euid;
	uint64_t head;
};

static int setuid_holder_main(int argc, char **argv)
{
	static struct robust_list_head head;
	struct holder_msg m = { 0 };
	struct pollfd pfd;
	int rfd, cfd;

	if (argc < 4)
		return 2;
	rfd = atoi(argv[2]);
	cfd = atoi(argv[3]);
	th_list64_init(&head, TH_OFF64);
	m.ruid = getuid();
	m.euid = geteuid();
	m.head = (uintptr_t)&head;
	m.err = set_robust_list2(&head, GET_SLOT, TH_NATIVE, 0) ? errno : 0;
	if (write(rfd, &m, sizeof(m)) != sizeof(m))
		return 3;
	/* bounded: the parent says when, or we leave on our own */
	pfd = (struct pollfd){ .fd = cfd, .events = POLLIN };
	poll(&pfd, 1, 3 * TH_TIMEOUT_MS);
	return 0;
}

struct exec_target {
	int ready_w, cmd_r;	/* ours */
	int ready_r, cmd_w;	/* the parent's ends: closed, so we see its close() */
	char helper[64];
};

static int exec_target_child(void *p)
{
	struct exec_target *e = p;
	static struct robust_list_head head;
	struct holder_msg m = { 0 };
	struct pollfd pfd = { .fd = e->cmd_r, .events = POLLIN };
	char rfd[16], cfd[16], cmd;
	char *argv[] = { "rl2_setuid_helper", HELPER_MODE, rfd, cfd, NULL };

	close(e->ready_r);
	close(e->cmd_w);
	th_list64_init(&head, TH_OFF64);
	if (th_become(UID_NOBODY))
		m.err = 100;
	else if (set_robust_list2(&head, GET_SLOT, TH_NATIVE, 0))
		m.err = errno;
	m.ruid = getuid();
	m.euid = geteuid();
	m.head = (uintptr_t)&head;
	if (write(e->ready_w, &m, sizeof(m)) != sizeof(m) || m.err)
		return 1;
	if (poll(&pfd, 1, 3 * TH_TIMEOUT_MS) != 1 || read(e->cmd_r, &cmd, 1) != 1)
		return 2;
	snprintf(rfd, sizeof(rfd), "%d", e->ready_w);
	snprintf(cfd, sizeof(cfd), "%d", e->cmd_r);
	execv(e->helper, argv);
	return 3;
}

static bool read_msg(int fd, struct holder_msg *m)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, TH_TIMEOUT_MS) == 1 && read(fd, m, sizeof(*m)) == sizeof(*m);
}

/* Copy /proc/self/exe to SETUID_HELPER, root-owned, mode 04755. */
static int make_setuid_helper(void)
{
	char buf[65536];
	int in, out;
	ssize_t n;

	unlink(SETUID_HELPER);
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(SETUID_HELPER, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			n = -1;
			break;
		}
	close(in);
	if (close(out) || n < 0 || chown(SETUID_HELPER, 0, 0) || chmod(SETUID_HELPER, 04755))
		return -1;
	return 0;
}

static int setuid_teardown(void **state)
{
	th_kill_kids();
	unlink(SETUID_HELPER);
	return 0;
}

static void test_perm_setuid_exec(void **state)
{
	struct exec_target *e;
	struct holder_msg before, after;
	struct get_result r;
	int ready[2], cmd[2];
	void *head = SENTINEL;
	pid_t pid;

	TH_NEED_ROOT();
	assert_int_equal(0, make_setuid_helper());
	e = th_shared_alloc(sizeof(*e), false);
	assert_non_null(e);
	assert_int_equal(0, pipe(ready));	/* not O_CLOEXEC: the helper inherits both */
	assert_int_equal(0, pipe(cmd));
	e->ready_w = ready[1];
	e->cmd_r = cmd[0];
	e->ready_r = ready[0];
	e->cmd_w = cmd[1];
	snprintf(e->helper, sizeof(e->helper), "%s", SETUID_HELPER);
	pid = th_spawn_kid(exec_target_child, e);
	assert_true(pid > 0);
	close(ready[1]);
	close(cmd[0]);

	assert_true(read_msg(ready[0], &before));
	assert_int_equal(0, before.err);
	assert_int_equal(UID_NOBODY, before.euid);

	/* same uid, before the exec: allowed, and both APIs agree */
	r = get_as(pid, UID_NOBODY);
	expect_same_verdict(&r, "uid 65534 -> uid 65534");
	assert_int_equal(0, r.new_ret);
	assert_ptr_equal((void *)(uintptr_t)before.head, r.new_head);

	/* exec the setuid-root helper; it registers GET_SLOT again */
	assert_int_equal(1, write(cmd[1], "x", 1));
	assert_true(read_msg(ready[0], &after));
	assert_int_equal(0, after.err);
	assert_int_equal(UID_NOBODY, after.ruid);
	assert_int_equal(0, after.euid);	/* else /tmp is nosuid: the test proves nothing */

	r = get_as(pid, UID_NOBODY);
	expect_same_verdict(&r, "uid 65534 -> setuid-root (ruid 65534)");
	assert_int_equal(-1, r.new_ret);
	assert_int_equal(EPERM, r.new_errno);

	/* root may read it: the slot is there, only permission was refused */
	assert_int_equal(0, get_robust_list2(pid, &head, GET_SLOT, 0));
	assert_ptr_equal((void *)(uintptr_t)after.head, head);

	close(cmd[1]);		/* the helper's poll() ends */
	close(ready[0]);
	assert_int_equal(0, th_reap_kid(pid, TH_TIMEOUT_MS));
	th_free(e, sizeof(*e));
}

/*
 * Yama.  ptrace_scope 1 (and 2) restricts PTRACE_MODE_ATTACH only, so
 * a same-uid non-descendant may still ptrace-read; whatever the kernel
 * decides, get_robust_list2() must decide the same as get_robust_list()
 * for the same pair.  Scope 3 is never set: it cannot be undone.
 */
#define YAMA_SCOPE	"/proc/sys/kernel/yama/ptrace_scope"

static char yama_orig[16];

static int yama_setup(void **state)
{
	if (th_read_file(YAMA_SCOPE, yama_orig, sizeof(yama_orig)) <= 0)
		yama_orig[0] = 0;
	return 0;
}

/* Runs even when the test failed: put the sysctl back. */
static int yama_teardown(void **state)
{
	th_kill_kids();
	if (yama_orig[0] && th_write_file(YAMA_SCOPE, yama_orig)) {
		fprintf(stderr, "# could not restore %s to %s", YAMA_SCOPE, yama_orig);
		return -1;
	}
	return 0;
}

static void set_yama(int scope)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d\n", scope);
	assert_int_equal(0, th_write_file(YAMA_SCOPE, buf));
	assert_int_equal(scope, th_read_long(YAMA_SCOPE, -1));
}

/* The module-wide counters are the administrator's; INFO is anyone's. */
static int stats_as_user_child(void *p)
{
	struct robust_list2_stats st;
	struct robust_list2_info info;

	if (setgroups(0, NULL) || setresgid(UID_NOBODY, UID_NOBODY, UID_NOBODY) ||
	    setresuid(UID_NOBODY, UID_NOBODY, UID_NOBODY))
		return 2;
	if (robust_list2_info(&info))
		return 3;
	if (robust_list2_stats(&st) != -1 || errno != EPERM)
		return 4;
	return 0;
}

static void test_stats_need_cap_sys_admin(void **state)
{
	struct robust_list2_stats st;

	TH_MODULE_ONLY("the module's counters");
	if (geteuid())
		skip();
	assert_int_equal(0, robust_list2_stats(&st));
	assert_int_equal(0, th_wait_child(th_spawn_child(stats_as_user_child, NULL)));
}

static void test_perm_yama(void **state)
{
	static const struct {
		uid_t target_uid, getter_uid;
		bool nondumpable;
		const char *what;
	} cases[] = {
		{ UID_A, UID_A, false, "same uid, non-descendant" },
		{ UID_A, UID_NOBODY, false, "other uid, non-descendant" },
		{ UID_A, UID_A, true, "same uid, non-dumpable target" },
		{ UID_A, 0, false, "root, non-descendant" },
	};
	static const int scopes[] = { 1, 2 };
	char what[128];

	if (!yama_orig[0]) {
		print_message("# no Yama (%s absent)\n", YAMA_SCOPE);
		skip();
	}
	TH_NEED_ROOT();
	for (unsigned int c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct target *t = th_shared_alloc(sizeof(*t), false);
		pid_t pid;

		assert_non_null(t);
		t->uid = cases[c].target_uid;
		t->nondumpable = cases[c].nondumpable;
		pid = start_target(t);
		for (unsigned int s = 0; s < sizeof(scopes) / sizeof(scopes[0]); s++) {
			struct get_result r;

			set_yama(scopes[s]);
			r = get_as(pid, cases[c].getter_uid);
			snprintf(what, sizeof(what), "ptrace_scope=%d, %s", scopes[s], cases[c].what);
			expect_same_verdict(&r, what);
			if (!r.new_ret) {
				assert_ptr_equal(&t->head, r.new_head);
				assert_ptr_equal(&t->legacy, r.old_head);
			}
		}
		stop_target(t, pid);
		th_free(t, sizeof(*t));
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_perm_other_uid, th_kids_teardown),
		cmocka_unit_test_teardown(test_perm_setuid_exec, setuid_teardown),
		cmocka_unit_test_setup_teardown(test_perm_yama, yama_setup, yama_teardown),
		cmocka_unit_test(test_stats_need_cap_sys_admin),
	};

	if (argc > 1 && !strcmp(argv[1], HELPER_MODE))
		return setuid_holder_main(argc, argv);
	if (getenv("RL2_TEST_FILTER"))		/* e.g. RL2_TEST_FILTER='test_perm_yama' */
		cmocka_set_test_filter(getenv("RL2_TEST_FILTER"));
	return cmocka_run_group_tests_name("perm", tests, NULL, NULL);
}
