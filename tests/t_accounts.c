// SPDX-License-Identifier: GPL-2.0
/*
 * Who pays for a fault-in that never ends (docs/isolation.md, "Fault-ins
 * and accounts"): the dying thread's real uid; a user namespace that a
 * user made is that user (a login's 65,536 sub-uids are one account);
 * one that root made (a container) is an account of its own.
 *
 * In each case a process C of the account under test maps a page of FUSE
 * file "w" shared and writable; its thread T stores its TID in a word
 * there and registers a list with that word.  Once the server holds a
 * WRITE of the page (fs_hold_write()), T exits: its walk's fault-in waits
 * in fuse_page_mkwrite() until the connection is aborted.  After T's exit
 * C reads robust_list2_faults() from inside, and the test reads it for
 * other accounts from outside: the stuck fault-in is on C's account and
 * on no other.  And the limits' parameters refuse values they cannot mean.
 *
 * Root, /dev/fuse and the module are needed (the VM has them): skipped
 * otherwise.  64-bit only (tests/Makefile).  RL2_TEST_FILTER runs a subset.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "fusesrv.h"
#include "helpers.h"

#define PARAM		"/sys/module/robust_list2/parameters/"
#define STR(x)		#x
#define XSTR(x)		STR(x)
#define UID_A		3100
#define UID_B		3101
#define NS_BASE		200000	/* a namespace's ids 0..65535 outside */
#define NS_ID		5	/* C's uid in it: NS_BASE + 5 outside */

static struct fs_srv srv = {
	.fd = -1,
	.mnt = "/tmp/rl2-accounts",
	.file = { { "w", FS_NO_WRITE } },
};

static char saved_io_wait[32];

static int setup(void **state)
{
	saved_io_wait[0] = 0;
	if (geteuid() || !th_have_device())
		return 0;
	if (th_read_file(PARAM "io_wait_ms", saved_io_wait, sizeof(saved_io_wait)) <= 0)
		saved_io_wait[0] = 0;
	srv.answer_writes = true;	/* until fs_hold_write() */
	if (fs_start(&srv))
		fs_stop(&srv);
	return 0;
}

static int teardown(void **state)
{
	fs_stop(&srv);
	th_kill_kids();
	if (saved_io_wait[0])
		th_write_file(PARAM "io_wait_ms", saved_io_wait);
	return 0;
}

struct acct_run {
	uid_t uid;		/* C's uid before its namespace (0: root) */
	bool userns;		/* C makes a user namespace and is NS_ID in it */
	uint32_t unshared, mapped, ready, go, done;
	int32_t err;		/* C's step that failed */
	int32_t unshare_err;	/* errno of C's unshare(CLONE_NEWUSER) */
	struct robust_list2_faults inside;
};

static struct robust_list2_faults *faults_of(uid_t uid)
{
	static struct robust_list2_faults *f;
	pid_t pid;

	if (!f)
		f = th_shared_alloc(sizeof(*f), false);
	assert_non_null(f);
	memset(f, 0xcc, sizeof(*f));
	pid = fork();
	if (pid == 0)
		_exit((uid && th_become(uid)) || robust_list2_faults(f) ? 1 : 0);
	assert_int_equal(0, th_wait_child(pid));
	return f;
}

/*
 * Unshare a user namespace, wait for the test to map 65,536 ids of it
 * from @base, and become id NS_ID of it (kuid @base + NS_ID outside).
 */
static int enter_userns(struct acct_run *r)
{
	if (unshare(CLONE_NEWUSER))
		r->unshare_err = errno;
	th_set_flag(&r->unshared, 1);
	if (r->unshare_err)
		return -1;
	if (!th_wait_flag(&r->mapped, 1, TH_TIMEOUT_MS))
		return -1;
	return setresgid(NS_ID, NS_ID, NS_ID) || setresuid(NS_ID, NS_ID, NS_ID) ? -1 : 0;
}

