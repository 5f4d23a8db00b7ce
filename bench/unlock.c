// SPDX-License-Identifier: GPL-2.0
/*
 * unlock: the library's two unlock paths against what a caller would
 * write without them, on an uncontended lock with the pending-op field set.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#include "bench.h"
#include "vdso.h"

struct unlock_ctx {
	struct lock64 lock;
	struct robust_list_head head;
	uint32_t tid;
	th_vdso_try_unlock_fn vdso;	/* 7.2's, or NULL */
};

static uint64_t b_try_unlock(void *p, long k)
{
	struct unlock_ctx *c = p;
	const uint32_t tid = c->tid;	/* in a register, as a caller keeps it */
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++) {
		__atomic_store_n(&c->lock.futex, tid, __ATOMIC_RELAXED);
		c->head.list_op_pending = &c->lock.list;
		__asm__ volatile("" ::: "memory");
		if (robust_list2_try_unlock64(&c->lock.futex, tid,
					      (uint64_t *)&c->head.list_op_pending) != tid)
			abort();
	}
	return now_ns() - t;
}

#ifdef ROBUST_LIST2_HAVE_TRY_UNLOCK_INLINE
/* The header's copy, inlined here: no call, the module knows its bytes. */
static uint64_t b_try_unlock_inline(void *p, long k)
{
	struct unlock_ctx *c = p;
	const uint32_t tid = c->tid;	/* in a register, as a caller keeps it */
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++) {
		__atomic_store_n(&c->lock.futex, tid, __ATOMIC_RELAXED);
		c->head.list_op_pending = &c->lock.list;
		__asm__ volatile("" ::: "memory");
		if (robust_list2_try_unlock64_inline(&c->lock.futex, tid,
						     (uint64_t *)&c->head.list_op_pending) !=
		    tid)
			abort();
	}
	return now_ns() - t;
}
#endif

/*
 * The anchor: a compare-exchange unlock written in C, inline.  GCC on
 * arm64 (Debian's default -moutline-atomics) would call a libgcc helper
 * that picks LSE or load/store-exclusive at run time; compiled inline it
 * is the load/store-exclusive loop, like the header's default form.
 */
#if defined(__aarch64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target("no-outline-atomics")))
#endif
static uint64_t b_cmpxchg_unlock(void *p, long k)
{
	struct unlock_ctx *c = p;
	const uint32_t tid = c->tid;	/* in a register, as a caller keeps it */
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++) {
		uint32_t old = tid;

		__atomic_store_n(&c->lock.futex, tid, __ATOMIC_RELAXED);
		c->head.list_op_pending = &c->lock.list;
		__asm__ volatile("" ::: "memory");
		if (!__atomic_compare_exchange_n(&c->lock.futex, &old, 0, false,
						 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			abort();
		__atomic_store_n(&c->head.list_op_pending, NULL, __ATOMIC_RELAXED);
	}
	return now_ns() - t;
}

static uint64_t b_unlock_call(void *p, long k)
{
	struct unlock_ctx *c = p;
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++) {
		__atomic_store_n(&c->lock.futex, c->tid, __ATOMIC_RELAXED);
		c->head.list_op_pending = &c->lock.list;
		if (robust_list2_unlock(&c->lock.futex, c->tid,
					&c->head.list_op_pending, 0) < 0)
			abort();
	}
	return now_ns() - t;
}

/* glibc's contended robust unlock: release, FUTEX_WAKE, clear pending. */
static uint64_t b_futex_wake(void *p, long k)
{
	struct unlock_ctx *c = p;
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++) {
		__atomic_store_n(&c->lock.futex, c->tid, __ATOMIC_RELAXED);
		c->head.list_op_pending = &c->lock.list;
		__atomic_exchange_n(&c->lock.futex, 0, __ATOMIC_RELEASE);
		futex(&c->lock.futex, FUTEX_WAKE, 1, NULL);
		__atomic_store_n(&c->head.list_op_pending, NULL, __ATOMIC_RELAXED);
	}
	return now_ns() - t;
}

