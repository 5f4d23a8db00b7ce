// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency: many threads setting, reading and clearing slots while
 * threads exit, processes fork and siblings exec, all for a bounded time.
 * Every answer must be one the API documents, every lock a dead thread
 * held must come back FUTEX_OWNER_DIED, nothing may hang, and once all
 * the processes are gone the module's registry must be empty again (no
 * record leaked by a thread killed in the middle of registering).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "helpers.h"

#define NR_THREADS	64
#define RUN_MS		3000

static char *self_exe = "/proc/self/exe";

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

struct shared {
	volatile int stop;
	volatile int bad;		/* an undocumented answer was seen */
	volatile int bad_errno;
	pid_t tids[NR_THREADS];
	/* per worker: its list and one lock it holds while registered */
	struct robust_list_head head[NR_THREADS];
	struct th_lock64 lock[NR_THREADS];
	uint32_t dead_ok, dead_bad;	/* locks checked after their owner died */
};

static struct shared *sh;

static void note_bad(int err)
{
	sh->bad_errno = err;
	__atomic_store_n(&sh->bad, 1, __ATOMIC_RELEASE);
}

/*
 * One worker generation: register a list holding a lock, poke at the
 * slots of random other workers, clear or keep the slot, and die in one of
 * several ways.  Its lock is checked by the next generation.
 */
static void *worker(void *p)
{
	long i = (long)p;
	uint32_t tid = th_gettid();
	unsigned int seed = tid;
	struct robust_list_head *h = &sh->head[i];
	struct th_lock64 *l = &sh->lock[i];

	th_list64_init(h, TH_OFF64);
	l->futex = tid;
	th_list64_add(h, l, false);
	if (set_robust_list2(h, rand_r(&seed) % 8, TH_NATIVE, 0))
		note_bad(errno);
	__atomic_store_n(&sh->tids[i], tid, __ATOMIC_RELEASE);

	for (int k = 0; k < 20; k++) {
		pid_t other = __atomic_load_n(&sh->tids[rand_r(&seed) % NR_THREADS], __ATOMIC_ACQUIRE);
		void *got;

		/* the other thread may be exiting right now: ESRCH is fine */
		if (other && get_robust_list2(other, &got, rand_r(&seed) % 8, 0) && errno != ESRCH)
			note_bad(errno);
	}
	if (rand_r(&seed) % 4 == 0) {
		/* unlock and unregister cleanly; the lock is not ours any more */
		l->futex = 0;
		for (unsigned int s = 0; s < 8; s++)
			if (set_robust_list2(NULL, s, TH_NATIVE, 0))
				note_bad(errno);
	}
	return NULL;		/* exit with or without the lock held */
}

static void check_previous_owner(long i)
{
	struct th_lock64 *l = &sh->lock[i];
	uint32_t w = __atomic_load_n(&l->futex, __ATOMIC_ACQUIRE);

	if (!__atomic_load_n(&sh->tids[i], __ATOMIC_ACQUIRE))
		return;
	/* released by its owner (0) or recovered by the walk */
	if (w == 0 || w == FUTEX_OWNER_DIED)
		sh->dead_ok++;
	else
		sh->dead_bad++;
}

static int churn_process(void *arg)
{
	pthread_t t[NR_THREADS];
	long end = now_ms() + RUN_MS;
	unsigned int gen = 0;

	while (now_ms() < end) {
		for (long i = 0; i < NR_THREADS; i++)
			if (pthread_create(&t[i], NULL, worker, (void *)i))
				return 2;
		for (long i = 0; i < NR_THREADS; i++) {
			pthread_join(t[i], NULL);
			check_previous_owner(i);
			sh->tids[i] = 0;
		}
		/* now and then a child process that inherits nothing */
		if (gen++ % 4 == 0) {
			pid_t pid = fork();

			if (pid == 0) {
				void *head = (void *)1;

				_exit(get_robust_list2(0, &head, 0, 0) || head ? 1 : 0);
			}
			if (pid < 0 || th_wait_child(pid))
				note_bad(ECHILD);
		}
	}
	return 0;
}