/* T: own the word, register it, wait for the WRITE to be held, exit. */
static void *t_main(void *p)
{
	struct acct_run *r = p;
	size_t pg = th_page_size();
	struct robust_list_head *head = malloc(sizeof(*head));
	struct robust_list *node = malloc(sizeof(*node));
	char path[128];
	uint32_t *w;
	int fd = open(fs_path(&srv, "w", path, sizeof(path)), O_RDWR);

	w = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, pg);
	if (fd < 0 || w == MAP_FAILED || !head || !node) {
		r->err = 3;
		return NULL;
	}
	*w = th_gettid();
	head->list.next = node;
	node->next = &head->list;
	head->futex_offset = (long)((char *)w - (char *)node);
	head->list_op_pending = NULL;
	if (set_robust_list2(head, 0, TH_NATIVE, 0)) {
		r->err = 4;
		return NULL;
	}
	th_set_flag(&r->ready, 1);
	th_wait_flag(&r->go, 1, TH_TIMEOUT_MS);
	syscall(SYS_exit, 0);	/* the walk runs here, its fault-in stays stuck */
	return NULL;
}

static int c_main(void *p)
{
	struct acct_run *r = p;
	pthread_t t;

	if ((r->uid && th_become(r->uid)) || (r->userns && enter_userns(r))) {
		r->err = 1;
	} else if (pthread_create(&t, NULL, t_main, r)) {
		r->err = 2;
	} else {
		pthread_join(t, NULL);	/* after T's walk: CLONE_CHILD_CLEARTID */
		if (!r->err && robust_list2_faults(&r->inside))
			r->err = 5;
	}
	th_set_flag(&r->ready, 1);
	th_set_flag(&r->done, 1);
	for (;;)
		pause();
	return 0;
}

/* Run C for @uid (in a user namespace if @userns) to its stuck fault-in. */
static struct acct_run *run_c(uid_t uid, bool userns, pid_t *pid)
{
	struct acct_run *r = th_shared_alloc(sizeof(*r), false);

	TH_NEED_ROOT();
	if (srv.fd < 0)
		skip();		/* no /dev/fuse, or no module */
	assert_int_equal(0, th_write_file(PARAM "io_wait_ms", "500"));
	assert_non_null(r);
	r->uid = uid;
	r->userns = userns;
	if (userns && access("/proc/self/ns/user", F_OK)) {
		print_message("# no user namespaces in this kernel (CONFIG_USER_NS: "
			      "the debug kernels have none)\n");
		skip();
	}
	*pid = th_spawn_kid(c_main, r);
	if (userns) {
		char path[64];

		/* as newuidmap(1) would, from outside: a login's range of sub-ids */
		assert_true(th_wait_flag(&r->unshared, 1, TH_TIMEOUT_MS));
		assert_int_equal(0, r->unshare_err);
		snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)*pid);
		assert_int_equal(0, th_write_file(path, "0 " XSTR(NS_BASE) " 65536"));
		snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)*pid);
		assert_int_equal(0, th_write_file(path, "0 " XSTR(NS_BASE) " 65536"));
		th_set_flag(&r->mapped, 1);
	}
	assert_true(th_wait_flag(&r->ready, 1, TH_TIMEOUT_MS));
	assert_int_equal(0, r->err);
	assert_int_equal(0, fs_hold_write(&srv, "w", 1, robust_list2_fd()));
	th_set_flag(&r->go, 1);
	assert_true(th_wait_flag(&r->done, 1, TH_TIMEOUT_MS));
	assert_int_equal(0, r->err);
	print_message("# uid %u%s: its thread's exit left 1 fault-in stuck; seen from inside: "
		      "%u in flight, %u pinned\n", (unsigned int)uid,
		      userns ? ", as uid " XSTR(NS_ID) " of its user namespace" : "",
		      r->inside.in_flight,
		      r->inside.pinned);
	assert_int_equal(1, r->inside.in_flight);
	assert_int_equal(1, r->inside.pinned);
	return r;
}

