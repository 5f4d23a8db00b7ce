// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup v2 freezer (SPEC "Reliability and security"): a frozen lock
 * owner that is SIGKILLed (or thawed then killed, or killed through
 * cgroup.kill) dies, and its locks are recovered and their waiters woken
 * (the victim: lib/victim.c); while it is frozen nothing is.
 *
 * Needs root (cgroups), which the VM has; without it the cases skip, not
 * pass, as does the cgroup.kill case on a kernel without cgroup.kill.
 * The victim dies in a forked child, every wait is bounded, waiters are
 * confirmed asleep through /proc.  RL2_TEST_FILTER runs a subset.
 */
#include <errno.h>
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

static int freezer_setup(void **state)
{
	int err = cg_setup_group("rl2-freeze", false);

	if (err)
		fprintf(stderr, "# cgroup2 unavailable: %s\n", strerror(-err));
	return 0;
}

enum freeze_kill { FK_SIGKILL_FROZEN, FK_THAW_THEN_SIGKILL, FK_CGROUP_KILL_FROZEN };

static void freeze_case(enum freeze_kill how)
{
	struct victim *v;
	pid_t pid;

	if (!cg.path[0])
		skip();
	if (how == FK_CGROUP_KILL_FROZEN && access(cg_file("cgroup.kill"), F_OK)) {
		print_message("# no cgroup.kill on this kernel\n");
		skip();
	}
	v = victim_new(V_PARK);
	pid = victim_start(v);
	cg_enter(pid);

	assert_int_equal(0, th_write_file(cg_file("cgroup.freeze"), "1"));
	assert_true(cg_wait_event("frozen", 1, TH_TIMEOUT_MS));
	/* frozen with its locks held: nothing recovered, nobody woken */
	victim_check_untouched(v, pid);

	switch (how) {
	case FK_SIGKILL_FROZEN:
		assert_int_equal(0, kill(pid, SIGKILL));
		break;
	case FK_THAW_THEN_SIGKILL:
		assert_int_equal(0, th_write_file(cg_file("cgroup.freeze"), "0"));
		assert_true(cg_wait_event("frozen", 0, TH_TIMEOUT_MS));
		victim_check_untouched(v, pid);
		assert_int_equal(0, kill(pid, SIGKILL));
		break;
	case FK_CGROUP_KILL_FROZEN:
		assert_int_equal(0, th_write_file(cg_file("cgroup.kill"), "1"));
		break;
	}
	assert_int_equal(128 + SIGKILL, th_reap_kid(pid, 3 * TH_TIMEOUT_MS));
	victim_check(v);
	assert_true(cg_wait_event("populated", 0, TH_TIMEOUT_MS));
	th_free(v, sizeof(*v));
}

static void test_freezer_sigkill_while_frozen(void **state)
{
	freeze_case(FK_SIGKILL_FROZEN);
}

static void test_freezer_thaw_then_sigkill(void **state)
{
	freeze_case(FK_THAW_THEN_SIGKILL);
}

static void test_freezer_cgroup_kill_while_frozen(void **state)
{
	freeze_case(FK_CGROUP_KILL_FROZEN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_freezer_sigkill_while_frozen,
						freezer_setup, cg_teardown),
		cmocka_unit_test_setup_teardown(test_freezer_thaw_then_sigkill,
						freezer_setup, cg_teardown),
		cmocka_unit_test_setup_teardown(test_freezer_cgroup_kill_while_frozen,
						freezer_setup, cg_teardown),
	};

	if (getenv("RL2_TEST_FILTER"))		/* e.g. RL2_TEST_FILTER='test_freezer_thaw*' */
		cmocka_set_test_filter(getenv("RL2_TEST_FILTER"));
	return cmocka_run_group_tests_name("freezer", tests, NULL, NULL);
}