static void test_64_threads_set_get_clear_exit_fork(void **state)
{
	struct robust_list2_stats before, after;

	sh = th_shared_alloc(sizeof(*sh), false);
	assert_non_null(sh);
	assert_int_equal(0, robust_list2_stats(&before));
	assert_int_equal(0, th_wait_child_ms(th_spawn_child(churn_process, NULL), 60000));
	if (sh->bad)
		print_error("undocumented errno %d\n", sh->bad_errno);
	assert_int_equal(0, sh->bad);
	assert_int_equal(0, sh->dead_bad);
	assert_true(sh->dead_ok > 0);
	assert_int_equal(0, robust_list2_stats(&after));
	assert_int_equal(before.tasks, after.tasks);
	th_free(sh, sizeof(*sh));
}

/*
 * Threads register in a loop while a sibling execs: they are killed in
 * de_thread() wherever they are, possibly inside the ioctl.  The exec'd
 * image checks its own slots are empty; afterwards no record is left.
 */
static void *registrar(void *p)
{
	struct robust_list_head *h = p;

	th_list64_init(h, TH_OFF64);
	for (;;) {
		for (unsigned int s = 0; s < 8; s++)
			set_robust_list2(h, s, TH_NATIVE, 0);
		for (unsigned int s = 0; s < 8; s++)
			set_robust_list2(NULL, s, TH_NATIVE, 0);
	}
	return NULL;
}

static int exec_while_registering(void *arg)
{
	static struct robust_list_head heads[16];
	char *argv[] = { "t_stress", "--check-empty", NULL };
	pthread_t t;

	for (int i = 0; i < 16; i++)
		if (pthread_create(&t, NULL, registrar, &heads[i]))
			return 2;
	usleep(20000);
	execv(self_exe, argv);
	return 3;
}

static void test_register_while_sibling_execs(void **state)
{
	struct robust_list2_stats before, after;

	assert_int_equal(0, robust_list2_stats(&before));
	for (int round = 0; round < 10; round++)
		assert_int_equal(0, th_wait_child(th_spawn_child(exec_while_registering, NULL)));
	assert_int_equal(0, robust_list2_stats(&after));
	assert_int_equal(before.tasks, after.tasks);
}

/*
 * get() aimed at a process that keeps exec'ing itself (each exec walks
 * and empties the slots): every answer is a head, NULL, or ESRCH.
 */
static int exec_loop(void *arg)
{
	char *argv[] = { "t_stress", "--exec-loop", "30", NULL };

	execv(self_exe, argv);
	return 3;
}

static void test_get_on_execing_and_exiting_target(void **state)
{
	long end = now_ms() + RUN_MS;
	pid_t pid = th_spawn_child(exec_loop, NULL);
	long answers = 0;

	while (now_ms() < end) {
		void *head;

		if (get_robust_list2(pid, &head, 0, 0) == 0)
			answers++;
		else if (errno == ESRCH)
			break;		/* it finished its exec loop */
		else
			fail_msg("get on an exec'ing target: errno %d", errno);
	}
	assert_int_equal(0, th_wait_child_ms(pid, 60000));
	assert_true(answers > 0);
}

static int exec_loop_main(int left)
{
	static struct robust_list_head head;
	char arg[16];
	char *argv[] = { "t_stress", "--exec-loop", arg, NULL };

	for (unsigned int s = 0; s < 8; s++) {
		void *h = (void *)1;

		/* the previous image's slots did not survive exec */
		if (get_robust_list2(0, &h, s, 0) || h)
			return 1;
	}
	th_list64_init(&head, TH_OFF64);
	set_robust_list2(&head, 0, TH_NATIVE, 0);
	if (left <= 0)
		return 0;
	snprintf(arg, sizeof(arg), "%d", left - 1);
	execv(self_exe, argv);
	return 3;
}

static int check_empty_main(void)
{
	for (unsigned int s = 0; s < 8; s++) {
		void *h = (void *)1;

		if (get_robust_list2(0, &h, s, 0) || h)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_64_threads_set_get_clear_exit_fork),
		cmocka_unit_test(test_register_while_sibling_execs),
		cmocka_unit_test(test_get_on_execing_and_exiting_target),
	};

	if (argc > 1 && !strcmp(argv[1], "--check-empty"))
		return check_empty_main();
	if (argc > 2 && !strcmp(argv[1], "--exec-loop"))
		return exec_loop_main(atoi(argv[2]));
	return cmocka_run_group_tests_name("stress", tests, NULL, NULL);
}
