// SPDX-License-Identifier: GPL-2.0
/*
 * robust-list2 status, unload and load, and its usage errors: status
 * --json counts a live target's registrations (lib/cli.c), unload is
 * refused while slots are held, and a real unload / load cycle with a
 * module parameter (walk_limit, which show then reports as where a walk
 * ended).  The module is loaded again whatever a case did.
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
#include <cmocka.h>

#include "cli.h"
#include "helpers.h"
#include "json.h"

static void test_status_json_counts_live_registrations(void **state)
{
	const struct jv *features, *stats, *mine;
	bool list32 = false, cycle_safe = false, faults = false;
	struct run r;
	struct jv *v = run_json(&r, 0, 0, "status --json");

	assert_true(jbool(v, "loaded"));
	assert_string_equal("live", jstr(v, "state"));
	assert_string_equal(robust_list2_version(), jstr(v, "version"));
	assert_string_equal(robust_list2_version(), jstr(v, "library_version"));
	assert_int_equal(ROBUST_LIST2_ABI_VERSION, jnum(v, "abi_version"));
	assert_int_equal(8, jnum(v, "slots"));
	assert_int_equal(DEFAULT_LIMIT, jnum(v, "walk_limit"));
	/* The target's open descriptor pins the module, and so do its records. */
	assert_true(jnum(v, "refcount") >= 2);
	features = jarr(v, "features");
	for (size_t i = 0; i < features->n; i++) {
		list32 |= !strcmp(features->kids[i]->str, "list32");
		cycle_safe |= !strcmp(features->kids[i]->str, "cycle_safe");
		faults |= !strcmp(features->kids[i]->str, "faults");
	}
	assert_true(list32 && cycle_safe && faults);
	assert_true(jnum(v, "io_wait_ms") > 0);
	stats = jget(v, "stats");
	assert_true(jnum(stats, "tasks") >= 3);
	for (const char *const *k = (const char *const[]){ "walks", "entries", "recovered",
		"woken", "cycles", "limited", "faults", "fixups", "io_timeouts",
		"faults_in_flight", "faults_pinned", NULL }; *k; k++)
		assert_true(jnum(stats, *k) >= 0);
	/* nothing of ours is faulting now; the limits are the defaults */
	mine = jget(v, "my_faults");
	assert_int_equal(0, jnum(mine, "in_flight"));
	assert_int_equal(0, jnum(mine, "pinned"));
	assert_int_equal(16, jnum(mine, "per_user"));
	assert_int_equal(4, jnum(mine, "per_mm"));
	assert_int_equal(1024, jnum(mine, "shared"));
	j_free(v);
	run_free(&r);

	assert_int_equal(0, run_cli(&r, 0, "status"));
	expect_in(r.out, "robust_list2: loaded (live), version %s", robust_list2_version());
	expect_in(r.out, "live registrations: ");
	expect_in(r.out, "your exit fault-ins: 0 in flight, 0 left running");
	run_free(&r);
}

static void test_unload_refused_while_slots_are_held(void **state)
{
	struct run r;

	assert_int_equal(1, run_cli(&r, 0, "unload"));
	expect_in(r.err, "in use: ");
	expect_in(r.err, "3 threads hold slots, " ROBUST_LIST2_DEVICE " open 1 time");
	assert_true(module_loaded());
	run_free(&r);
	/* and the module still answers */
	assert_int_equal(0, run_cli(&r, 0, "show %d", tgt.pid));
	run_free(&r);
}

static void test_usage_errors_exit_2(void **state)
{
	struct run r;
	char want[64];

	assert_int_equal(2, run_cli(&r, 0, "show"));
	run_free(&r);
	assert_int_equal(2, run_cli(&r, 0, "show abc"));
	run_free(&r);
	assert_int_equal(2, run_cli(&r, 0, "show 0"));
	run_free(&r);
	assert_int_equal(2, run_cli(&r, 0, "frobnicate"));
	run_free(&r);
	assert_int_equal(2, run_cli(&r, 0, "load --param walk_limit"));
	run_free(&r);
	assert_int_equal(0, run_cli(&r, 0, "--help"));
	expect_in(r.out, "usage: ");
	run_free(&r);
	assert_int_equal(0, run_cli(&r, 0, "--version"));
	snprintf(want, sizeof(want), "robust-list2 %s\n", robust_list2_version());
	assert_string_equal(want, r.out);
	run_free(&r);
}

