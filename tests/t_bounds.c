// SPDX-License-Identifier: GPL-2.0
/*
 * Resource bounds (SPEC "Reliability and security"): many register ->
 * exit cycles leave the registry count and the rl2_task slab where they
 * started, and one thread can never pin more than one record.
 *
 * The slab is read only as root (/proc/slabinfo, the cache's shrink
 * file), which the VM has; without it only the registry count is checked.
 * The cycles run in a forked child, every wait is bounded.
 * RL2_TEST_FILTER runs a subset (cmocka_set_test_filter()).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <cmocka.h>

#include "helpers.h"

#define SLAB_NAME	"rl2_task"
#define SLAB_SYSFS	"/sys/kernel/slab/" SLAB_NAME
#define PARAM_POOLED	"/sys/module/robust_list2/parameters/pooled"

/*
 * @active is the slab's active objects less the records the module keeps
 * in its per-CPU pool for reuse (@pooled, its read-only "pooled"
 * parameter; registry.c): those are retired records, in use by the module
 * on purpose, at most 8 per CPU.  Subtracting the exact count keeps every
 * check below exact: a leaked record is still counted.  Records KFENCE
 * placed (kfence_live()) are added to the slab's count.
 */
struct slab {
	long active, total, objsize, perslab, pages, pooled;
};

/*
 * The /proc/slabinfo line our records are counted on.  SLUB merges caches
 * of the same size and flags (CONFIG_SLAB_MERGE_DEFAULT=y on Debian):
 * Debian's 6.1 kernel has a 112-byte khugepaged_mm_slot cache, so rl2_task
 * becomes an alias of it and has no line of its own; 6.12 has no such
 * cache and lists rl2_task.  /sys/kernel/slab/<name> of every alias links
 * to the same directory, which tells us the line to read.  A shared line
 * also counts the other cache's objects: khugepaged's are one per mm it
 * tracks, freed lazily when khugepaged next scans, a handful here (the
 * few processes this test forks); SLAB_SHARED_NOISE allows for them.  A
 * leak of one record per thread would exceed it a thousandfold.
 */
#define SLAB_SHARED_NOISE 32

static char slab_name[64];
static bool slab_shared;

static bool slab_find(void)
{
	char target[256], other[256], path[320], line[512], name[64];
	ssize_t n, m;
	FILE *f;

	if (slab_name[0])
		return true;
	n = readlink(SLAB_SYSFS, target, sizeof(target) - 1);
	f = fopen("/proc/slabinfo", "re");
	if (!f)
		return false;
	while (!slab_name[0] && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s", name) != 1 || name[0] == '#' || !strcmp(name, "slabinfo"))
			continue;
		if (!strcmp(name, SLAB_NAME)) {
			snprintf(slab_name, sizeof(slab_name), "%s", name);
			break;
		}
		if (n <= 0)
			continue;
		target[n] = 0;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s", name);
		m = readlink(path, other, sizeof(other) - 1);
		if (m == n && !memcmp(other, target, n)) {
			snprintf(slab_name, sizeof(slab_name), "%s", name);
			slab_shared = true;
		}
	}
	fclose(f);
	if (slab_shared)
		print_message("# " SLAB_NAME " is merged into the %s slab cache (%s): slab counts "
			      "allow %d objects of theirs\n", slab_name, target, SLAB_SHARED_NOISE);
	return slab_name[0] != 0;
}

static long slab_noise(void)
{
	return slab_shared ? SLAB_SHARED_NOISE : 0;
}

/*
 * Objects of our cache that KFENCE holds (debug kernels, one allocation
 * every kfence.sample_interval ms): they live in KFENCE's own pool, not
 * in a slab, so slabinfo does not count them -- but the module's pool
 * may hold them, and "pooled" counts them.  A live one is a block
 * "kfence-#N: ..., cache=NAME" of /sys/kernel/debug/kfence/objects
 * without a "freed by task" stack (mm/kfence/report.c).  0 without
 * KFENCE.
 */
