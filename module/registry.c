// SPDX-License-Identifier: GPL-2.0
/*
 * The per-thread registration table: records keyed by task_struct in an
 * rhashtable, written only by their owner thread, read under RCU; a per-CPU
 * cache of the owner's own record; a counting filter per process that
 * answers "not registered" for bystanders in one load; a small per-CPU
 * pool of retired records (pool.c) a thread's first set reuses without a
 * grace period.  docs/design.md, section 6, has the locking rules, why the
 * filter stays exact and why readers may meet a reused record.
 *
 * In this file, in order: the table's hash and parameters; reused
 * records; init and exit; rl2_rht_* (rhashtable's calls); the filter;
 * rl2_task_registered() and the CPU cache (the exit hook's questions);
 * retiring and making records (rl2_task_free(), rl2_task_detach(),
 * rl2_task_find_or_create()); the slot writers
 * (rl2_slot_set_based(), rl2_slot_set(), rl2_slot_create()); the
 * readers of another thread's slots (rl2_slot_get()).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/rhashtable.h>
#include <linux/hash.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/sched/signal.h>
#include <linux/pid.h>

#include "rl2_types.h"
#include "pool.h"
#include "registry.h"
#include "window.h"

static struct kmem_cache *rl2_task_cache;
static struct kmem_cache *rl2_based_cache;	/* struct rl2_task_based */
static struct rhashtable rl2_tasks;

#define RL2_FILTER_BITS		16
static atomic_t *rl2_filter __read_mostly;	/* see above; NULL until first use */

/*
 * The key is a kernel pointer no user chooses: a multiplicative hash of
 * it is as good as jhash2 here, and much cheaper on the set/get and
 * exit-hook paths; comparing it is one load, not a memcmp() call.
 */
static u32 rl2_task_hash(const void *data, u32 len, u32 seed)
{
	return hash_64((*(const u64 *)data & ~RL2_TASK_BASED) ^ seed, 32);
}

/* A record's key is its task: without the RL2_TASK_BASED bit. */
static u32 rl2_task_obj_hash(const void *obj, u32 len, u32 seed)
{
	return rl2_task_hash(&((const struct rl2_task *)obj)->task, len, seed);
}

static int rl2_task_cmp(struct rhashtable_compare_arg *arg, const void *obj)
{
	const struct rl2_task *rec = obj;

	/* READ_ONCE: a reader may meet a record being retired or reused */
	return (READ_ONCE(rec->task) ^ *(const unsigned long *)arg->key) &
	       ~RL2_TASK_BASED;
}

static const struct rhashtable_params rl2_task_params = {
	.key_len		= sizeof(unsigned long),
	.key_offset		= offsetof(struct rl2_task, task),
	.head_offset		= offsetof(struct rl2_task, node),
	.hashfn			= rl2_task_hash,
	.obj_hashfn		= rl2_task_obj_hash,
	.obj_cmpfn		= rl2_task_cmp,
	.automatic_shrinking	= true,
};

DEFINE_PER_CPU(struct rl2_task *, rl2_task_cached);

/*
 * Reused records.  A retired plain record goes to its CPU's pool (pool.c)
 * and the next first set on that CPU may take it back at once, without a
 * grace period.  What makes that safe is that a record's memory stays a
 * struct rl2_task for as long as anyone can hold a pointer to it: a
 * pooled record goes back to the slab only after a grace period (call_rcu()
 * when the pool is full or its CPU died, rl2_pool_exit() at unload), as
 * with SLAB_TYPESAFE_BY_RCU, and every reader that may meet a reused
 * record revalidates it by its key:
 *
 *  - rl2_slot_get() on another thread re-reads the key after the slot
 *    (smp_rmb() on both sides of the slot read; rl2_task_recycle() writes
 *    the key 0 and smp_wmb() before the record can be reused, and a reuse
 *    zeroes the slots and smp_wmb() before it writes the new key), so a
 *    slot it answers was @t's;
 *  - the per-CPU cache (rl2_task_cached_self()) matches only a record
 *    whose key is current: only current writes its own key, and it writes
 *    0 into a record it retires before anyone can reuse it, so a stale
 *    entry never matches (and a retired record is in no entry);
 *  - rhashtable lookups (rl2_task_lookup()) compare the key of every
 *    record on the chain; a record retired and reinserted into another
 *    chain while a lookup stands on it sends the walk on along that chain,
 *    which ends on another bucket's nulls marker, and __rhashtable_lookup()
 *    then restarts the bucket ("An object might have been moved to a
 *    different hash chain", include/linux/rhashtable.h, the same code in
 *    5.10, 6.1 and 6.12); reinserted into the same chain, it is at its
 *    head again and the walk sees the whole chain.  A record's hash node
 *    is never cleared, so a walk never meets a NULL next pointer.
 *
 * The cache entries are written by their CPU's owner thread and cleared
 * by a thread on another CPU (rl2_task_uncache()'s cmpxchg): marked
 * accesses on both sides, this_cpu_read()/this_cpu_write() (one
 * instruction on x86) on the entry's own CPU.
 */