/* 7.2: the kernel's vDSO try-unlock, on the same slot's pending field */
static uint64_t b_vdso_try_unlock(void *p, long k)
{
	struct unlock_ctx *c = p;
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++) {
		__atomic_store_n(&c->lock.futex, c->tid, __ATOMIC_RELAXED);
		c->head.list_op_pending = &c->lock.list;
		__asm__ volatile("" ::: "memory");
		if (c->vdso(&c->lock.futex, c->tid, &c->head.list_op_pending) != c->tid)
			abort();
	}
	return now_ns() - t;
}

/* 7.2: the kernel releases, clears the pending field and wakes in one call */
static uint64_t b_futex_robust_unlock(void *p, long k)
{
	struct unlock_ctx *c = p;
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++) {
		__atomic_store_n(&c->lock.futex, c->tid, __ATOMIC_RELAXED);
		c->head.list_op_pending = &c->lock.list;
		if (syscall(SYS_futex, &c->lock.futex, FUTEX_WAKE | FUTEX_ROBUST_UNLOCK, 1,
			    NULL, &c->head.list_op_pending, 0) < 0)
			abort();
	}
	return now_ns() - t;
}

/*
 * SPEC.md's 7.2 targets: ours against the kernel's own robust unlock, in
 * the same boot; on other kernels one line says why they are absent.
 */
static void bench_unlock_vs_kernel(struct unlock_ctx *c)
{
	const char *why = "no vDSO try-unlock";
	struct figure f;

	c->vdso = th_vdso_try_unlock(64);
	if (!c->vdso || !th_have_robust_unlock(&why)) {
		progress("unlock: no rows against the kernel's robust unlock: %s", why);
		return;
	}
	figure_init(&f, "unlock", "try_unlock64 vs vDSO try-unlock", 0, "ns/unlock", 1.0);
	snprintf(f.note, sizeof(f.note),
		 "__vdso_futex_robust_list64_try_unlock, same lock and pending field");
	run_pair(&f, b_try_unlock, c, b_vdso_try_unlock, c);
	emit(&f);

	figure_init(&f, "unlock", "robust_list2_unlock vs FUTEX_ROBUST_UNLOCK", 0, "ns/unlock",
		    1.2);
	snprintf(f.note, sizeof(f.note), "no waiters; anchor = FUTEX_WAKE|FUTEX_ROBUST_UNLOCK");
	run_pair(&f, b_unlock_call, c, b_futex_robust_unlock, c);
	emit(&f);
}

void bench_unlock(void)
{
	static struct unlock_ctx c;
	struct figure f;

	progress("unlock: try-unlock and the unlock call against their plain equivalents");
	pin_to_cpu(0);
	c.tid = gettid_();
	c.head.list.next = &c.head.list;
	c.head.futex_offset = LOCK_OFF;
	if (set_robust_list2(&c.head, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0))
		die("set_robust_list2: %s", strerror(errno));

	/*
	 * SPEC.md's target is for the try-unlock inlined in the caller (the
	 * header's copy, x86 and arm64); the library call is shown without
	 * one.  Those against the kernel's own robust unlock
	 * follow, where the kernel has it (7.2).
	 */
#ifdef ROBUST_LIST2_HAVE_TRY_UNLOCK_INLINE
	figure_init(&f, "unlock", "try_unlock64 inline vs cmpxchg unlock", 0, "ns/unlock", 1.1);
	snprintf(f.note, sizeof(f.note),
		 "robust_list2_try_unlock64_inline() against the same steps in C");
	run_pair(&f, b_try_unlock_inline, &c, b_cmpxchg_unlock, &c);
	emit(&f);
#else
	progress("unlock: no inline try-unlock row: the header has it on x86 and arm64");
#endif

	figure_init(&f, "unlock", "try_unlock64 vs cmpxchg unlock", 0, "ns/unlock", 0);
	snprintf(f.note, sizeof(f.note), "a library call against the same steps inlined");
	run_pair(&f, b_try_unlock, &c, b_cmpxchg_unlock, &c);
	emit(&f);

	figure_init(&f, "unlock", "robust_list2_unlock vs FUTEX_WAKE", 0, "ns/unlock", 0);
	snprintf(f.note, sizeof(f.note), "no waiters; anchor = xchg + FUTEX_WAKE + clear pending");
	run_pair(&f, b_unlock_call, &c, b_futex_wake, &c);
	emit(&f);

	bench_unlock_vs_kernel(&c);

	set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0);
	pin_to_cpu(-1);
}