static long kfence_live(const char *cache)
{
	char line[512], want[96];
	long n = 0;
	bool ours = false;
	FILE *f;

	f = fopen("/sys/kernel/debug/kfence/objects", "re");
	if (!f)
		return 0;
	snprintf(want, sizeof(want), ", cache=%s\n", cache);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "kfence-#", 8)) {
			n += ours;
			ours = strstr(line, want) != NULL;
		} else if (ours && strstr(line, "freed by task")) {
			ours = false;
		}
	}
	n += ours;
	fclose(f);
	return n;
}

/* Our line of /proc/slabinfo; false if there is none. */
static bool slab_read(struct slab *s)
{
	char line[512], name[64];
	bool found = false;
	FILE *f;

	if (!slab_find())
		return false;
	f = fopen("/proc/slabinfo", "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%63s %ld %ld %ld %ld %ld", name, &s->active, &s->total,
			       &s->objsize, &s->perslab, &s->pages) == 6 &&
			!strcmp(name, slab_name);
	fclose(f);
	s->pooled = th_read_long(PARAM_POOLED, 0);
	s->active += kfence_live(slab_name) - s->pooled;
	return found;
}

/*
 * SLUB's active_objs counts every object of a slab a CPU holds (its
 * current slab and its per-CPU partial slabs) as in use.  So after N
 * records are freed, up to
 *	nr_cpus * (1 + cpu_partial_slabs) * objs_per_slab
 * free objects may still read as active, cpu_partial_slabs being
 * DIV_ROUND_UP(2 * cpu_partial, objs_per_slab) (mm/slub.c,
 * slub_set_cpu_partial).  A leak of one record per thread would exceed
 * that a hundredfold.  Before 5.16 ("mm, slub: change percpu partial
 * accounting from objects to pages") the per-CPU partial list was capped
 * by the free objects each slab had when it joined the list, often 1:
 * up to cpu_partial + 1 slabs per CPU (5.10: 2,304 objects on 2 vCPUs,
 * still a quarter of a leak at CYCLES_MIN).  Writing 1 to
 * /sys/kernel/slab/rl2_task/shrink flushes the per-CPU slabs, after
 * which the count is exact.
 *
 * Since SLUB's per-CPU "sheaves" (every cache in Debian's 7.2, which has
 * no per-CPU slabs left; mm/slub.c), freed objects also wait, as active,
 * in each CPU's main and spare sheaf and in up to MAX_FULL_SHEAVES (10)
 * full sheaves of the node's barn: (2 * nr_cpus + 10) * sheaf_capacity
 * more (sysfs sheaf_capacity; 0 or absent without sheaves).
 */
static bool slub_counts_partial_objects(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major < 5 || (major == 5 && minor < 16);
}

static long slab_slack(const struct slab *s)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	long cpu_partial = th_read_long(SLAB_SYSFS "/cpu_partial", 120);
	long per = s->perslab > 0 ? s->perslab : 1;

	long sheaf = th_read_long(SLAB_SYSFS "/sheaf_capacity", 0);

	if (cpus < 1)
		cpus = 1;
	sheaf = sheaf > 0 ? (2 * cpus + 10) * sheaf : 0;
	if (slub_counts_partial_objects())
		return cpus * (2 + cpu_partial) * per + sheaf;
	return cpus * (1 + (2 * cpu_partial + per - 1) / per) * per + sheaf;
}

static void slab_shrink(void)
{
	th_write_file(SLAB_SYSFS "/shrink", "1");
}

/*
 * Poll (bounded) until active objects <= @limit: records are freed after
 * an RCU grace period, not when the thread is reaped.  @shrink: flush the
 * per-CPU slabs before each look.
 */
