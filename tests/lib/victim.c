// SPDX-License-Identifier: GPL-2.0
/*
 * The victim of t_oom and t_freezer; see victim.h.
 */
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "helpers.h"
#include "victim.h"

const char *const vlock_name[VL_NR] = {
	"slot 0 (native list)", "slot 5 (32-bit list)", "legacy list", "sibling thread's slot 1",
};

#define VICTIM_MAX_MB	256	/* bounded: 8x the cgroup's limit, far below the VM's RAM */

uint32_t *vword(struct victim *v, enum vlock k)
{
	switch (k) {
	case VL_NATIVE: return &v->l.futex;
	case VL_LIST32: return &v->l32.futex;
	case VL_LEGACY: return &v->ll.futex;
	default: return &v->ls.futex;
	}
}

static void victim_park(uint32_t *flag, int ms)
{
	th_wait_flag(flag, 1, ms);
}

static void *victim_sibling(void *p)
{
	struct victim *v = p;
	uint32_t tid = th_gettid();

	v->sib_tid = tid;
	th_list64_init(&v->hs, TH_OFF64);
	v->ls.futex = tid | FUTEX_WAITERS;
	th_list64_add(&v->hs, &v->ls, false);
	if (set_robust_list2(&v->hs, 1, TH_NATIVE, 0))
		v->err = 5;
	th_set_flag(&v->sib_ready, 1);
	/* never set: the sibling's lock must be recovered by the kill, not an exit */
	victim_park(&v->sib_never, 6 * TH_TIMEOUT_MS);
	return NULL;
}

static int victim_main(void *p)
{
	struct victim *v = p;
	struct rlimit no_core = { 0, 0 };
	uint32_t tid = th_gettid();
	pthread_t t;

	setrlimit(RLIMIT_CORE, &no_core);
	v->tid = tid;
	if (pthread_create(&t, NULL, victim_sibling, v)) {
		v->err = 1;
	} else if (!th_wait_flag(&v->sib_ready, 1, TH_TIMEOUT_MS)) {
		v->err = 2;
	} else {
		th_list64_init(&v->h, TH_OFF64);
		v->l.futex = tid | FUTEX_WAITERS;
		th_list64_add(&v->h, &v->l, false);
		th_list32_init(&v->h32, TH_OFF32);
		v->l32.futex = tid | FUTEX_WAITERS;
		th_list32_add(&v->h32, &v->l32, false);
		th_list64_init(&v->legacy, TH_OFF64);
		v->ll.futex = tid | FUTEX_WAITERS;
		th_list64_add(&v->legacy, &v->ll, false);
		if (set_robust_list2(&v->h, 0, TH_NATIVE, 0))
			v->err = 3;
		else if (set_robust_list2((void *)&v->h32, 5, FUTEX_ROBUST_LIST_CMD_SET_32, 0))
			v->err = 4;
		else if (syscall(SYS_set_robust_list, &v->legacy, sizeof(v->legacy)))
			v->err = 6;
	}
	th_set_flag(&v->ready, 1);
	if (v->err)
		return v->err;
	if (v->mode == V_PARK) {
		victim_park(&v->go, 6 * TH_TIMEOUT_MS);	/* until killed */
		return 60;
	}
	/* V_OOM: wait until we are in the cgroup, then eat memory until killed */
	if (!th_wait_flag(&v->go, 1, 3 * TH_TIMEOUT_MS))
		return 61;
	for (int mb = 0; mb < VICTIM_MAX_MB; mb++) {
		char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return 62;
		memset(m, 0xa5, 1 << 20);
	}
	return 63;	/* never OOM-killed: the limit did not apply */
}

struct victim *victim_new(enum vmode mode)
{
	struct victim *v = th_shared_alloc(sizeof(*v), true);	/* low: slot 5 is 32-bit */

	assert_non_null(v);
	v->mode = mode;
	return v;
}

/* Start the victim and one waiter (in this process) per lock. */
pid_t victim_start(struct victim *v)
{
	pid_t pid = th_spawn_kid(victim_main, v);

	assert_true(pid > 0);
	assert_true(th_wait_flag(&v->ready, 1, TH_TIMEOUT_MS));
	assert_int_equal(0, v->err);
	for (int k = 0; k < VL_NR; k++) {
		uint32_t *w = vword(v, k);

		v->w[k] = (struct th_waiter){ .uaddr = w, .val = *w,
					      .timeout_ms = 4 * TH_TIMEOUT_MS };
		assert_int_equal(0, th_waiter_start(&v->w[k]));
	}
	return pid;
}

/* The victim is gone: every lock recovered, every waiter already awake. */
void victim_check(struct victim *v)
{
	for (int k = 0; k < VL_NR; k++) {
		uint32_t *w = vword(v, k);
		int asleep = th_futex_wake(w, INT_MAX, false);

		if (*w != (FUTEX_OWNER_DIED | FUTEX_WAITERS) || asleep)
			print_error("%s: word %#x, %d waiter(s) still asleep\n",
				    vlock_name[k], *w, asleep);
		assert_int_equal(FUTEX_OWNER_DIED | FUTEX_WAITERS, *w);
		assert_int_equal(0, asleep);
		assert_int_equal(0, th_waiter_join(&v->w[k]));
	}
}

/* Nothing happened yet: the locks are still held, their waiters asleep. */
void victim_check_untouched(struct victim *v, pid_t pid)
{
	for (int k = 0; k < VL_NR; k++) {
		int32_t owner = k == VL_SIBLING ? v->sib_tid : v->tid;

		assert_int_equal((uint32_t)owner | FUTEX_WAITERS, *vword(v, k));
		assert_int_equal(0, th_wait_futex_sleeper(getpid(), v->w[k].tid, vword(v, k)));
	}
	assert_int_equal(0, kill(pid, 0));
}
