// SPDX-License-Identifier: GPL-2.0
/*
 * register: what registering a list costs.  Two rows carry SPEC.md's
 * targets: set_robust_list2() against an empty ioctl on the same device
 * (the entry floor no driver can go below), and a whole thread's life
 * with one slot registered against the same life registering its list
 * with the legacy set_robust_list().  The other rows say where the time
 * goes, and what the thread-life method can resolve (A/A).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "bench.h"

static struct robust_list_head reg_head = { .list = { &reg_head.list } };

static uint64_t b_set_rl2(void *ctx, long k)
{
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		set_robust_list2(&reg_head, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0);
	return now_ns() - t;
}

/* The same SET without the library: what the kernel path alone costs. */
static uint64_t b_set_ioctl(void *ctx, long k)
{
	int fd = robust_list2_fd();
	struct robust_list2_set a = {
		.head = (uintptr_t)&reg_head,
		.cmd = ROBUST_LIST2_CMD_SET_64,
	};
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		ioctl(fd, ROBUST_LIST2_IOC_SET, &a);
	return now_ns() - t;
}

/* fdget, the LSM file_ioctl hook, the vfs dispatch: RL2_IOC_EMPTY. */
static uint64_t b_ioctl_empty(void *ctx, long k)
{
	int fd = robust_list2_fd();
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		ioctl(fd, RL2_IOC_EMPTY);
	return now_ns() - t;
}

static uint64_t b_null_syscall(void *ctx, long k)
{
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		syscall(SYS_getppid);
	return now_ns() - t;
}

/*
 * Thread life.  The head lives in TLS, i.e. in the thread's own stack
 * mapping, which glibc keeps until the join: the exit walk reads it after
 * the start routine has returned, when a head on its stack frame could
 * already be overwritten.  Both kinds of thread also carry glibc's own
 * legacy list; the anchor's set_robust_list() replaces it, as any user of
 * the legacy call does.
 */
static __thread struct robust_list_head life_head;

/*
 * A thread's exit defers work past the join (its task is freed after an
 * RCU grace period; our record too): slices of 20 ms, five ticks at
 * HZ=250, 8 pairs a round, so that the deferred share crossing a slice
 * boundary is small and the same for both sides (the A/A row shows it).
 */
#define LIFE_SLICE_NS	(20 * NSEC_PER_MSEC)
#define LIFE_PAIRS	8
static int life_err;

static void *life_rl2(void *arg)
{
	life_head.list.next = &life_head.list;
	life_head.futex_offset = LOCK_OFF;
	if (set_robust_list2(&life_head, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0))
		__atomic_store_n(&life_err, errno, __ATOMIC_RELAXED);
	return NULL;
}