static const char *ko_path(void)
{
	return getenv("RL2_KO") ?: "/lib/robust_list2/robust_list2.ko";
}

/* Unload, everything that needs the module says so, load with a parameter. */
static void test_unload_then_load_with_param(void **state)
{
	const char *ko = ko_path();
	const struct jv *s;
	struct run r;
	struct jv *v;

	if (access(ko, R_OK))
		skip();
	assert_int_equal(0, run_cli(&r, 0, "unload"));
	assert_false(module_loaded());
	run_free(&r);

	v = run_json(&r, 3, 0, "status --json");
	assert_false(jbool(v, "loaded"));
	expect_in(r.err, "status: module robust_list2 is not loaded (try: robust-list2 load)");
	j_free(v);
	run_free(&r);
	assert_int_equal(3, run_cli(&r, 0, "status"));
	expect_in(r.out, "robust_list2: not loaded");
	expect_in(r.err, "(try: robust-list2 load)");
	run_free(&r);
	assert_int_equal(3, run_cli(&r, 0, "show 1"));
	run_free(&r);
	assert_int_equal(3, run_cli(&r, 0, "unload"));
	run_free(&r);

	v = run_json(&r, 0, 0, "load --json --path %s --param walk_limit=2", ko);
	assert_true(jbool(v, "loaded"));
	assert_false(jbool(v, "already_loaded"));
	assert_string_equal(robust_list2_version(), jstr(v, "version"));
	j_free(v);
	run_free(&r);
	assert_int_equal(0, access(ROBUST_LIST2_DEVICE, R_OK | W_OK));

	v = run_json(&r, 0, 0, "status --json");
	assert_int_equal(2, jnum(v, "walk_limit"));
	j_free(v);
	run_free(&r);

	/* the module stops after 2 entries: show says so at the same place */
	assert_int_equal(0, target_start(0));
	v = run_json(&r, 0, 0, "show %d --json", tgt.pid);
	assert_int_equal(2, jnum(v, "walk_limit"));
	s = only_slot(v, tgt.lo->tid_a, 2);
	assert_int_equal(2, jnum(s, "entry_count"));
	assert_string_equal("walk_limit", jstr(s, "end"));
	assert_int_equal(addr(&tgt.hi->l64[2]), jaddr(s, "end_address"));
	j_free(v);
	run_free(&r);
	assert_int_equal(0, teardown_target(state));

	/* loaded already: fine without parameters, an error with them */
	assert_int_equal(0, run_cli(&r, 0, "load --path %s", ko));
	expect_in(r.out, "already loaded");
	run_free(&r);
	assert_int_equal(1, run_cli(&r, 0, "load --path %s --param walk_limit=5", ko));
	run_free(&r);

	/* back to the default */
	assert_int_equal(0, run_cli(&r, 0, "unload"));
	run_free(&r);
	assert_int_equal(0, run_cli(&r, 0, "load --path %s", ko));
	run_free(&r);
	v = run_json(&r, 0, 0, "status --json");
	assert_int_equal(DEFAULT_LIMIT, jnum(v, "walk_limit"));
	j_free(v);
	run_free(&r);
}

/* Whatever a case did, the module is loaded afterwards. */
static int teardown_reload(void **state)
{
	teardown_target(state);
	return module_loaded() || th_module_load(ko_path()) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WITH_TARGET(test_status_json_counts_live_registrations),
		WITH_TARGET(test_unload_refused_while_slots_are_held),
		cmocka_unit_test(test_usage_errors_exit_2),
		cmocka_unit_test_teardown(test_unload_then_load_with_param, teardown_reload),
	};

	if (sizeof(void *) != 8) {
		fprintf(stderr, "# t_cli_module: 64-bit only (the tool reads 64-bit lists)\n");
		return 77;
	}
	TH_MODULE_ONLY_SUITE("robust-list2 status, load and unload manage the module");
	return cmocka_run_group_tests_name("cli_module", tests, cli_group_setup, NULL);
}