/*
 * Kernel memory per registered thread is budgeted (SPEC.md: 128 bytes with
 * the hash table's share, bench/scale.c): a record may not grow unnoticed.
 */
static_assert(sizeof(struct rl2_task) <= 96);

int rl2_registry_init(void)
{
	int ret;

	/*
	 * SLAB_ACCOUNT charges records to the registering task's memory
	 * cgroup; RL2_SLAB_NO_MERGE (compat.h) keeps the cache from being
	 * merged with an unrelated one of the same size (accounted caches
	 * merge with each other too), so leaks stay visible in
	 * /proc/slabinfo and at kmem_cache_destroy().
	 */
	rl2_task_cache = KMEM_CACHE(rl2_task, SLAB_ACCOUNT | RL2_SLAB_NO_MERGE);
	if (!rl2_task_cache)
		return -ENOMEM;
	/* Only threads that set a base (emulators) get one; charged too. */
	rl2_based_cache = KMEM_CACHE(rl2_task_based, SLAB_ACCOUNT | RL2_SLAB_NO_MERGE);
	if (!rl2_based_cache) {
		kmem_cache_destroy(rl2_task_cache);
		return -ENOMEM;
	}

	/*
	 * The hash table's bucket array is allocated by rhashtable itself,
	 * without __GFP_ACCOUNT, and no module can ask it to charge a memcg.
	 * Its size is bounded instead: it grows past 75 % load and shrinks
	 * below 30 %, so it holds at most ~3.4 pointers (27 bytes) per
	 * record, and every record belongs to a live thread, whose own kernel
	 * stack (16 KiB, charged) is some 600 times that.
	 */

	ret = rhashtable_init(&rl2_tasks, &rl2_task_params);
	if (ret)
		goto err_rht;
	ret = rl2_pool_init(rl2_task_cache);
	if (ret)
		goto err_pool;
	return 0;

err_pool:
	rhashtable_destroy(&rl2_tasks);
err_rht:
	kmem_cache_destroy(rl2_based_cache);
	kmem_cache_destroy(rl2_task_cache);
	return ret;
}

/* Called once no record can exist (each one pins the module). */
void rl2_registry_exit(void)
{
	rl2_pool_exit();		/* also waits for rl2_task_free_rcu() */
	kvfree(rl2_filter);		/* the exit hook is gone */
	rhashtable_destroy(&rl2_tasks);
	kmem_cache_destroy(rl2_based_cache);
	kmem_cache_destroy(rl2_task_cache);
}

unsigned int rl2_registry_count(void)
{
	return atomic_read(&rl2_tasks.nelems);
}

/*
 * rhashtable's fast paths are inline functions of its header.  On a KCSAN
 * kernel each of our calls of one is a function of its own, rl2_rht_*, so
 * that a race inside rhashtable's code (its bucket bit lock against its
 * own reads, a rehash) is reported in rl2_rht_* and told apart from a race
 * in ours (tests/qemu/init.sh); elsewhere they stay inline.
 */
#ifdef CONFIG_KCSAN
#define RL2_RHT		noinline
#else
#define RL2_RHT		__always_inline
#endif

static RL2_RHT struct rl2_task *rl2_rht_lookup(struct task_struct *t)
{
	return rhashtable_lookup(&rl2_tasks, &t, rl2_task_params);
}

static RL2_RHT void rl2_rht_remove(struct rl2_task *rec)
{
	rhashtable_remove_fast(&rl2_tasks, &rec->node, rl2_task_params);
}

/* the _key variant: the table has an obj_hashfn (the kind bit) */
static RL2_RHT struct rl2_task *
rl2_rht_find_or_insert(unsigned long key, struct rl2_task *rec)
{
	return rhashtable_lookup_get_insert_key(&rl2_tasks, &key, &rec->node,
						rl2_task_params);
}

