// SPDX-License-Identifier: GPL-2.0
/*
 * walk_limit is a budget for a thread's whole exit, all slots together: a
 * dying thread cannot be interrupted, so eight huge lists must not cost
 * eight times one.  A child registers 8 heads on lists longer than the
 * budget (eight lists sharing one huge chain, then eight chains of their
 * own), is SIGKILLed, and the module's entry counter must have moved by
 * at most walk_limit; the kill -> waitpid time is printed and bounded.
 * The native kernel (make check-native) keeps no counters: there the
 * chains' words are the child's own, and the words marked FUTEX_OWNER_DIED
 * count the entries walked.
 * The same child, OOM-killed inside a memory cgroup instead, must die too:
 * the OOM reaper assumes a short exit.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "cgroup.h"
#include "helpers.h"

struct budget {
	uint32_t ready;
	int32_t err;
	bool shared_chain;		/* all heads lead into chain 0 */
	bool oom;			/* then eat memory until OOM-killed */
	bool owned;			/* words the child's (native: the count) */
	uint32_t go;
	unsigned long n;		/* entries per chain */
	struct robust_list_head h[ROBUST_LIST2_NR_SLOTS];
	struct th_lock64 *chain[ROBUST_LIST2_NR_SLOTS];
};

/*
 * Unowned words: each entry costs the walk two reads, nothing else; or
 * owned ones (@tid), which the walk marks.
 */
static void build_chain(struct robust_list_head *h, struct th_lock64 *l, unsigned long n,
			uint32_t tid)
{
	th_list64_init(h, TH_OFF64);
	for (unsigned long i = n; i-- > 0;) {
		l[i].futex = tid;
		l[i].list.next = h->list.next;
		h->list.next = &l[i].list;
	}
}

static int budget_child(void *arg)
{
	struct budget *b = arg;

	for (int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++) {
		if (!b->shared_chain || i == 0) {
			build_chain(&b->h[i], b->chain[i], b->n, b->owned ? th_gettid() : 0);
		} else {
			th_list64_init(&b->h[i], TH_OFF64);
			b->h[i].list.next = b->h[0].list.next;	/* never back to h[i] */
		}
		if (set_robust_list2(&b->h[i], i, TH_NATIVE, 0))
			b->err = errno;
	}
	__atomic_store_n(&b->ready, 1, __ATOMIC_RELEASE);
	th_futex_wake(&b->ready, 1, false);
	if (b->oom) {
		/* in the cgroup once go is set: private memory until killed */
		for (int i = 0; i < 600 && !__atomic_load_n(&b->go, __ATOMIC_ACQUIRE); i++)
			th_futex_wait(&b->go, 0, 100, false);
		for (int mb = 0; mb < 4096; mb++) {
			char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (m == MAP_FAILED)
				return 2;
			memset(m, 0xa5, 1 << 20);
		}
		return 3;	/* never OOM-killed */
	}
	for (int i = 0; i < 600; i++)	/* SIGKILLed long before */
		th_sleep_ms(100);
	return 1;
}

static void run_budget(bool shared_chain, bool oom)
{
	struct robust_list2_stats before = { 0 }, after = { 0 };
	struct robust_list2_info info;
	unsigned long long entries = 0;
	bool native = th_native();
	size_t chain_size;
	struct budget *b;
	long t0, ms;
	pid_t pid;

	if (!TH_LP64)
		skip();		/* 8 chains of walk_limit entries: 64-bit only */
	assert_int_equal(0, robust_list2_info(&info));
	b = th_shared_alloc(sizeof(*b), false);
	assert_non_null(b);
	b->shared_chain = shared_chain;
	b->oom = oom;
	b->owned = native;
	b->n = info.walk_limit + 1000;
	chain_size = b->n * sizeof(struct th_lock64);
	for (int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++) {
		if (shared_chain && i)
			break;
		b->chain[i] = th_shared_alloc(chain_size, false);
		assert_non_null(b->chain[i]);
	}

	pid = th_spawn_child(budget_child, b);
	for (int i = 0; i < 600 && !__atomic_load_n(&b->ready, __ATOMIC_ACQUIRE); i++)
		th_futex_wait(&b->ready, 0, 100, false);
	assert_int_equal(1, b->ready);
	assert_int_equal(0, b->err);

	if (!native)
		assert_int_equal(0, robust_list2_stats(&before));
	t0 = th_now_ms();
	if (oom) {
		/* the lists are in the parent's (shared) memory, charged to it */
		cg_enter(pid);
		cg_oom_window(true);
		__atomic_store_n(&b->go, 1, __ATOMIC_RELEASE);
		th_futex_wake(&b->go, 1, false);
	} else {
		assert_int_equal(0, kill(pid, SIGKILL));
	}
	assert_int_equal(128 + SIGKILL, th_wait_child_ms(pid, 60000));
	ms = th_now_ms() - t0;
	cg_oom_window(false);
	if (native) {
		for (int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
			for (unsigned long j = 0; b->chain[i] && j < b->n; j++)
				entries += b->chain[i][j].futex == FUTEX_OWNER_DIED;
	} else {
		assert_int_equal(0, robust_list2_stats(&after));
		entries = after.entries - before.entries;
		assert_true(after.limited > before.limited);
	}
	if (oom)
		assert_true(cg_event("memory.events", "oom_kill") >= 1);

	print_message("# %s%s: %llu entries walked (budget %llu), %s -> waitpid %ld ms\n",
		      shared_chain ? "8 heads, one chain" : "8 chains", oom ? ", OOM" : "",
		      entries, (unsigned long long)info.walk_limit, oom ? "go" : "kill", ms);
	assert_true(entries <= info.walk_limit);
	assert_true(entries >= info.walk_limit / 2);
	assert_true(ms < 30000);

	for (int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		if (b->chain[i])
			th_free(b->chain[i], chain_size);
	th_free(b, sizeof(*b));
}

static void test_eight_heads_on_one_huge_chain(void **state)
{
	run_budget(true, false);
}

static void test_eight_huge_lists(void **state)
{
	run_budget(false, false);
}

static int oom_setup(void **state)
{
	if (cg_setup_group("rl2-budget", true))
		return 0;	/* the test skips when cg.path is empty */
	return th_write_file(cg_file("memory.max"), "32M");
}

/* An OOM kill in a memory cgroup of a thread with 8 huge lists completes. */
static void test_oom_kill_with_eight_huge_lists(void **state)
{
	if (!cg.path[0])
		skip();
	if (access(cg_file("memory.swap.max"), F_OK) == 0)
		assert_int_equal(0, th_write_file(cg_file("memory.swap.max"), "0"));
	run_budget(false, true);
}

static int setup(void **state)
{
	return th_have_device() || th_native() ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eight_heads_on_one_huge_chain),
		cmocka_unit_test(test_eight_huge_lists),
		cmocka_unit_test_setup_teardown(test_oom_kill_with_eight_huge_lists, oom_setup,
						cg_teardown),
	};

	return cmocka_run_group_tests_name("exit_budget", tests, setup, NULL);
}
