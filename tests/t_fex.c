// SPDX-License-Identifier: GPL-2.0
/*
 * The FEX-Emu case, end to end: a 64-bit emulator process whose threads
 * each have their own 64-bit list (the emulator's locks) and a 32-bit list
 * (the 32-bit guest's locks, with 4-byte pointers), the guest's memory
 * placed below 4 GiB the way an emulator does it where there is no
 * MAP_32BIT (arm64: an address hint with MAP_FIXED_NOREPLACE, see
 * th_mmap_low()).  The process is SIGKILLed while its threads hold locks
 * on every list, with a lock half-taken in each list_op_pending and a
 * glibc robust mutex (the legacy list) held too; every waiter in another
 * process must come back woken, with FUTEX_OWNER_DIED in the word, and
 * the mutex with EOWNERDEAD.  On arm64 no kernel can do this without the
 * module: there is no compat set_robust_list for a 64-bit process.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "helpers.h"

#define NTHREADS	3
#define NLOCKS		3	/* per list; the last one only pending */

struct guest_thread {
	struct robust_list_head h64;
	struct robust_list_head32 h32;
	struct th_lock64 l64[NLOCKS];
	struct th_lock32 l32[NLOCKS];
	uint32_t tid;
};

struct fex {
	uint32_t ready;
	pthread_mutex_t mutex;		/* robust, process-shared: glibc's list */
	struct guest_thread t[NTHREADS];
};

/* One emulator thread: hold NLOCKS - 1 locks on each list, one pending. */
static void *emulator_thread(void *p)
{
	struct guest_thread *t = p;
	uint32_t tid = th_gettid();
	int i;

	th_list64_init(&t->h64, TH_OFF64);
	th_list32_init(&t->h32, TH_OFF32);
	for (i = 0; i < NLOCKS; i++) {
		t->l64[i].futex = tid;
		t->l32[i].futex = tid;
		if (i < NLOCKS - 1) {
			th_list64_add(&t->h64, &t->l64[i], false);
			th_list32_add(&t->h32, &t->l32[i], false);
		}
	}
	/* the last lock of each list was being taken: pending, not linked */
	t->h64.list_op_pending = &t->l64[NLOCKS - 1].list;
	t->h32.list_op_pending = th_p32(&t->l32[NLOCKS - 1].list);
	if (set_robust_list2(&t->h64, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0) ||
	    set_robust_list2((void *)&t->h32, 1, FUTEX_ROBUST_LIST_CMD_SET_32, 0))
		return (void *)(intptr_t)errno;
	__atomic_store_n(&t->tid, tid, __ATOMIC_RELEASE);	/* registered */
	return NULL;
}

/* The other threads: register, then hold their locks until the SIGKILL. */
static void *emulator_thread_main(void *p)
{
	void *err = emulator_thread(p);

	if (err)
		return err;
	for (;;)
		pause();
}

static int emulator(void *p)
{
	struct fex *f = p;
	pthread_t th[NTHREADS];
	int i;

	if (pthread_mutex_lock(&f->mutex))
		return 1;
	for (i = 1; i < NTHREADS; i++)
		if (pthread_create(&th[i], NULL, emulator_thread_main, &f->t[i]))
			return 2;
	if (emulator_thread(&f->t[0]))
		return 3;
	for (;;) {
		int n = 0;	/* until every thread has registered */

		for (i = 0; i < NTHREADS; i++)
			n += __atomic_load_n(&f->t[i].tid, __ATOMIC_ACQUIRE) != 0;
		if (n == NTHREADS)
			break;
		th_sleep_ms(1);
	}
	th_set_flag(&f->ready, 1);
	for (;;)
		pause();
}

static void test_sigkilled_emulator_guest_and_host_locks_recovered(void **state)
{
	struct fex *f = th_shared_alloc(sizeof(struct fex), true);
	struct th_waiter w[NTHREADS][2][NLOCKS] = { 0 };
	pthread_mutexattr_t ma;
	struct timespec ts;
	int i, j, k;
	pid_t pid;

	assert_non_null(f);
	/* the guest's memory really is below 4 GiB, mapped in a 64-bit process */
	assert_true((uint64_t)(uintptr_t)f + sizeof(*f) <= (1ULL << 32));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	assert_int_equal(0, pthread_mutex_init(&f->mutex, &ma));

	pid = th_spawn_kid(emulator, f);
	assert_true(pid > 0);
	assert_true(th_wait_flag(&f->ready, 1, TH_TIMEOUT_MS));

	/* a waiter in this process on every word the emulator holds */
	for (i = 0; i < NTHREADS; i++)
		for (k = 0; k < NLOCKS; k++)
			for (j = 0; j < 2; j++) {
				struct th_waiter *x = &w[i][j][k];

				x->uaddr = j ? &f->t[i].l32[k].futex : &f->t[i].l64[k].futex;
				__atomic_or_fetch(x->uaddr, FUTEX_WAITERS, __ATOMIC_SEQ_CST);
				x->val = f->t[i].tid | FUTEX_WAITERS;
				x->timeout_ms = TH_TIMEOUT_MS;
				assert_int_equal(0, th_waiter_start(x));
			}

	kill(pid, SIGKILL);
	assert_int_equal(128 + SIGKILL, th_reap_kid(pid, TH_TIMEOUT_MS));

	for (i = 0; i < NTHREADS; i++)
		for (j = 0; j < 2; j++)
			for (k = 0; k < NLOCKS; k++) {
				struct th_waiter *x = &w[i][j][k];

				assert_int_equal(0, th_waiter_join(x));	/* woken */
				assert_int_equal(FUTEX_WAITERS | FUTEX_OWNER_DIED,
						 __atomic_load_n(x->uaddr, __ATOMIC_ACQUIRE));
			}
	/* glibc's own robust mutex, on the legacy list beside ours */
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TH_TIMEOUT_MS / 1000;
	assert_int_equal(EOWNERDEAD, pthread_mutex_timedlock(&f->mutex, &ts));
	assert_int_equal(0, pthread_mutex_consistent(&f->mutex));
	assert_int_equal(0, pthread_mutex_unlock(&f->mutex));
	th_free(f, sizeof(*f));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_sigkilled_emulator_guest_and_host_locks_recovered,
					  th_kids_teardown),
	};

	if (!TH_LP64)
		return 77;	/* the case is a 64-bit process with 32-bit lists */
	return cmocka_run_group_tests_name("fex", tests, NULL, NULL);
}