/* Abort the connection: C's account is empty again, C can be reaped. */
static void release(pid_t pid)
{
	struct robust_list2_stats st;
	long deadline = th_now_ms() + 10000;

	fs_abort(&srv);
	do {
		assert_int_equal(0, robust_list2_stats(&st));
		if (!st.faults_in_flight && !st.faults_pinned)
			break;
		th_sleep_ms(20);
	} while (th_now_ms() < deadline);
	assert_int_equal(0, st.faults_in_flight);
	assert_int_equal(0, st.faults_pinned);
	kill(pid, SIGKILL);
	assert_int_equal(128 + SIGKILL, th_reap_kid(pid, 10000));
}

static void expect_faults(uid_t uid, uint32_t n)
{
	struct robust_list2_faults *f = faults_of(uid);

	print_message("# uid %u's account: %u in flight, %u pinned\n", (unsigned int)uid,
		      f->in_flight, f->pinned);
	assert_int_equal(n, f->in_flight);
	assert_int_equal(n, f->pinned);
}

static void test_a_user_pays_for_its_own(void **state)
{
	pid_t pid;

	run_c(UID_A, false, &pid);
	expect_faults(UID_A, 1);
	expect_faults(UID_B, 0);
	expect_faults(0, 0);
	release(pid);
}

static void test_a_users_namespace_is_that_user(void **state)
{
	pid_t pid;

	run_c(UID_A, true, &pid);	/* NS_ID in it: NS_BASE + NS_ID outside */
	expect_faults(UID_A, 1);
	expect_faults(NS_BASE + NS_ID, 0);	/* not the sub-uid's own */
	expect_faults(UID_B, 0);
	expect_faults(0, 0);
	release(pid);
}

static void test_roots_namespace_is_its_own(void **state)
{
	pid_t pid;

	run_c(0, true, &pid);		/* a container's user */
	expect_faults(0, 0);		/* not the machine's root */
	expect_faults(NS_BASE + NS_ID, 0);	/* nor the kuid outside */
	expect_faults(UID_A, 0);
	release(pid);
}

/* Each limit refuses what it cannot mean and keeps its value. */
static void test_limits_refuse_bad_values(void **state)
{
	static const char *const names[] = { "faults_per_user", "faults_per_mm", "io_wait_ms" };
	static const char *const bad[][4] = {
		{ "0", "257", "-1", "x" },		/* 1 .. 256 */
		{ "0", "257", "-1", "x" },
		{ "3600001", "4294967296", "-1", "x" },	/* 0 .. 1 h */
	};
	char path[128], before[32], after[32];

	TH_NEED_ROOT();
	if (!th_have_device())
		skip();
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), PARAM "%s", names[i]);
		assert_true(th_read_file(path, before, sizeof(before)) > 0);
		for (int k = 0; k < 4; k++) {
			int ret = th_write_file(path, bad[i][k]);

			if (ret != -EINVAL && ret != -ERANGE)
				fail_msg("%s=%s: %d, not -EINVAL or -ERANGE", names[i], bad[i][k], ret);
		}
		assert_true(th_read_file(path, after, sizeof(after)) > 0);
		assert_string_equal(before, after);
	}
	print_message("# faults_per_user, faults_per_mm, io_wait_ms: 12 bad values refused\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_user_pays_for_its_own, setup, teardown),
		cmocka_unit_test_setup_teardown(test_a_users_namespace_is_that_user, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_roots_namespace_is_its_own, setup, teardown),
		cmocka_unit_test(test_limits_refuse_bad_values),
	};

	TH_MODULE_ONLY_SUITE("the accounts of stuck fault-ins are the module's");
	if (getenv("RL2_TEST_FILTER"))
		cmocka_set_test_filter(getenv("RL2_TEST_FILTER"));
	return cmocka_run_group_tests_name("accounts", tests, NULL, NULL);
}