static bool slab_settles(long limit, bool shrink, struct slab *s)
{
	long deadline = th_now_ms() + TH_TIMEOUT_MS;

	for (;;) {
		if (shrink)
			slab_shrink();
		if (!slab_read(s))
			return false;
		if (s->active <= limit)
			return true;
		if (th_now_ms() > deadline)
			return false;
		th_sleep_ms(5);
	}
}

static uint64_t nr_tasks(void)
{
	struct robust_list2_stats st;

	assert_int_equal(0, robust_list2_stats(&st));
	return st.tasks;
}

/*
 * Register -> exit cycles: threads that set one slot and exit, BATCH at a
 * time.  Under QEMU TCG (one host thread runs both vCPUs) this does
 * 2,400-3,900 cycles a second as a 64-bit program and 1,600-2,300 as a
 * 32-bit one (measured on 6.1 and 6.12, 2 vCPUs), the same as threads
 * that register nothing within the noise (the "# cycles" line prints
 * both): the cost is thread creation and exit under emulation.  100,000
 * cycles would take 26-40 s, or about a minute for -m32, and the suite
 * runs this binary twice on every kernel of make check.  So the test runs
 * CYCLES or CYCLES_BUDGET_MS, whichever ends first, prints the count it
 * reached, and fails below CYCLES_MIN.  In make check, with two VMs on
 * two host cores, the rate is 450-2,900 a second: 5 s gives up to 14,600
 * cycles, and a slower run goes on to CYCLES_MIN, in up to 9 s (it was 30
 * s, for 17,000-31,000, then 10 s; twice per kernel, in every suite of
 * make check).  A kernel too slow to reach CYCLES_MIN in that time (the
 * KASAN and lockdep kernel of make check-debug) gets up to CYCLES_SLOW_MS
 * to reach it.  What it checks does not depend on the count: the
 * registry and the slab must come back to their baseline, and a record
 * leaked per thread would exceed the slab slack (below, about 600
 * objects) more than sixfold even at CYCLES_MIN.
 */
#define CYCLES		100000
#define CYCLES_MIN	4000
#define CYCLES_BUDGET_MS 5000
#define CYCLES_SLOW_MS	90000
#define CALIBRATE	2048	/* plain threads, for the rate without the module */
#define BATCH		64

struct cycles {
	uint32_t done, failures;
	uint64_t peak;		/* registry count with one batch alive */
	long elapsed_ms, plain_ms;
};

static struct robust_list_head cyc_head;	/* empty list: the walk has nothing to do */
static pthread_barrier_t cyc_barrier;

static void *plain_thread(void *p)
{
	return p;
}

