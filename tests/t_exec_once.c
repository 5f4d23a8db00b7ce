// SPDX-License-Identifier: GPL-2.0
/*
 * One exec, one walk.  Since Linux 7.2 (Debian's 7.2.13) the kernel's
 * futex_exec_release() only calls futex_exit_release(), so a thread that
 * execs passes both functions the module hooks.  Its lists must still be
 * walked exactly once, while the old address space is attached: every
 * lock recovered, one waiter woken, and the module's counters counting
 * one walk per registered list.  A second walk would add to "walks" (in
 * the old mm it finds nothing left to recover; in the new one the heads
 * are not mapped), and a walk after the switch would recover nothing.
 * The legacy list beside the slots is recovered by the kernel as usual.
 * Holds on every kernel; on 7.2 it is the nested-hook case.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "helpers.h"

struct exec_scene {
	uint32_t ready;
	uint32_t go;
	int32_t err;
	struct robust_list_head h64;
	struct robust_list_head32 h32;
	struct robust_list_head legacy;
	struct th_lock64 l64[2];
	struct th_lock32 l32;
	struct th_lock64 legacy_lock;
};

static char *self_exe = "/proc/self/exe";

static int owner_setup(struct exec_scene *s)
{
	uint32_t tid = th_gettid();

	th_list64_init(&s->h64, TH_OFF64);
	s->l64[0].futex = tid | FUTEX_WAITERS;	/* the parent's waiter sleeps here */
	s->l64[1].futex = tid;
	th_list64_add(&s->h64, &s->l64[0], false);
	th_list64_add(&s->h64, &s->l64[1], false);
	th_list32_init(&s->h32, TH_OFF32);
	s->l32.futex = tid;
	th_list32_add(&s->h32, &s->l32, false);
	th_list64_init(&s->legacy, TH_OFF64);
	s->legacy_lock.futex = tid;
	th_list64_add(&s->legacy, &s->legacy_lock, false);

	if (set_robust_list2(&s->h64, 0, TH_NATIVE, 0))
		return 10;
	if (set_robust_list2((void *)&s->h32, 5, FUTEX_ROBUST_LIST_CMD_SET_32, 0))
		return 11;
	if (syscall(SYS_set_robust_list, &s->legacy, sizeof(s->legacy)))
		return 12;
	return 0;
}

static int exec_child(void *p)
{
	struct exec_scene *s = p;
	char *argv[] = { "t_exec_once", "--exit0", NULL };

	s->err = owner_setup(s);
	th_set_flag(&s->ready, 1);
	if (s->err || !th_wait_flag(&s->go, 1, TH_TIMEOUT_MS))
		return 2;
	execv(self_exe, argv);
	return 3;
}

static void test_exec_walks_each_list_once(void **state)
{
	struct exec_scene *s = th_shared_alloc(4096, true);
	struct robust_list2_stats before, after;
	struct th_waiter w;
	pid_t pid;

	TH_NEED_ROOT();		/* the module-wide counters are root's */
	assert_non_null(s);
	assert_int_equal(0, robust_list2_stats(&before));

	pid = th_spawn_child(exec_child, s);
	assert_true(pid > 0);
	assert_true(th_wait_flag(&s->ready, 1, TH_TIMEOUT_MS));
	assert_int_equal(0, s->err);
	w = (struct th_waiter){ .uaddr = &s->l64[0].futex, .val = s->l64[0].futex,
				.timeout_ms = TH_TIMEOUT_MS };
	assert_int_equal(0, th_waiter_start(&w));
	th_set_flag(&s->go, 1);
	assert_int_equal(0, th_wait_child(pid));	/* the exec'd image exited 0 */
	assert_int_equal(0, th_waiter_join(&w));	/* woken, not timed out */
	assert_int_equal(0, robust_list2_stats(&after));

	assert_int_equal(FUTEX_OWNER_DIED | FUTEX_WAITERS, s->l64[0].futex);
	assert_int_equal(FUTEX_OWNER_DIED, s->l64[1].futex);
	assert_int_equal(FUTEX_OWNER_DIED, s->l32.futex);
	assert_int_equal(FUTEX_OWNER_DIED, s->legacy_lock.futex);
	/* two registered lists: two walks, three entries, three recovered */
	assert_int_equal(2, after.walks - before.walks);
	assert_int_equal(3, after.entries - before.entries);
	assert_int_equal(3, after.recovered - before.recovered);
	assert_int_equal(1, after.woken - before.woken);
	assert_int_equal(0, after.faults - before.faults);
	assert_int_equal(before.tasks, after.tasks);
	th_free(s, 4096);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_walks_each_list_once),
	};

	if (argc > 1 && !strcmp(argv[1], "--exit0"))
		return 0;
	TH_MODULE_ONLY_SUITE("counts the walks of one exec with the module's "
	                     "counters (ROBUST_LIST2_IOC_STATS)");
	if (!th_have_device())
		return 77;
	return cmocka_run_group_tests_name("exec_once", tests, NULL, NULL);
}
