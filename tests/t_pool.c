// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU pool of retired thread records (module/pool.c), through its
 * read-only "pooled" parameter (records kept, all CPUs):
 *
 *  - a CPU that goes offline gives its records back (they were stranded
 *    until unload before), and the pool works again once it is back;
 *  - a record stays with the memory cgroup it is charged to: a thread of
 *    another cgroup on the same CPU allocates its own (it took any pooled
 *    record before, and used memory charged to someone else), a thread of
 *    the same cgroup takes it.
 *
 * Threads register on CPU 1 (affinity), where nothing else of ours runs.
 * Needs root, a second CPU that can go offline, and for the second case
 * cgroup v2 with the memory controller (the VM has them): skipped
 * otherwise.  The unload at the end of the suite checks that no record
 * leaked (the kernel WARNs at kmem_cache_destroy()).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "cgroup.h"
#include "helpers.h"

#define PARAM_POOLED	"/sys/module/robust_list2/parameters/pooled"
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

static long pooled(void)
{
	return th_read_long(PARAM_POOLED, -1);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static bool cpu1_hotpluggable(void)
{
	return geteuid() == 0 && access(CPU1_ONLINE, W_OK) == 0 && th_have_device();
}

static int cpu1_set(bool online)
{
	return th_write_file(CPU1_ONLINE, online ? "1" : "0");
}

/* A thread that sets a slot, waits for @hold, then exits (its record retires). */
struct reg {
	uint32_t registered, release;
	int err;
};

static void *reg_main(void *p)
{
	struct reg *r = p;
	struct robust_list_head head;

	th_list64_init(&head, TH_OFF64);
	r->err = set_robust_list2(&head, 0, TH_NATIVE, 0) ? errno : 0;
	th_set_flag(&r->registered, 1);
	th_wait_flag(&r->release, 1, TH_TIMEOUT_MS);
	return NULL;
}

/* Register in a thread (of the calling process, on its CPUs), then retire it. */
static void reg_cycle(void)
{
	struct reg r = { 0 };
	pthread_t t;

	assert_int_equal(0, pthread_create(&t, NULL, reg_main, &r));
	assert_true(th_wait_flag(&r.registered, 1, TH_TIMEOUT_MS));
	th_set_flag(&r.release, 1);
	assert_int_equal(0, pthread_join(t, NULL));
	assert_int_equal(0, r.err);
}

static int restore(void **state)
{
	if (cpu1_hotpluggable())
		cpu1_set(true);
	pin(0);
	return 0;
}

static void test_offline_cpu_gives_its_records_back(void **state)
{
	long p0, p1, p2;

	if (!cpu1_hotpluggable() || sysconf(_SC_NPROCESSORS_CONF) < 2)
		skip();
	assert_int_equal(0, pin(1));
	p0 = pooled();
	for (int i = 0; i < 4; i++)
		reg_cycle();
	p1 = pooled();
	assert_int_equal(0, pin(0));
	assert_int_equal(0, cpu1_set(false));
	p2 = pooled();
	print_message("# pooled: %ld, %ld after 4 threads on CPU 1, %ld once CPU 1 is offline\n",
		      p0, p1, p2);
	/* the last thread's record, at least, was left on CPU 1 */
	assert_true(p2 < p1);
	assert_true(p2 <= p0);

	/* back online: its pool is empty and fills again */
	assert_int_equal(0, cpu1_set(true));
	assert_int_equal(0, pin(1));
	reg_cycle();
	assert_int_equal(p2 + 1, pooled());
}

/* Run @fn in a child process that joined cgroup @path and runs on CPU 1. */
static void in_cgroup(const char *path, void (*fn)(void *), void *arg)
{
	char procs[160], pid[16];
	pid_t c = fork();

	assert_true(c >= 0);
	if (c == 0) {
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		if (th_write_file(procs, pid) || pin(1))
			_exit(2);
		fn(arg);
		_exit(0);
	}
	assert_int_equal(0, th_wait_child(c));
}

struct memcg_case {
	long before, during;	/* pooled around a registration */
};

static void retire_one(void *arg)
{
	reg_cycle();
}

/* Register, read pooled while the thread holds its record, then retire it. */
static void register_and_look(void *arg)
{
	struct memcg_case *m = arg;
	struct reg r = { 0 };
	pthread_t t;

	m->before = pooled();
	if (pthread_create(&t, NULL, reg_main, &r) || !th_wait_flag(&r.registered, 1, TH_TIMEOUT_MS))
		_exit(3);
	m->during = pooled();
	th_set_flag(&r.release, 1);
	pthread_join(t, NULL);
	if (r.err)
		_exit(4);
}

static void test_records_stay_in_their_memory_cgroup(void **state)
{
	struct memcg_case *m = th_shared_alloc(sizeof(*m), false);
	char b[128];
	int ret;

	if (!cpu1_hotpluggable() || sysconf(_SC_NPROCESSORS_CONF) < 2)
		skip();
	ret = cg_setup_group("rl2-pool-a", true);
	if (ret == -ENODEV) {
		print_message("# no memory controller\n");
		skip();
	}
	assert_int_equal(0, ret);
	snprintf(b, sizeof(b), CG_ROOT "/rl2-pool-b-%d", (int)getpid());
	rmdir(b);
	assert_int_equal(0, mkdir(b, 0755));
	/* an empty pool on CPU 1 to start from */
	assert_int_equal(0, pin(0));
	assert_int_equal(0, cpu1_set(false));
	assert_int_equal(0, cpu1_set(true));

	in_cgroup(cg.path, retire_one, NULL);		/* A's record pooled on CPU 1 */
	in_cgroup(b, register_and_look, m);		/* B: not A's record */
	print_message("# cgroup B registers on CPU 1: pooled %ld -> %ld\n", m->before, m->during);
	assert_int_equal(m->before, m->during);
	in_cgroup(cg.path, register_and_look, m);	/* A: its own record back */
	print_message("# cgroup A registers on CPU 1: pooled %ld -> %ld\n", m->before, m->during);
	assert_int_equal(m->before - 1, m->during);
	rmdir(b);
	th_free(m, sizeof(*m));
}

static int memcg_teardown(void **state)
{
	char b[128];

	restore(state);
	snprintf(b, sizeof(b), CG_ROOT "/rl2-pool-b-%d", (int)getpid());
	rmdir(b);
	return cg_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_offline_cpu_gives_its_records_back, restore),
		cmocka_unit_test_teardown(test_records_stay_in_their_memory_cgroup, memcg_teardown),
	};

	TH_MODULE_ONLY_SUITE("the module's per-CPU pool of thread records");
	return cmocka_run_group_tests_name("pool", tests, NULL, NULL);
}