static void *cyc_thread(void *p)
{
	struct cycles *c = p;
	unsigned int slot = (unsigned int)(th_gettid() % ROBUST_LIST2_NR_SLOTS);

	if (set_robust_list2(&cyc_head, slot, TH_NATIVE, 0))
		__atomic_add_fetch(&c->failures, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void *cyc_thread_held(void *p)
{
	cyc_thread(p);
	pthread_barrier_wait(&cyc_barrier);	/* main reads the count */
	pthread_barrier_wait(&cyc_barrier);
	return NULL;
}

static int run_batch(pthread_attr_t *attr, void *(*fn)(void *), struct cycles *c)
{
	pthread_t t[BATCH];

	for (int i = 0; i < BATCH; i++)
		if (pthread_create(&t[i], attr, fn, c))
			return -1;
	for (int i = 0; i < BATCH; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static bool cycles_go_on(uint32_t done, long ms)
{
	if (done >= CYCLES || ms >= CYCLES_SLOW_MS)
		return false;
	return ms < CYCLES_BUDGET_MS || done < CYCLES_MIN;
}

static int cycles_child(void *p)
{
	struct cycles *c = p;
	struct robust_list2_stats st;
	pthread_t t[BATCH];
	pthread_attr_t attr;
	long start;

	th_list64_init(&cyc_head, TH_OFF64);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);	/* glibc's stack cache reuses these */

	/* one batch held alive: the registry must count each thread once */
	start = th_now_ms();
	pthread_barrier_init(&cyc_barrier, NULL, BATCH + 1);
	for (int i = 0; i < BATCH; i++)
		if (pthread_create(&t[i], &attr, cyc_thread_held, c))
			return 3;
	pthread_barrier_wait(&cyc_barrier);
	c->peak = robust_list2_stats(&st) ? 0 : st.tasks;
	pthread_barrier_wait(&cyc_barrier);
	for (int i = 0; i < BATCH; i++)
		pthread_join(t[i], NULL);
	c->done = BATCH;

	while (cycles_go_on(c->done, th_now_ms() - start)) {
		if (run_batch(&attr, cyc_thread, c))
			return 4;
		c->done += BATCH;
	}
	c->elapsed_ms = th_now_ms() - start;

	/* the same threads minus set_robust_list2(), stack cache as warm */
	start = th_now_ms();
	for (int n = 0; n < CALIBRATE; n += BATCH)
		if (run_batch(&attr, plain_thread, c))
			return 2;
	c->plain_ms = th_now_ms() - start;
	return 0;
}

static void test_register_exit_cycles_leave_nothing(void **state)
{
	struct cycles *c = th_shared_alloc(sizeof(*c), false);
	struct slab s0, s1;
	bool have_slab, root = geteuid() == 0;
	uint64_t base = nr_tasks();
	long slack = 0, unflushed;

	assert_non_null(c);
	have_slab = root && slab_read(&s0);
	if (have_slab) {
		/*
		 * Baseline: once flushed, the cache holds exactly the records
		 * the registry counts -- else an earlier test leaked one.
		 */
		if (!slab_settles((long)base + slab_noise(), true, &s0))
			print_error("before: %ld active objects, %lu registered threads\n",
				    s0.active, (unsigned long)base);
		assert_true(s0.active <= (long)base + slab_noise());
		slack = slab_slack(&s0) + slab_noise();
		print_message("# " SLAB_NAME " (slabinfo line %s): %ld bytes per registered thread "
			      "(%ld per slot), %ld per %ld-page slab; baseline %ld active, "
			      "slack %ld objects\n", slab_name, s0.objsize,
			      s0.objsize / ROBUST_LIST2_NR_SLOTS,
			      s0.perslab, s0.pages, s0.active, slack);
	} else {
		print_message("# no slabinfo line for " SLAB_NAME "%s: slab not checked\n",
			      root ? "" : " (not root)");
	}

	assert_int_equal(0, th_reap_kid(th_spawn_kid(cycles_child, c),
					 CYCLES_SLOW_MS + 3 * TH_TIMEOUT_MS));
	print_message("# cycles: %u threads registered a slot and exited in %ld ms (%.0f/s; "
		      "threads that register nothing: %.0f/s)\n",
		      c->done, c->elapsed_ms,
		      c->elapsed_ms ? c->done * 1000.0 / c->elapsed_ms : 0.0,
		      c->plain_ms ? CALIBRATE * 1000.0 / c->plain_ms : 0.0);
	assert_int_equal(0, c->failures);
	assert_int_equal(base + BATCH, c->peak);
	assert_true(c->done >= CYCLES_MIN);
	/* every record left the registry before its thread could be joined */
	assert_int_equal(base, nr_tasks());

	if (have_slab) {
		/* within the per-CPU slack without help, exact once flushed */
		if (!slab_settles(s0.active + slack, false, &s1))
			print_error("active %ld > %ld + %ld\n", s1.active, s0.active, slack);
		assert_true(s1.active <= s0.active + slack);
		unflushed = s1.active;
		if (!slab_settles(s0.active + slab_noise(), true, &s1))
			print_error("after shrink: active %ld, baseline %ld\n", s1.active, s0.active);
		assert_true(s1.active <= s0.active + slab_noise());
		print_message("# " SLAB_NAME " after the cycles: %ld active objects, %ld once the "
			      "per-CPU slabs are flushed (baseline %ld; pooled records %ld, "
			      "baseline %ld, not counted)\n",
			      unflushed, s1.active, s0.active, s1.pooled, s0.pooled);
	}
	th_free(c, sizeof(*c));
}

/*
 * One thread, every slot set again and again (both layouts, and every
 * slot emptied and refilled now and then, so the record goes and comes
 * back): it holds exactly one record, never more, and the cache holds
 * exactly one object for it.  Runs in the cmocka thread: nothing dies.
 */
#define PIN_ROUNDS	2000

struct pin {
	struct robust_list_head h[ROBUST_LIST2_NR_SLOTS];
	struct robust_list_head32 h32[ROBUST_LIST2_NR_SLOTS];
};

static void clear_slots(void)
{
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		assert_int_equal(0, set_robust_list2(NULL, i, TH_NATIVE, 0));
}

/* The cmocka thread's slots are emptied even when the test failed. */
static int pin_teardown(void **state)
{
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		set_robust_list2(NULL, i, TH_NATIVE, 0);
	return 0;
}

static void test_one_thread_pins_one_record(void **state)
{
	struct pin *q = th_shared_alloc(sizeof(*q), true);	/* low: 32-bit heads */
	struct slab s0, s1;
	bool have_slab = geteuid() == 0 && slab_read(&s0);
	uint64_t base = nr_tasks(), lo = UINT64_MAX, hi = 0;

	assert_non_null(q);
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++) {
		th_list64_init(&q->h[i], TH_OFF64);
		th_list32_init(&q->h32[i], TH_OFF32);
	}
	if (have_slab)
		assert_true(slab_settles((long)base + slab_noise(), true, &s0));
	for (int r = 0; r < PIN_ROUNDS; r++) {
		uint64_t n;

		for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++) {
			long ret = (r + i) & 1 ?
				set_robust_list2((void *)&q->h32[i], i, FUTEX_ROBUST_LIST_CMD_SET_32, 0) :
				set_robust_list2(&q->h[i], i, TH_NATIVE, 0);

			assert_int_equal(0, ret);
		}
		n = nr_tasks();
		lo = n < lo ? n : lo;
		hi = n > hi ? n : hi;
		if (r % 16 == 15 && r != PIN_ROUNDS - 1)
			clear_slots();
	}
	/* all 8 slots full after every round: exactly one record, never two */
	assert_int_equal(base + 1, lo);
	assert_int_equal(base + 1, hi);
	if (have_slab) {
		if (!slab_settles(s0.active + 1 + slab_noise(), true, &s1))
			print_error("8 slots full: %ld active, baseline %ld\n", s1.active, s0.active);
		if (slab_shared)
			assert_true(s1.active <= s0.active + 1 + slab_noise());
		else
			assert_int_equal(s0.active + 1, s1.active);
	}
	clear_slots();
	assert_int_equal(base, nr_tasks());
	if (have_slab) {
		/* the records emptied and refilled were all freed (or pooled) */
		if (!slab_settles(s0.active + slab_noise(), true, &s1))
			print_error("emptied: %ld active, baseline %ld\n", s1.active, s0.active);
		assert_true(s1.active <= s0.active + slab_noise());
	}
	th_free(q, sizeof(*q));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_register_exit_cycles_leave_nothing, th_kids_teardown),
		cmocka_unit_test_teardown(test_one_thread_pins_one_record, pin_teardown),
	};

	if (getenv("RL2_TEST_FILTER"))		/* e.g. RL2_TEST_FILTER='test_one_thread*' */
		cmocka_set_test_filter(getenv("RL2_TEST_FILTER"));
	TH_MODULE_ONLY_SUITE("the module's per-thread records and its slab cache");
	return cmocka_run_group_tests_name("bounds", tests, NULL, NULL);
}
