// SPDX-License-Identifier: GPL-2.0
/*
 * Tagged user pointers, followed as the kernel's own walk follows them.
 *
 * Under arm64's tagged address ABI (PR_SET_TAGGED_ADDR_CTRL; HWASan and
 * MTE allocators hand out such pointers) a head, the next pointers and
 * list_op_pending may carry a tag in the top byte; x86 LAM puts one in
 * bits 57-62.  A holder enables the ABI, builds a list of glibc robust
 * mutexes (their __list entries) in which every pointer carries a tag,
 * registers it and is SIGKILLed: every word must read FUTEX_OWNER_DIED
 * and a waiter's pthread_mutex_timedlock() return EOWNERDEAD.  The same
 * list goes through a slot, a based slot (robust_list2_set_based(), the
 * tag in the guest pointers) and, in the same test, set_robust_list(): the
 * control, the kernel's own walk.  Without the ABI the kernel's accessors
 * refuse a tagged pointer and its walk recovers nothing; ours neither.
 *
 * 64-bit programs only (a 32-bit pointer has no tag).  x86 needs LAM in
 * the CPU and the kernel (CONFIG_ADDRESS_MASKING): neither Debian's
 * kernels nor QEMU 7.2's TCG have it, so there the ABI case skips with
 * the reason and only the case without the ABI runs.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "helpers.h"

#if UINTPTR_MAX > 0xffffffffU
#ifndef PR_SET_TAGGED_ADDR_CTRL
#define PR_SET_TAGGED_ADDR_CTRL	55
#define PR_TAGGED_ADDR_ENABLE	(1UL << 0)
#endif
#ifndef ARCH_ENABLE_TAGGED_ADDR
#define ARCH_ENABLE_TAGGED_ADDR	0x4002
#endif

#if defined(__aarch64__)
#define TAG_SHIFT	56		/* TBI: the top byte */
#define TAG_BITS	0xffU
#else
#define TAG_SHIFT	57		/* LAM_U57: bits 57-62 */
#define TAG_BITS	0x3fU
#endif

#define NMUTEX		3		/* on the list; one more only pending */
#define HEAD_TAG	0x5a
#define PENDING_TAG	0x3c
#define EXIT_NO_ABI	77		/* the holder could not enable the ABI */

enum how { SLOT, BASED, LEGACY };

struct tagged {
	uint32_t ready;
	uint32_t tid;
	int32_t err;			/* the holder's failing step */
	enum how how;
	bool abi;
	uint64_t base;			/* BASED: host = base + guest */
	struct robust_list_head head;
	pthread_mutex_t m[NMUTEX + 1];	/* m[NMUTEX]: list_op_pending only */
};

/* @p as the list has it: a guest address for BASED, with @tag on it. */
static uint64_t tagged(const struct tagged *t, const void *p, unsigned int tag)
{
	return ((uintptr_t)p - t->base) | (uint64_t)(tag & TAG_BITS) << TAG_SHIFT;
}

/* glibc's robust list entry of a mutex, and its futex_offset. */
static void *entry(pthread_mutex_t *m)
{
	return &m->__data.__list.__next;
}

#define MUTEX_OFF	((long)offsetof(pthread_mutex_t, __data.__lock) - \
			 (long)offsetof(pthread_mutex_t, __data.__list.__next))

static int enable_abi(void)
{
#if defined(__aarch64__)
	return prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE, 0, 0, 0);
#elif defined(__x86_64__)
	return syscall(SYS_arch_prctl, ARCH_ENABLE_TAGGED_ADDR, 6UL);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* The holder: take every mutex, list them with tagged pointers, register. */
static int holder(void *p)
{
	struct tagged *t = p;
	uint32_t tid = th_gettid();
	uint64_t head = tagged(t, &t->head, HEAD_TAG), got = 0, base = 1;
	unsigned int type;
	int i;

	if (t->abi && enable_abi())
		return EXIT_NO_ABI;
	for (i = 0; i <= NMUTEX; i++) {
		t->m[i].__data.__lock = tid;	/* as pthread_mutex_lock() leaves it */
		t->m[i].__data.__owner = tid;
	}
	t->head.futex_offset = MUTEX_OFF;
	t->head.list.next = (void *)(uintptr_t)tagged(t, entry(&t->m[0]), 0x11);
	for (i = 0; i < NMUTEX; i++)
		*(uint64_t *)entry(&t->m[i]) = i + 1 < NMUTEX ?
			tagged(t, entry(&t->m[i + 1]), 0x12 + i) : head;
	t->head.list_op_pending = (void *)(uintptr_t)tagged(t, entry(&t->m[NMUTEX]),
							     PENDING_TAG);

	/* SET, GET and SET_BASED answer as the legacy calls do: the head as given */
	switch (t->how) {
	case SLOT:
		if (set_robust_list2((void *)(uintptr_t)head, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0))
			return 10;
		if (get_robust_list2(0, (void **)&got, 0, 0) || got != head)
			return 11;
		break;
	case BASED:
		if (robust_list2_set_based(head, t->base, 0, FUTEX_ROBUST_LIST_CMD_SET_64))
			return 20;
		if (robust_list2_get_based(0, 0, &got, &base, &type) || got != head ||
		    base != t->base || type != ROBUST_LIST2_TYPE_64)
			return 21;
		break;
	case LEGACY:
		if (syscall(SYS_set_robust_list, (void *)(uintptr_t)head, sizeof(t->head)))
			return 30;
		{
			size_t len;

			if (syscall(SYS_get_robust_list, 0, &got, &len) || got != head)
				return 31;
		}
		break;
	}
	__atomic_store_n(&t->tid, tid, __ATOMIC_RELEASE);
	th_set_flag(&t->ready, 1);
	for (;;)
		pause();
}

