// SPDX-License-Identifier: GPL-2.0
/*
 * The record pool.  Freeing a record through call_rcu() and allocating the
 * next one from the memcg-charged slab is most of what a short-lived
 * thread's registration costs (about 620 instructions of a thread's life
 * on arm64).  So a plain record (not a based one: those keep the
 * call_rcu() path) whose owner retires it goes to its CPU's pool, and the
 * next first set on that CPU takes it back at once.  The registry
 * (registry.c, "reused records") makes that safe for its readers: a
 * record's memory stays a struct rl2_task for as long as anyone can hold
 * a pointer to it, since a pooled record goes back to the slab only after
 * a grace period, and every reader revalidates a record by its key.
 *
 * The rules this file keeps:
 *
 *  - bounded: RL2_POOL_MAX records per CPU.  One covers a thread pool's
 *    steady create-exit churn; 8 also absorb a batch of threads that exit
 *    before the next batch registers, and cost at most 8 * 96 = 768 bytes
 *    per CPU;
 *
 *  - charged to the right user: a record stays charged to the memory
 *    cgroup of the thread that allocated it, so a pooled record is only
 *    given to a thread of the memory cgroup that put it there (by the
 *    cgroup's 64-bit id, which is never reused while the system runs).  A
 *    thread of another cgroup allocates its own; a cgroup's records never
 *    serve another's threads;
 *
 *  - per CPU, no lock: a CPU's pool is only touched on that CPU with
 *    preemption disabled (set and the exit and exec hooks run in process
 *    context; nothing in irq context touches the pool), or once the CPU
 *    is dead: its records go back to the slab after a grace period then
 *    (rl2_pool_cpu_dead()), rather than stay stranded until unload;
 *
 *  - @nr is written with WRITE_ONCE(): the "pooled" parameter reads every
 *    CPU's count from any CPU.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cgroup.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>

#include "pool.h"

#define RL2_POOL_MAX		8

struct rl2_pool {
	unsigned int nr;
	struct {
		struct rl2_task *rec;
		u64 memcg;		/* the id of the cgroup it is charged to */
	} ent[RL2_POOL_MAX];
};

static DEFINE_PER_CPU(struct rl2_pool, rl2_pool);
static struct kmem_cache *rl2_pool_cache;
static enum cpuhp_state rl2_pool_hp;

/*
 * The id of current's memory cgroup: the one its slab allocations are
 * charged to (0 without memory cgroups).
 */
static u64 rl2_pool_memcg(void)
{
#ifdef CONFIG_MEMCG
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_cgroup(current, memory_cgrp_id));
	rcu_read_unlock();
	return id;
#else
	return 0;
#endif
}

static int rl2_pooled_get(char *buf, const struct kernel_param *kp)
{
	unsigned int n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(&rl2_pool, cpu)->nr);
	return scnprintf(buf, PAGE_SIZE, "%u\n", n);
}

static int rl2_pooled_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

/* For the leak checks (tests/t_bounds.c): pooled records are in use. */
static const struct kernel_param_ops rl2_pooled_ops = {
	.set = rl2_pooled_set,
	.get = rl2_pooled_get,
};
module_param_cb(pooled, &rl2_pooled_ops, NULL, 0444);
MODULE_PARM_DESC(pooled,
		 "Retired thread records kept for reuse, all CPUs together (at most 8 per CPU; read-only)");

/*
 * reuse=N: new records come from the slab even when the pool has some,
 * so that an allocation failure can be injected at every first set
 * (tests/t_failnth.c); retired records are still pooled.  Root only.
 */
static bool rl2_reuse = true;
module_param_named(reuse, rl2_reuse, bool, 0644);
MODULE_PARM_DESC(reuse,
		 "Take a new thread's record from the per-CPU pool (N: always from the slab, for fault-injection tests)");

/**
 * rl2_pool_push - keep a retired plain record on this CPU
 * @rec: current's record, out of the table, its key 0 (ordered before)
 *
 * Returns false when the pool is full: the caller frees @rec after a
 * grace period.
 */
bool rl2_pool_push(struct rl2_task *rec)
{
	u64 memcg = rl2_pool_memcg();
	struct rl2_pool *p;
	bool kept = false;

	preempt_disable();
	p = this_cpu_ptr(&rl2_pool);
	if (p->nr < RL2_POOL_MAX) {
		p->ent[p->nr].rec = rec;
		p->ent[p->nr].memcg = memcg;
		WRITE_ONCE(p->nr, p->nr + 1);
		kept = true;
	}
	preempt_enable();
	return kept;
}

/**
 * rl2_pool_pop - a plain record of current's memory cgroup from this CPU
 *
 * The newest such record, or NULL.
 */
struct rl2_task *rl2_pool_pop(void)
{
	struct rl2_task *rec = NULL;
	struct rl2_pool *p;
	unsigned int i;
	u64 memcg;

	if (!READ_ONCE(rl2_reuse))
		return NULL;
	memcg = rl2_pool_memcg();
	preempt_disable();
	p = this_cpu_ptr(&rl2_pool);
	for (i = p->nr; i-- > 0;) {
		if (p->ent[i].memcg != memcg)
			continue;
		rec = p->ent[i].rec;
		p->ent[i] = p->ent[p->nr - 1];
		WRITE_ONCE(p->nr, p->nr - 1);
		break;
	}
	preempt_enable();
	return rec;
}

static void rl2_pool_free_rcu(struct rcu_head *rcu)
{
	kmem_cache_free(rl2_pool_cache, container_of(rcu, struct rl2_task, rcu));
}

/*
 * A CPU went offline: nothing runs there any more, so its pool is ours
 * to empty.  Readers may still hold its records: back to the slab after a
 * grace period.
 */
static int rl2_pool_cpu_dead(unsigned int cpu)
{
	struct rl2_pool *p = per_cpu_ptr(&rl2_pool, cpu);

	while (p->nr) {
		WRITE_ONCE(p->nr, p->nr - 1);
		call_rcu(&p->ent[p->nr].rec->rcu, rl2_pool_free_rcu);
	}
	return 0;
}

/**
 * rl2_pool_init - start pooling records of @cache
 * @cache: the plain records' slab cache
 *
 * Returns 0 or a negative errno.
 */
int rl2_pool_init(struct kmem_cache *cache)
{
	int ret;

	rl2_pool_cache = cache;
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "robust_list2:pool",
					NULL, rl2_pool_cpu_dead);
	if (ret < 0)
		return ret;
	rl2_pool_hp = ret;
	return 0;
}

/*
 * Give every pooled record back to the slab, and wait for every record
 * freed after a grace period.  Only at unload: no set, no get and no exit
 * hook can run any more.
 */
void rl2_pool_exit(void)
{
	struct rl2_pool *p;
	int cpu;

	cpuhp_remove_state_nocalls(rl2_pool_hp);
	rcu_barrier();		/* rl2_pool_cpu_dead()'s, and the registry's */
	for_each_possible_cpu(cpu) {
		p = per_cpu_ptr(&rl2_pool, cpu);
		while (p->nr) {
			p->nr--;
			kmem_cache_free(rl2_pool_cache, p->ent[p->nr].rec);
		}
	}
}