static void *life_legacy(void *arg)
{
	life_head.list.next = &life_head.list;
	life_head.futex_offset = LOCK_OFF;
	if (syscall(SYS_set_robust_list, &life_head, sizeof(life_head)))
		__atomic_store_n(&life_err, errno, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * The same life, the slot emptied again before the thread returns: the
 * record is made and freed by the two calls, and the exit finds none.
 * Against life_rl2 it separates the registration's share of a thread's
 * life from the exit's.
 */
static void *life_rl2_emptied(void *arg)
{
	life_rl2(arg);
	if (set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0))
		__atomic_store_n(&life_err, errno, __ATOMIC_RELAXED);
	return NULL;
}

/* A life with no registration at all: what the anchor's call costs. */
static void *life_plain(void *arg)
{
	return NULL;
}

static uint64_t b_life_rl2(void *ctx, long k)
{
	return thread_lives(life_rl2, k);
}

static uint64_t b_life_rl2_emptied(void *ctx, long k)
{
	return thread_lives(life_rl2_emptied, k);
}

static uint64_t b_life_plain(void *ctx, long k)
{
	return thread_lives(life_plain, k);
}

static uint64_t b_life_legacy(void *ctx, long k)
{
	return thread_lives(life_legacy, k);
}

static const struct register_row {
	const char *item;
	const char *unit;
	double ns_per_unit;	/* run_pair() records ns per operation */
	bench_fn ours, anchor;
	double target;		/* SPEC.md; 0: explains another row */
	bool lives;		/* whole thread lives: run_pair_long() */
	const char *note;
	int backend;		/* only with this ROBUST_LIST2_BACKEND_*; 0: any */
} register_rows[] = {
	{ "set_robust_list2 vs empty ioctl on the device", "ns/call", 1,
	  b_set_rl2, b_ioctl_empty, 1.25, false,
	  "anchor: an ioctl our driver answers ENOTTY at once (the entry floor)",
	  ROBUST_LIST2_BACKEND_DEVICE },
	{ "SET ioctl without library vs empty ioctl", "ns/call", 1,
	  b_set_ioctl, b_ioctl_empty, 0, false,
	  "the handler's own work: copy-in; checks; find the record; store the slot",
	  ROBUST_LIST2_BACKEND_DEVICE },
	{ "empty ioctl vs getppid (null syscall)", "ns/call", 1,
	  b_ioctl_empty, b_null_syscall, 0, false,
	  "what the ioctl entry (fdget; LSM hook; vfs dispatch) adds to a bare system call",
	  ROBUST_LIST2_BACKEND_DEVICE },
	{ "set_robust_list2 (system call) vs getppid (null syscall)", "ns/call", 1,
	  b_set_rl2, b_null_syscall, 0, false,
	  "the kernel's own call (kernel-series/): checks; the exit mutex; store the slot",
	  ROBUST_LIST2_BACKEND_SYSCALL },
	{ "thread life with one slot vs legacy set_robust_list()", "us/thread", 1e3,
	  b_life_rl2, b_life_legacy, 1.03, true,
	  "pthread_create + set + exit + join; anchor registers the same empty list with set_robust_list()",
	  0 },
	{ "thread life: legacy vs legacy (noise floor)", "us/thread", 1e3,
	  b_life_legacy, b_life_legacy, 0, true,
	  "A/A: the anchor of the row above against itself",
	  0 },
	{ "thread life: slot set then emptied vs legacy", "us/thread", 1e3,
	  b_life_rl2_emptied, b_life_legacy, 0, true,
	  "where the thread-life row goes: record made and freed by set and empty; the exit finds none",
	  0 },
	{ "thread life: legacy vs no registration", "us/thread", 1e3,
	  b_life_legacy, b_life_plain, 0, true,
	  "what the anchor's set_robust_list() and the kernel's walk of its empty list cost",
	  0 },
};

void bench_register(void)
{
	struct robust_list_head *saved;
	int backend = robust_list2_backend();
	size_t len;
	struct figure f;
	void *got = NULL;

	progress("register: set_robust_list2 vs an empty ioctl; thread life vs set_robust_list");
	pin_to_cpu(0);
	syscall(SYS_get_robust_list, 0, &saved, &len);
	if (set_robust_list2(&reg_head, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0) ||
	    get_robust_list2(0, &got, 0, 0) || got != &reg_head)
		die("set_robust_list2/get_robust_list2 do not work: %s", strerror(errno));

	for (size_t i = 0; i < ARRAY_SIZE(register_rows); i++) {
		const struct register_row *r = &register_rows[i];

		if (r->backend && r->backend != backend)
			continue;	/* the device's rows on the native kernel */
		figure_init(&f, "register", r->item, 0, r->unit, r->target);
		snprintf(f.note, sizeof(f.note), "%s", r->note);
		if (r->lives)
			run_pair_long(&f, r->ours, NULL, r->anchor, NULL,
				      LIFE_SLICE_NS, LIFE_PAIRS);
		else
			run_pair(&f, r->ours, NULL, r->anchor, NULL);
		for (int j = 0; j < f.ours.n; j++) {
			f.ours.v[j] /= r->ns_per_unit;
			f.anchor.v[j] /= r->ns_per_unit;
		}
		emit(&f);
		if (life_err)
			die("registering in a new thread: %s", strerror(life_err));
	}

	set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0);
	syscall(SYS_set_robust_list, saved, len);
	pin_to_cpu(-1);
}