static RL2_RHT int rl2_rht_replace(struct rl2_task *old, struct rl2_task *rec)
{
	return rhashtable_replace_fast(&rl2_tasks, &old->node, &rec->node,
				       rl2_task_params);
}

/* @t's record, or NULL; the caller holds rcu_read_lock(). */
static struct rl2_task *rl2_task_lookup(struct task_struct *t)
{
	return rl2_rht_lookup(t);
}

/* current's counter in @f (not NULL): see the comment at the top. */
static atomic_t *rl2_filter_counter(atomic_t *f)
{
	return &f[hash_ptr(current->signal, RL2_FILTER_BITS)];
}

/*
 * May current have a record?  false is exact, true means "look it up".
 * A task that created a record allocated or saw the filter first, so
 * NULL here means none.
 */
static bool rl2_filter_maybe(void)
{
	atomic_t *f = READ_ONCE(rl2_filter);

	return f && atomic_read(rl2_filter_counter(f));
}

/* Allocate the filter once, before the first record; -ENOMEM or 0. */
static int rl2_filter_alloc(void)
{
	atomic_t *f;

	if (likely(READ_ONCE(rl2_filter)))
		return 0;
	f = kvcalloc(1U << RL2_FILTER_BITS, sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	if (cmpxchg(&rl2_filter, NULL, f))
		kvfree(f);		/* another thread published one first */
	return 0;
}

/**
 * rl2_task_registered - does current have a slot in use?
 *
 * The exit hook asks this for every task that exits on the machine, so
 * the common answers cost one atomic read (nobody uses the module) or a
 * few loads (this process does not: the filter).
 */
bool rl2_task_registered(void)
{
	if (likely(!atomic_read(&rl2_tasks.nelems)))
		return false;
	if (likely(!rl2_filter_maybe()))
		return false;
	return !!rl2_task_self();
}

/* Take @rec (current's) out of the CPU cache entry that holds it. */
static void rl2_task_uncache(struct rl2_task *rec)
{
	/* Another thread may have taken the entry over since: leave it. */
	if (rec->cached_on)
		cmpxchg(per_cpu_ptr(&rl2_task_cached, rec->cached_on - 1),
			rec, NULL);	/* racing the entry's own CPU: marked */
	rec->cached_on = 0;
}

/* Make @rec (current's) this CPU's cached record, and no other CPU's. */
static void rl2_task_cache_fill(struct rl2_task *rec)
{
	int cpu;

	BUILD_BUG_ON(CONFIG_NR_CPUS >= U16_MAX);
	cpu = get_cpu();
	if (rec->cached_on != cpu + 1) {
		rl2_task_uncache(rec);
		rec->cached_on = cpu + 1;
	}
	this_cpu_write(rl2_task_cached, rec);	/* marked: see "Reused records" */
	put_cpu();
}

/*
 * rl2_task_self() when this CPU's cache entry is not current's record; also
 * the exit hook's answer for every unregistered task while any is registered.
 */
struct rl2_task *rl2_task_self_slow(void)
{
	struct rl2_task *rec;

	if (!rl2_filter_maybe())	/* e.g. a process that never set */
		return NULL;
	rcu_read_lock();
	rec = rl2_task_lookup(current);
	rcu_read_unlock();
	if (rec)
		rl2_task_cache_fill(rec);
	return rec;
}

/* Give @rec's memory back to the cache it came from. */
static void rl2_task_free_mem(struct rl2_task *rec)
{
	if (rl2_rec_bases(rec))
		kmem_cache_free(rl2_based_cache,
				container_of(rec, struct rl2_task_based, t));
	else
		kmem_cache_free(rl2_task_cache, rec);
}

/* A based record's last reference: its task. */
static void rl2_task_free_rcu(struct rcu_head *rcu)
{
	struct rl2_task *rec = container_of(rcu, struct rl2_task, rcu);

	put_task_struct(rl2_rec_task(rec));
	rl2_task_free_mem(rec);
}

/*
 * A record without references: a plain one the pool had no room for, or
 * one replaced by its based copy (its references went to the copy).
 */
static void rl2_task_free_mem_rcu(struct rcu_head *rcu)
{
	rl2_task_free_mem(container_of(rcu, struct rl2_task, rcu));
}

/*
 * Retire current's plain record @rec, out of the table and every cache
 * entry and without references: into this CPU's pool, or back to the slab
 * after a grace period when the pool is full.  Its key goes to 0 first,
 * ordered before anything a reuse will write (see "Reused records").
 */
static void rl2_task_recycle(struct rl2_task *rec)
{
	WRITE_ONCE(rec->task, 0);
	smp_wmb();			/* pairs with rl2_slot_get()'s smp_rmb() */
	if (!rl2_pool_push(rec))
		call_rcu(&rec->rcu, rl2_task_free_mem_rcu);
}

/**
 * rl2_task_free - retire a detached record
 * @rec: record returned by rl2_task_detach(), current's
 *
 * Drops the record's window and task references.  The task reference
 * goes at once: @rec is current's, and current's own reference keeps this
 * put from being the last; no reader dereferences a record's task, they
 * only compare it.  A plain record goes to the pool (rl2_task_recycle()),
 * a based one is freed after a grace period (rl2_registry_exit()'s
 * rcu_barrier() waits for the callback before the caches go).  The caller
 * drops the record's module reference when it is done with module text
 * (the exit hook, last of all).  The owner-only fields are gone from here
 * on (the rcu_head shares them).
 */
void rl2_task_free(struct rl2_task *rec)
{
	struct task_struct *t = rl2_rec_task(rec);

	rl2_window_put(rec->windows);
	if (rl2_rec_bases(rec)) {
		call_rcu(&rec->rcu, rl2_task_free_rcu);
		return;
	}
	rl2_task_recycle(rec);
	put_task_struct(t);
}

/**
 * rl2_task_detach - take current's record out of the table
 *
 * Returns the record, or NULL if current had none.  After this, get() from
 * other threads sees every slot of @t empty.
 */
struct rl2_task *rl2_task_detach(void)
{
	struct rl2_task *rec = rl2_task_self();

	if (!rec)
		return NULL;
	rl2_rht_remove(rec);
	atomic_dec(rl2_filter_counter(rl2_filter));
	rl2_task_uncache(rec);
	return rec;
}

/*
 * A record with every slot and owner field zeroed and key 0, with the
 * bases behind it if @based.  A pooled record may still be read by
 * readers that found it before it was retired: its hash node stays as it
 * is (rhashtable writes it at insertion), and the zeroed slots are ordered
 * before the key the caller writes next.
 */
static struct rl2_task *rl2_task_alloc(bool based)
{
	struct rl2_task_based *tb;
	struct rl2_task *rec;
	unsigned int i;

	if (!based) {
		rec = rl2_pool_pop();
		if (!rec)
			return kmem_cache_zalloc(rl2_task_cache, GFP_KERNEL);
		for (i = 0; i < RL2_NR_SLOTS; i++)
			WRITE_ONCE(rec->slot[i], 0);
		rec->tid = 0;
		rec->nr_used = 0;
		rec->cached_on = 0;
		rec->windows = NULL;
		smp_wmb();		/* the slots before the new key */
		return rec;
	}
	tb = kmem_cache_zalloc(rl2_based_cache, GFP_KERNEL);
	if (!tb)
		return NULL;
	seqcount_init(&tb->b.seq);
	tb->t.task = RL2_TASK_BASED;
	return &tb->t;
}

/* Undo rl2_task_alloc() for a record that never entered the table. */
static void rl2_task_unalloc(struct rl2_task *rec)
{
	if (rl2_rec_bases(rec))
		rl2_task_free_mem(rec);		/* new from the slab: unseen */
	else
		rl2_task_recycle(rec);		/* may have come from the pool */
}

/*
 * current's record, made if it has none: for a set that fills a slot when
 * this CPU's cache entry does not hold current's record, which is every
 * thread's first set.  One walk of the hash chain finds the record or
 * inserts the new one, where a lookup and then an insert took two.  A
 * record made in vain (the thread had one, whose cache entry another
 * thread took since) was never in the table and goes back at once.
 */
static struct rl2_task *rl2_task_find_or_create(bool based)
{
	struct rl2_task *rec, *old;
	unsigned long key;
	int ret;

	ret = rl2_filter_alloc();
	if (ret)
		return ERR_PTR(ret);
	rec = rl2_task_alloc(based);
	if (!rec)
		return ERR_PTR(-ENOMEM);

	key = (unsigned long)get_task_struct(current);
	WRITE_ONCE(rec->task, rec->task | key);
	/*
	 * task_pid_vnr(current) without its RCU read section: current's own
	 * struct pid cannot change under it (only its exec's de_thread()).
	 */
	rec->tid = pid_vnr(task_pid(current));

	old = rl2_rht_find_or_insert(key, rec);
	if (old) {
		rl2_task_unalloc(rec);
		put_task_struct(current);
		if (IS_ERR(old))
			return ERR_PTR(-ENOMEM);
		rl2_task_cache_fill(old);
		return old;
	}
	atomic_inc(rl2_filter_counter(rl2_filter));
	/*
	 * A thread with a slot pins the module (rmmod says "in use"), so
	 * that its lists are always walked.  Our caller is inside an ioctl
	 * on our file, which holds a reference already.
	 */
	__module_get(THIS_MODULE);
	rl2_task_cache_fill(rec);
	return rec;
}

/*
 * Replace current's record @old by a copy with bases behind it, the first
 * time the thread sets a non-zero base.  A record's kind is fixed for its
 * life, so readers on other threads know from ->task alone whether it has
 * bases; one that still holds @old reads its slots, which stay valid until
 * a grace period after the replacement.  The references (task, window,
 * module) and the filter's count move to the copy.
 */
static struct rl2_task *rl2_task_make_based(struct rl2_task *old)
{
	struct rl2_task *rec = rl2_task_alloc(true);
	int ret;

	if (!rec)
		return ERR_PTR(-ENOMEM);
	rec->task |= old->task;
	memcpy(rec->slot, old->slot, sizeof(rec->slot));
	rec->tid = old->tid;
	rec->nr_used = old->nr_used;
	rec->windows = old->windows;
	ret = rl2_rht_replace(old, rec);
	if (WARN_ON_ONCE(ret)) {	/* @old is current's, in the table */
		rl2_task_free_mem(rec);
		return ERR_PTR(ret);
	}
	rl2_task_uncache(old);
	rl2_task_cache_fill(rec);
	/*
	 * Not pooled: a reader that found @old must still answer its
	 * slots, which a retired record's key 0 would make it deny.
	 */
	call_rcu(&old->rcu, rl2_task_free_mem_rcu);
	return rec;
}

static void rl2_task_put_if_empty(struct rl2_task *rec)
{
	if (rec->nr_used)
		return;
	rl2_task_detach();
	rl2_task_free(rec);
	module_put(THIS_MODULE);	/* the record's; our file holds one too */
}

/*
 * Write slot @index of current's record @rec: @word (0: empty) and, if the
 * record has a base table, @base, as one pair for readers on other threads.
 */
static void rl2_slot_write(struct rl2_task *rec, unsigned int index,
			   u64 word, u64 base)
{
	struct rl2_bases *b = rl2_rec_bases(rec);

	if (!rec->slot[index] && word)
		rec->nr_used++;
	else if (rec->slot[index] && !word)
		rec->nr_used--;
	if (!b) {
		WRITE_ONCE(rec->slot[index], word);
		return;
	}
	preempt_disable();
	write_seqcount_begin(&b->seq);
	WRITE_ONCE(b->base[index], base);
	WRITE_ONCE(rec->slot[index], word);
	write_seqcount_end(&b->seq);
	preempt_enable();
}

/*
 * Store @word in @rec's slot @index, first adding the try-unlock window of
 * the file used to the windows the record keeps (every file its slots were
 * set through: see window.c); frees @rec when its last slot empties, or
 * when a new record cannot take the window.
 */
static int rl2_slot_store(struct rl2_task *rec, unsigned int index,
			  u64 word, u64 base, struct rl2_window *win)
{
	int ret;

	/* The usual case, one descriptor for every slot, needs no call. */
	if (word && win && win != rec->windows) {
		ret = rl2_window_merge(&rec->windows, win);
		if (ret) {
			rl2_task_put_if_empty(rec);
			return ret;
		}
	}
	rl2_slot_write(rec, index, word, base);
	if (!word)
		rl2_task_put_if_empty(rec);
	return 0;
}

/*
 * Is the head of @word already in a slot of @rec other than @index?  One
 * list in two slots would be walked twice per exit (twice the budget it
 * may use, and its pending entry handled twice), so it is refused.
 */
static bool rl2_head_in_other_slot(struct rl2_task *rec, unsigned int index,
				   u64 word)
{
	unsigned int i;

	/* Most threads use one slot: no other to compare with. */
	if (rec->nr_used <= !!rec->slot[index])
		return false;
	/* A tag (arm64's tagged address ABI) makes no other list. */
	for (i = 0; i < RL2_NR_SLOTS; i++)
		if (i != index && rec->slot[i] &&
		    rl2_untag(rec->slot[i] & ~RL2_SLOT_FLAGS) ==
		    rl2_untag(word & ~RL2_SLOT_FLAGS))
			return true;
	return false;
}

/**
 * rl2_slot_set_based - fill or empty one slot of the calling thread
 * @index: slot, already validated
 * @word: host address of the head | RL2_SLOT_* flags, or 0 to empty the slot
 * @base: what the walk adds to every pointer read from the list (0: none)
 * @win: the try-unlock window of the file used, or NULL
 *
 * Returns 0, -EINVAL when the head is already in another slot, or -ENOMEM.
 */
int rl2_slot_set_based(unsigned int index, u64 word, u64 base,
		       struct rl2_window *win)
{
	struct rl2_task *rec = rl2_task_cached_self();

	if (!word) {
		base = 0;
		if (!rec)
			rec = rl2_task_self_slow();
		if (!rec)
			return 0;
	} else if (!rec) {
		rec = rl2_task_find_or_create(base);
		if (IS_ERR(rec))
			return PTR_ERR(rec);
	}
	/* A new record has no slot in use: nothing to compare. */
	if (word && rl2_head_in_other_slot(rec, index, word))
		return -EINVAL;
	if (base && !rl2_rec_bases(rec))
		rec = rl2_task_make_based(rec);
	if (IS_ERR(rec))
		return PTR_ERR(rec);
	return rl2_slot_store(rec, index, word, base, win);
}

/**
 * rl2_slot_set - rl2_slot_set_based() without a base
 * @index: slot, already validated
 * @word: head | RL2_SLOT_* flags, or 0 to empty the slot
 * @win: the try-unlock window of the file used, or NULL
 */
int rl2_slot_set(unsigned int index, u64 word, struct rl2_window *win)
{
	return rl2_slot_set_based(index, word, 0, win);
}

/**
 * rl2_slot_create - fill the calling thread's lowest empty slot
 * @word: head | RL2_SLOT_* flags, not 0
 * @win: the try-unlock window of the file used, or NULL
 *
 * Returns the slot index, or -ENOSPC when every slot is in use.  Only
 * the owner fills its slots, so finding and filling need no lock.
 */
int rl2_slot_create(u64 word, struct rl2_window *win)
{
	struct rl2_task *rec = rl2_task_self();
	unsigned int i = 0;

	if (rec) {
		while (i < RL2_NR_SLOTS && rec->slot[i])
			i++;
		if (i == RL2_NR_SLOTS)
			return -ENOSPC;
	}
	return rl2_slot_set(i, word, win) ?: i;
}

/*
 * Slot @index of another thread's record and its base, as a pair: a
 * record with bases (fixed for its life) has them written by its owner
 * inside their seqcount.
 */
static u64 rl2_slot_read(struct rl2_task *rec, unsigned int index, u64 *base)
{
	struct rl2_bases *b = rl2_rec_bases(rec);
	unsigned int seq;
	u64 word;

	if (!b) {
		*base = 0;
		return READ_ONCE(rec->slot[index]);
	}
	do {
		seq = read_seqcount_begin(&b->seq);
		word = READ_ONCE(rec->slot[index]);
		*base = READ_ONCE(b->base[index]);
	} while (read_seqcount_retry(&b->seq, seq));
	return word;
}

/**
 * rl2_slot_get - read one slot of thread @t
 * @t: a thread the caller holds a reference on
 * @index: slot, already validated
 * @base: where to store the slot's base (0 for none)
 *
 * Returns the slot word: the head's host address | RL2_SLOT_* flags.
 */
u64 rl2_slot_get(struct task_struct *t, unsigned int index, u64 *base)
{
	struct rl2_task *rec;
	u64 word = 0;

	*base = 0;
	if (t == current) {
		rec = rl2_task_self();
		if (!rec)
			return 0;
		*base = rl2_slot_base(rec, index);
		return rec->slot[index];
	}
	rcu_read_lock();
	rec = rl2_task_lookup(t);
	if (rec) {
		/*
		 * @rec may be retired and reused by another thread at any
		 * point here (see "Reused records"): its key, compared
		 * by the lookup, before the slot, then the key again.  @t
		 * is referenced, so no other task can have its address.
		 */
		smp_rmb();	/* the key compared, then the slot */
		word = rl2_slot_read(rec, index, base);
		smp_rmb();	/* the slot, then the key again */
		if (unlikely(rl2_rec_task(rec) != t)) {
			word = 0;		/* @t emptied it meanwhile */
			*base = 0;
		}
	}
	rcu_read_unlock();
	return word;
}
