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
#include <sched.h>
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
	long end = th_now_ms() + RUN_MS;
	unsigned int gen = 0;

	while (th_now_ms() < end) {
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

/*
 * Run @fn in a child process, which must exit 0 within a minute, and
 * require the module's registry back where it was: no record outlived
 * its thread.  (The native kernel keeps no count: its slots are freed
 * with the task, see t_set_get's per-thread cases.)
 */
static void run_child_leaving_no_record(int (*fn)(void *))
{
	struct robust_list2_stats before = { 0 }, after = { 0 };
	bool native = th_native();

	if (!native)
		assert_int_equal(0, robust_list2_stats(&before));
	assert_int_equal(0, th_wait_child_ms(th_spawn_child(fn, NULL), 60000));
	if (!native)
		assert_int_equal(0, robust_list2_stats(&after));
	assert_int_equal(before.tasks, after.tasks);
}

static void test_64_threads_set_get_clear_exit_fork(void **state)
{
	sh = th_shared_alloc(sizeof(*sh), false);
	assert_non_null(sh);
	run_child_leaving_no_record(churn_process);
	if (sh->bad)
		print_error("undocumented errno %d\n", sh->bad_errno);
	assert_int_equal(0, sh->bad);
	assert_int_equal(0, sh->dead_bad);
	assert_true(sh->dead_ok > 0);
	th_free(sh, sizeof(*sh));
}

/*
 * The module caches each thread's record per CPU.  Threads hop between
 * CPUs on every call, set and read their own slots, empty them all now
 * and then (the record is freed and made again), while the main thread
 * reads their slots by TID: every answer must be the asker's own head
 * (never a head of the thread that last ran on that CPU), and each
 * thread's exit must still find its record and recover its lock.
 */
#define MIG_THREADS	8
#define MIG_ROUNDS	2000

struct mig {
	/* one head per slot: a head may be in one slot of a thread only */
	struct robust_list_head head[MIG_THREADS][ROBUST_LIST2_NR_SLOTS];
	struct th_lock64 lock[MIG_THREADS];
	pid_t tid[MIG_THREADS];
	volatile int bad;
};

static struct mig *mg;

/* Which worker's head is @h: its index, or -1. */
static int mig_owner(void *h)
{
	for (int i = 0; i < MIG_THREADS; i++)
		for (int s = 0; s < ROBUST_LIST2_NR_SLOTS; s++)
			if (h == &mg->head[i][s])
				return i;
	return -1;
}

static void *mig_worker(void *p)
{
	long i = (long)p, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct th_lock64 *l = &mg->lock[i];

	for (int s = 0; s < ROBUST_LIST2_NR_SLOTS; s++)
		th_list64_init(&mg->head[i][s], TH_OFF64);
	l->futex = th_gettid();
	th_list64_add(&mg->head[i][0], l, false);
	__atomic_store_n(&mg->tid[i], th_gettid(), __ATOMIC_RELEASE);

	for (int k = 0; k < MIG_ROUNDS && !mg->bad; k++) {
		unsigned int s = k % 8;
		struct robust_list_head *h = &mg->head[i][s];
		cpu_set_t cpus;
		void *got = NULL;

		CPU_ZERO(&cpus);
		CPU_SET((k + i) % (ncpu > 0 ? ncpu : 1), &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
		if (set_robust_list2(h, s, TH_NATIVE, 0) ||
		    get_robust_list2(0, &got, s, 0) || got != h)
			mg->bad = 1;
		if (k % 64 == 63) {
			for (unsigned int e = 0; e < 8; e++)
				if (set_robust_list2(NULL, e, TH_NATIVE, 0))
					mg->bad = 2;
			if (get_robust_list2(0, &got, s, 0) || got)
				mg->bad = 3;
		}
	}
	if (set_robust_list2(&mg->head[i][0], 0, TH_NATIVE, 0))
		mg->bad = 4;
	return NULL;		/* exit holding the lock */
}

static int migrate_process(void *arg)
{
	pthread_t t[MIG_THREADS];
	int running = MIG_THREADS;

	for (long i = 0; i < MIG_THREADS; i++)
		if (pthread_create(&t[i], NULL, mig_worker, (void *)i))
			return 2;
	while (running && !mg->bad) {
		running = 0;
		for (int i = 0; i < MIG_THREADS; i++) {
			pid_t tid = __atomic_load_n(&mg->tid[i], __ATOMIC_ACQUIRE);
			void *got;

			if (!tid)
				continue;
			for (unsigned int s = 0; s < 8; s++) {
				got = NULL;
				if (get_robust_list2(tid, &got, s, 0)) {
					if (errno != ESRCH)
						mg->bad = 5;
					break;
				}
				running = 1;
				if (got && mig_owner(got) != i)
					mg->bad = 6;
			}
		}
	}
	for (int i = 0; i < MIG_THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < MIG_THREADS; i++)
		if (__atomic_load_n(&mg->lock[i].futex, __ATOMIC_ACQUIRE) != FUTEX_OWNER_DIED)
			return 10 + i;
	return mg->bad ? 20 + mg->bad : 0;
}

static void test_own_record_across_cpus(void **state)
{
	mg = th_shared_alloc(sizeof(*mg), false);
	assert_non_null(mg);
	run_child_leaving_no_record(migrate_process);
	th_free(mg, sizeof(*mg));
}

/*
 * The module reuses a retired thread's record for the next thread that
 * registers on that CPU at once, without a grace period (registry.c, the
 * pool), so a get by TID may stand on a record that its thread gives up
 * and another thread takes over meanwhile.  Threads of REUSE_LANES lanes
 * register their lane's head and exit (with the slot set, or emptied
 * first), one after the other in every lane, while the main thread reads
 * slot 0 of whichever thread each lane shows: every answer must be ESRCH,
 * empty, or that lane's own head, never another lane's; and while the
 * lane still shows the same thread after the answer, exactly its head
 * (it was registered throughout).
 */
#define REUSE_LANES	6

struct reuse {
	struct robust_list_head head[REUSE_LANES];
	pid_t tid[REUSE_LANES];
	volatile int stop;
	long gets, heads, empty, esrch, spawned;
	int bad, bad_lane, bad_from;
	pid_t bad_tid;
	void *bad_got;
};

static struct reuse *ru;

static void *reuse_child(void *p)
{
	long lane = (long)p;
	pid_t tid = th_gettid();

	if (set_robust_list2(&ru->head[lane], 0, TH_NATIVE, 0))
		ru->bad = 1;
	__atomic_store_n(&ru->tid[lane], tid, __ATOMIC_RELEASE);
	sched_yield();
	__atomic_store_n(&ru->tid[lane], 0, __ATOMIC_RELEASE);
	/* half of them give the record back here, half at exit */
	if (tid & 1 && set_robust_list2(NULL, 0, TH_NATIVE, 0))
		ru->bad = 2;
	return NULL;
}

static void *reuse_lane(void *p)
{
	pthread_t t;

	while (!ru->stop) {
		if (pthread_create(&t, NULL, reuse_child, p)) {
			ru->bad = 3;
			break;
		}
		pthread_join(t, NULL);
		__atomic_add_fetch(&ru->spawned, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* Which lane's head is @h: its index, or -1. */
static int reuse_lane_of(void *h)
{
	for (int i = 0; i < REUSE_LANES; i++)
		if (h == &ru->head[i])
			return i;
	return -1;
}

static void reuse_check(int lane)
{
	pid_t tid = __atomic_load_n(&ru->tid[lane], __ATOMIC_ACQUIRE), now;
	void *got = (void *)1;
	int ret;

	if (!tid)
		return;
	ret = get_robust_list2(tid, &got, 0, 0);
	now = __atomic_load_n(&ru->tid[lane], __ATOMIC_ACQUIRE);
	ru->gets++;
	if (ret) {
		ru->esrch++;
		if (errno == ESRCH && now != tid)
			return;
		/* ESRCH for a thread still registered, or another errno */
		ru->bad = 5;
		ru->bad_from = errno;
		ru->bad_tid = tid;
		return;
	} else if (got == &ru->head[lane]) {
		ru->heads++;
		return;
	} else if (!got) {
		ru->empty++;
		if (now != tid)
			return;
	}
	ru->bad = 4;
	ru->bad_lane = lane;
	ru->bad_from = got ? reuse_lane_of(got) : -1;
	ru->bad_tid = tid;
	ru->bad_got = got;
}

static int reuse_process(void *arg)
{
	long end = th_now_ms() + RUN_MS;
	pthread_t t[REUSE_LANES];

	for (int i = 0; i < REUSE_LANES; i++)
		th_list64_init(&ru->head[i], TH_OFF64);
	for (long i = 0; i < REUSE_LANES; i++)
		if (pthread_create(&t[i], NULL, reuse_lane, (void *)i))
			return 2;
	while (th_now_ms() < end && !ru->bad)
		for (int i = 0; i < REUSE_LANES && !ru->bad; i++)
			reuse_check(i);
	ru->stop = 1;
	for (int i = 0; i < REUSE_LANES; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static void test_get_while_records_are_reused(void **state)
{
	ru = th_shared_alloc(sizeof(*ru), false);
	assert_non_null(ru);
	run_child_leaving_no_record(reuse_process);
	print_message("# reuse: %ld threads registered and exited; %ld gets: %ld their own head, "
		      "%ld empty, %ld ESRCH\n", ru->spawned, ru->gets, ru->heads, ru->empty,
		      ru->esrch);
	if (ru->bad == 5)
		print_error("get(%d), a thread still registered, failed: errno %d\n",
			    ru->bad_tid, ru->bad_from);
	if (ru->bad == 4)
		print_error("get(%d) of lane %d answered %p (%s%d's head; its own is %p)\n",
			    ru->bad_tid, ru->bad_lane, ru->bad_got,
			    ru->bad_from >= 0 ? "lane " : "no lane, ", ru->bad_from,
			    (void *)&ru->head[ru->bad_lane]);
	assert_int_equal(0, ru->bad);
	assert_true(ru->heads > 0);
	th_free(ru, sizeof(*ru));
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
	for (int round = 0; round < 10; round++)
		run_child_leaving_no_record(exec_while_registering);
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
	long end = th_now_ms() + RUN_MS;
	pid_t pid = th_spawn_child(exec_loop, NULL);
	long answers = 0;

	while (th_now_ms() < end) {
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
		cmocka_unit_test(test_own_record_across_cpus),
		cmocka_unit_test(test_get_while_records_are_reused),
		cmocka_unit_test(test_register_while_sibling_execs),
		cmocka_unit_test(test_get_on_execing_and_exiting_target),
	};

	if (argc > 1 && !strcmp(argv[1], "--check-empty"))
		return check_empty_main();
	if (argc > 2 && !strcmp(argv[1], "--exec-loop"))
		return exec_loop_main(atoi(argv[2]));
	return cmocka_run_group_tests_name("stress", tests, NULL, NULL);
}