/*
 * The holder's ready flag, or false as soon as it has exited without
 * setting it (EXIT_NO_ABI on every x86 kernel here): waiting out the
 * whole timeout for a flag a dead child cannot set cost 10 s a run.
 * The child is left unreaped (WNOWAIT) for th_reap_kid().
 */
static bool holder_ready(struct tagged *t, pid_t pid)
{
	long deadline = th_now_ms() + TH_TIMEOUT_MS;
	siginfo_t si;

	do {
		if (__atomic_load_n(&t->ready, __ATOMIC_ACQUIRE))
			return true;
		memset(&si, 0, sizeof(si));
		if (!waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == pid)
			return __atomic_load_n(&t->ready, __ATOMIC_ACQUIRE);
		th_sleep_ms(1);
	} while (th_now_ms() < deadline);
	return false;
}

struct waiter {
	pthread_mutex_t *m;
	pid_t tid;
	int ret;
};

static void *waiter(void *p)
{
	struct waiter *w = p;
	struct timespec ts;

	__atomic_store_n(&w->tid, th_gettid(), __ATOMIC_RELEASE);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TH_TIMEOUT_MS / 1000;
	w->ret = pthread_mutex_timedlock(w->m, &ts);
	if (w->ret == EOWNERDEAD) {
		pthread_mutex_consistent(w->m);
		pthread_mutex_unlock(w->m);
	}
	return NULL;
}

/*
 * One holder registering the list as @how, with the tagged address ABI
 * enabled or not, SIGKILLed while a waiter sleeps on m[0] (when @abi).
 * Returns the number of mutexes recovered: m[0] by its waiter's
 * EOWNERDEAD, the others by FUTEX_OWNER_DIED in their words.
 */
static int run(enum how how, bool abi)
{
	struct tagged *t = th_shared_alloc(sizeof(*t), false);
	pthread_mutexattr_t ma;
	struct waiter w = { 0 };
	pthread_t th;
	int i, n = 0, code;
	pid_t pid;

	assert_non_null(t);
	t->how = how;
	t->abi = abi;
	t->base = how == BASED ? 0x10000 : 0;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
	for (i = 0; i <= NMUTEX; i++)
		assert_int_equal(0, pthread_mutex_init(&t->m[i], &ma));

	pid = th_spawn_kid(holder, t);
	assert_true(pid > 0);
	if (!holder_ready(t, pid)) {
		code = th_reap_kid(pid, TH_TIMEOUT_MS);
		if (code == EXIT_NO_ABI) {
			print_message("# the kernel or CPU has no tagged address ABI%s\n",
#ifdef __aarch64__
				      ""
#else
				      " (x86 LAM: not in Debian's kernels, not in QEMU 7.2)"
#endif
				      );
			th_free(t, sizeof(*t));
			skip();
		}
		fail_msg("holder failed at step %d", code);
	}
	if (abi) {
		w.m = &t->m[0];
		assert_int_equal(0, pthread_create(&th, NULL, waiter, &w));
		while (!__atomic_load_n(&w.tid, __ATOMIC_ACQUIRE))
			th_sleep_ms(1);
		assert_int_equal(0, th_wait_futex_sleeper(getpid(), w.tid, &t->m[0].__data.__lock));
	}
	kill(pid, SIGKILL);
	assert_int_equal(128 + SIGKILL, th_reap_kid(pid, TH_TIMEOUT_MS));

	if (abi) {
		assert_int_equal(0, pthread_join(th, NULL));
		n += w.ret == EOWNERDEAD;
	} else {
		n += t->m[0].__data.__lock == FUTEX_OWNER_DIED;
	}
	for (i = 1; i <= NMUTEX; i++) {
		uint32_t word = t->m[i].__data.__lock;

		if (word == FUTEX_OWNER_DIED)
			n++;
		else if (word != t->tid)
			fail_msg("mutex %d: word %#x, neither the holder's tid nor owner-died",
				 i, word);
	}
	th_free(t, sizeof(*t));
	return n;
}

/*
 * The control first: the kernel's own walk of the legacy list follows the
 * tagged pointers.  Then the same list in a slot, and in a based slot.
 */
static void test_tagged_list_recovered_as_by_kernel(void **state)
{
	assert_int_equal(NMUTEX + 1, run(LEGACY, true));
	assert_int_equal(NMUTEX + 1, run(SLOT, true));
	if (!th_native())	/* based slots: the module's only */
		assert_int_equal(NMUTEX + 1, run(BASED, true));
}

/* Without the ABI the kernel's walk recovers nothing, and neither do we. */
static void test_tagged_list_without_abi_as_by_kernel(void **state)
{
	assert_int_equal(0, run(LEGACY, false));
	assert_int_equal(0, run(SLOT, false));
	if (!th_native())	/* based slots: the module's only */
		assert_int_equal(0, run(BASED, false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_tagged_list_recovered_as_by_kernel,
					  th_kids_teardown),
		cmocka_unit_test_teardown(test_tagged_list_without_abi_as_by_kernel,
					  th_kids_teardown),
	};

	return cmocka_run_group_tests_name("tagged", tests, NULL, NULL);
}
#else
int main(void)
{
	return 77;	/* a 32-bit pointer carries no tag */
}
#endif
