// SPDX-License-Identifier: GPL-2.0
/*
 * rl2_bench: robust_list2 measured side by side with the kernel's own
 * robust list, every figure a ratio to an anchor measured in the same run.
 *
 * Runs inside a test VM (scripts/bench boots one per kernel).  Absolute
 * times under QEMU TCG on a shared host are meaningless: the speed drifts
 * by tens of percent within a second and other VMs steal milliseconds.
 * So every figure is a pair, subject and anchor, interleaved at the
 * finest grain the test allows (1 ms slices, or exit by exit) with the
 * order alternating; a round is the median over its adjacent pairs, and a
 * row the median over the rounds with their min-max and quartiles.
 *
 * Tests (see each test_*() for the method):
 *   bystander  fork+exit, pthread_create+join with the module loaded vs not
 *   register   set/get_robust_list2() vs set/get_robust_list(2)
 *   unlock     try-unlock vs cmpxchg; unlock call vs FUTEX_WAKE
 *   exit       exit walk of N locks, 1 or 8 slots, vs the legacy list
 *   scale      1k/5k/10k threads alive, 8 slots each, vs plain threads
 *
 *	rl2_bench [-r ROUNDS] [-t FACTOR] [TEST...]
 *
 * TEST is register, unlock, exit, bystander, scale or all (the default:
 * bystander first, because it must unload the module and so runs before
 * this process opens the device).  -r sets the rounds (default 9; the
 * bystander test adds 6, scale takes at most 3); -t scales the time of
 * every round (1.0: a round of a pair takes about 100 ms).
 *
 * Output: one CSV row per figure on stdout, each prefixed "@csv " so the
 * host can pick them out of the console stream; progress on stderr.
 *	section,item,n,unit,ours,anchor,ratio,ratio_min,ratio_max,
 *	ratio_q1,ratio_q3,rounds,target,status,note
 * ours/anchor: medians of the per-round values in @unit; ratio = ours /
 * anchor per round; status: met, MISSED, unresolved (median above the
 * target, lower quartile within it), info (no target) or capped (the
 * legacy list cannot do it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/futex.h>

#include "robust_list2.h"

#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_MSEC	1000000ULL
#define MAX_ROUNDS	31
#define MAX_SLICES	512
#define ROUND_NS	(100 * NSEC_PER_MSEC)	/* both sides of a pair, one round */
#define SLICE_NS	(1 * NSEC_PER_MSEC)	/* one side, between switches */
#define NR_SLOTS	8
#define MAX_WAITERS	4
#define LEGACY_LIMIT	2048		/* the kernel's ROBUST_LIST_LIMIT */
#define MODULE_NAME	"robust_list2"

static int opt_rounds = 9;
static double opt_time = 1.0;
static int nr_cpus;

/* ---------------------------------------------------------------- utils */

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("rl2_bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * NSEC_PER_MSEC };

	nanosleep(&ts, NULL);
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static long futex(uint32_t *uaddr, int op, uint32_t val,
		  const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

/* Wait until *word != val (private futex, bounded by @ms). */
static int wait_change(uint32_t *word, uint32_t val, unsigned int ms)
{
	uint64_t deadline = now_ns() + ms * NSEC_PER_MSEC;

	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == val) {
		struct timespec ts = { 0, 10 * NSEC_PER_MSEC };

		if (now_ns() > deadline)
			return -1;
		futex(word, FUTEX_WAIT_PRIVATE, val, &ts);
	}
	return 0;
}

static void store_wake(uint32_t *word, uint32_t val)
{
	__atomic_store_n(word, val, __ATOMIC_RELEASE);
	futex(word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

static void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu < 0) {
		for (int i = 0; i < nr_cpus; i++)
			CPU_SET(i, &set);
	} else {
		CPU_SET(cpu, &set);
	}
	sched_setaffinity(0, sizeof(set), &set);
}

static void thread_attr(pthread_attr_t *attr, size_t stack, int cpu)
{
	pthread_attr_init(attr);
	pthread_attr_setstacksize(attr, stack);
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_attr_setaffinity_np(attr, sizeof(set), &set);
	}
}

/* ------------------------------------------------------------- figures */

struct series {
	double v[MAX_ROUNDS];
	int n;
};

static void push(struct series *s, double v)
{
	if (s->n < MAX_ROUNDS)
		s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Quantile @q of @s, linear interpolation between order statistics. */
static double quantile(const struct series *s, double q)
{
	double v[MAX_ROUNDS], pos;
	int i;

	if (!s->n)
		return 0;
	memcpy(v, s->v, s->n * sizeof(v[0]));
	qsort(v, s->n, sizeof(v[0]), cmp_double);
	pos = q * (s->n - 1);
	i = (int)pos;
	if (i + 1 >= s->n)
		return v[s->n - 1];
	return v[i] + (pos - i) * (v[i + 1] - v[i]);
}

static double median(const struct series *s)
{
	return quantile(s, 0.5);
}

struct figure {
	const char *section;
	char item[64];
	long n;
	const char *unit;
	struct series ours, anchor, ratio;
	double target;		/* 0: information only */
	const char *status;	/* overrides met/MISSED */
	char note[200];
};

static void emit(struct figure *f)
{
	double r = median(&f->ratio);
	const char *status = f->status;
	char target[16] = "";

	if (f->target > 0)
		snprintf(target, sizeof(target), "%.2f", f->target);
	/*
	 * A median above the target whose lower quartile is within it is
	 * not a resolved miss: the spread of the rounds covers the target.
	 */
	if (!status)
		status = f->target <= 0 ? "info" : r <= f->target ? "met" :
			 quantile(&f->ratio, 0.25) <= f->target ? "unresolved" : "MISSED";
	printf("@csv %s,%s,%ld,%s,%.1f,%.1f,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%s,%s,%s\n",
	       f->section, f->item, f->n, f->unit, median(&f->ours),
	       median(&f->anchor), r, quantile(&f->ratio, 0),
	       quantile(&f->ratio, 1), quantile(&f->ratio, 0.25),
	       quantile(&f->ratio, 0.75), f->ratio.n, target, status, f->note);
	fflush(stdout);
}

static void figure_init(struct figure *f, const char *section, const char *item,
			long n, const char *unit, double target)
{
	memset(f, 0, sizeof(*f));
	f->section = section;
	snprintf(f->item, sizeof(f->item), "%s", item);
	f->n = n;
	f->unit = unit;
	f->target = target;
}

static void add_round(struct figure *f, double ours, double anchor)
{
	push(&f->ours, ours);
	push(&f->anchor, anchor);
	push(&f->ratio, anchor > 0 ? ours / anchor : 0);
}

/* A loop of @iters operations; returns the elapsed ns. */
typedef uint64_t (*bench_fn)(void *ctx, long iters);

/* Operations per slice of about @slice_ns. */
static long calibrate(bench_fn fn, void *ctx, double slice_ns)
{
	long k = 1;

	fn(ctx, 1);			/* warm up */
	for (;;) {
		uint64_t t = fn(ctx, k);

		if (t >= slice_ns / 2 || k >= (1L << 28)) {
			double want = k * slice_ns / (t ? t : 1);

			return want < 1 ? 1 : (long)want;
		}
		k *= 2;
	}
}

/* Median of @n values (n <= MAX_SLICES); @v is left alone. */
static double median_of(const double *v, int n)
{
	double tmp[MAX_SLICES];

	if (n <= 0)
		return 0;
	if (n > MAX_SLICES)
		n = MAX_SLICES;
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n & 1 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* One side of a comparison: a loop of @chunk operations per slice. */
struct side {
	bench_fn fn;
	void *ctx;
	long chunk;
};

/* Run one slice; returns ns per operation. */
static double side_run(struct side *s)
{
	return (double)s->fn(s->ctx, s->chunk) / s->chunk;
}

/*
 * Subject against anchor.  The machines' speed drifts by tens of percent
 * within a second, and another VM on the host steals whole milliseconds,
 * so the two are interleaved in slices of about a millisecond (taking
 * turns going first) and a round is the median over ~50 adjacent pairs
 * of their ratio: drift cancels within a pair, a stolen slice is an
 * outlier the median ignores.  Records ns per operation (medians).
 */
static void run_pair(struct figure *f, bench_fn ours, void *octx,
		     bench_fn anchor, void *actx)
{
	struct side o = { .fn = ours, .ctx = octx }, a = { .fn = anchor, .ctx = actx };
	int slices = (int)(ROUND_NS * opt_time / (2 * SLICE_NS));
	double ov[MAX_SLICES], av[MAX_SLICES], rv[MAX_SLICES];

	slices = slices < 1 ? 1 : slices > MAX_SLICES ? MAX_SLICES : slices;
	o.chunk = calibrate(ours, octx, SLICE_NS);
	a.chunk = calibrate(anchor, actx, SLICE_NS);
	for (int r = 0; r < opt_rounds; r++) {
		for (int i = 0; i < slices; i++) {
			if ((i + r) & 1) {
				av[i] = side_run(&a);
				ov[i] = side_run(&o);
			} else {
				ov[i] = side_run(&o);
				av[i] = side_run(&a);
			}
			rv[i] = ov[i] / av[i];
		}
		push(&f->ours, median_of(ov, slices));
		push(&f->anchor, median_of(av, slices));
		push(&f->ratio, median_of(rv, slices));
	}
}

/* ------------------------------------------------------------ register */

static struct robust_list_head reg_head = { .list = { &reg_head.list } };

static uint64_t b_set_native(void *ctx, long k)
{
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		syscall(SYS_set_robust_list, &reg_head, sizeof(reg_head));
	return now_ns() - t;
}

static uint64_t b_set_rl2(void *ctx, long k)
{
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		set_robust_list2(&reg_head, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0);
	return now_ns() - t;
}

static uint64_t b_get_native(void *ctx, long k)
{
	struct robust_list_head *h;
	size_t len;
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		syscall(SYS_get_robust_list, 0, &h, &len);
	return now_ns() - t;
}

static uint64_t b_get_rl2(void *ctx, long k)
{
	void *h;
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		get_robust_list2(0, &h, 0, 0);
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

/* An ioctl the module does not know: the vfs ioctl path, no handler work. */
static uint64_t b_ioctl_floor(void *ctx, long k)
{
	int fd = robust_list2_fd();
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		ioctl(fd, _IO(ROBUST_LIST2_IOC_TYPE, 0x1f));
	return now_ns() - t;
}

static uint64_t b_null_syscall(void *ctx, long k)
{
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		syscall(SYS_getppid);
	return now_ns() - t;
}

/* Our calls against the native ones, then where the time goes (no target). */
static const struct register_row {
	const char *item;
	bench_fn ours, anchor;
	double target;
} register_rows[] = {
	{ "set_robust_list2 vs set_robust_list", b_set_rl2, b_set_native, 1.5 },
	{ "get_robust_list2 vs get_robust_list", b_get_rl2, b_get_native, 1.5 },
	{ "SET ioctl without library vs set_robust_list", b_set_ioctl, b_set_native, 0 },
	{ "unknown ioctl (vfs floor) vs set_robust_list", b_ioctl_floor, b_set_native, 0 },
	{ "getppid (null syscall) vs set_robust_list", b_null_syscall, b_set_native, 0 },
};

static void test_register(void)
{
	struct robust_list_head *saved;
	size_t len;
	struct figure f;
	void *got = NULL;

	progress("register: set/get round trips against the native syscalls");
	pin_to_cpu(0);
	syscall(SYS_get_robust_list, 0, &saved, &len);
	if (set_robust_list2(&reg_head, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0) ||
	    get_robust_list2(0, &got, 0, 0) || got != &reg_head)
		die("set_robust_list2/get_robust_list2 do not work: %s", strerror(errno));

	for (size_t i = 0; i < sizeof(register_rows) / sizeof(register_rows[0]); i++) {
		const struct register_row *r = &register_rows[i];

		figure_init(&f, "register", r->item, 0, "ns/call", r->target);
		run_pair(&f, r->ours, NULL, r->anchor, NULL);
		emit(&f);
	}

	set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0);
	syscall(SYS_set_robust_list, saved, len);
	pin_to_cpu(-1);
}

/* -------------------------------------------------------------- unlock */

struct lock64 {
	struct robust_list list;
	uint32_t futex;
	uint32_t pad;
};

#define LOCK_OFF	((long)offsetof(struct lock64, futex))

struct unlock_ctx {
	struct lock64 lock;
	struct robust_list_head head;
	uint32_t tid;
};

static uint64_t b_try_unlock(void *p, long k)
{
	struct unlock_ctx *c = p;
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++) {
		__atomic_store_n(&c->lock.futex, c->tid, __ATOMIC_RELAXED);
		c->head.list_op_pending = &c->lock.list;
		__asm__ volatile("" ::: "memory");
		if (robust_list2_try_unlock64(&c->lock.futex, c->tid,
					      (uint64_t *)&c->head.list_op_pending) != c->tid)
			abort();
	}
	return now_ns() - t;
}

static uint64_t b_cmpxchg_unlock(void *p, long k)
{
	struct unlock_ctx *c = p;
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++) {
		uint32_t old = c->tid;

		__atomic_store_n(&c->lock.futex, c->tid, __ATOMIC_RELAXED);
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

static void test_unlock(void)
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

	figure_init(&f, "unlock", "try_unlock64 vs cmpxchg unlock", 0, "ns/unlock", 0);
	run_pair(&f, b_try_unlock, &c, b_cmpxchg_unlock, &c);
	emit(&f);

	figure_init(&f, "unlock", "robust_list2_unlock vs FUTEX_WAKE", 0, "ns/unlock", 0);
	snprintf(f.note, sizeof(f.note), "no waiters; anchor = xchg + FUTEX_WAKE + clear pending");
	run_pair(&f, b_unlock_call, &c, b_futex_wake, &c);
	emit(&f);

	set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0);
	pin_to_cpu(-1);
}

/* ----------------------------------------------------------- exit walk */

enum { MODE_LEGACY, MODE_RL2, MODE_RL2X8, NR_MODES };
static const char *const mode_name[NR_MODES] = { "legacy", "1 slot", "8 slots" };
static const unsigned int exit_ns[] = { 0, 1, 16, 256, 2048, 65536 };
#define NR_EXIT_N	(sizeof(exit_ns) / sizeof(exit_ns[0]))
#define MAX_LOCKS	65536

struct exit_job {
	int mode;
	unsigned int n;
	struct lock64 *locks;
	struct robust_list_head heads[NR_SLOTS];
	unsigned int nwait;
	unsigned int widx[MAX_WAITERS];
	uint32_t ready, go;
	pid_t tid;
	int err;
};

struct waiter {
	uint32_t *uaddr;
	uint32_t val;
	uint32_t *release;
	pid_t tid;
	uint32_t started;
	int result;
	uint64_t woke;
	pthread_t thread;
};

static void *owner_main(void *arg)
{
	struct exit_job *j = arg;
	unsigned int nslots = j->mode == MODE_RL2X8 ? NR_SLOTS : 1;
	pid_t tid = gettid_();
	unsigned int i, s;

	for (s = 0; s < nslots; s++) {
		j->heads[s].list.next = &j->heads[s].list;
		j->heads[s].futex_offset = LOCK_OFF;
		j->heads[s].list_op_pending = NULL;
	}
	/* Lock i in slot i * nslots / n; each list walked in index order. */
	for (i = j->n; i-- > 0;) {
		struct lock64 *l = &j->locks[i];

		s = (unsigned int)((uint64_t)i * nslots / j->n);
		l->futex = tid;
		l->list.next = j->heads[s].list.next;
		j->heads[s].list.next = &l->list;
	}
	for (i = 0; i < j->nwait; i++)
		j->locks[j->widx[i]].futex |= FUTEX_WAITERS;

	if (j->mode == MODE_LEGACY) {
		if (syscall(SYS_set_robust_list, &j->heads[0], sizeof(j->heads[0])))
			j->err = errno;
	} else {
		for (s = 0; s < nslots && !j->err; s++)
			if (set_robust_list2(&j->heads[s], s,
					     FUTEX_ROBUST_LIST_CMD_SET_64, 0))
				j->err = errno;
	}
	j->tid = tid;
	store_wake(&j->ready, 1);
	while (!__atomic_load_n(&j->go, __ATOMIC_ACQUIRE))
		futex(&j->go, FUTEX_WAIT_PRIVATE, 0, NULL);
	return NULL;			/* the timed part: exit and walk */
}

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	struct timespec ts = { 10, 0 };

	w->tid = gettid_();
	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	/* Shared op, as glibc's robust mutexes wait (the kernel wakes shared). */
	w->result = futex(w->uaddr, FUTEX_WAIT, w->val, &ts) ? -errno : 0;
	w->woke = now_ns();
	while (!__atomic_load_n(w->release, __ATOMIC_ACQUIRE))
		futex(w->release, FUTEX_WAIT_PRIVATE, 0, NULL);
	return NULL;
}

/* Is thread @tid asleep in futex() on @uaddr? */
static bool sleeping_on(pid_t tid, const void *uaddr)
{
	char path[64], buf[256];
	unsigned long nr, a0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return sscanf(buf, "%lu 0x%lx", &nr, &a0) == 2 && nr == SYS_futex &&
	       a0 == (unsigned long)(uintptr_t)uaddr;
}

struct exit_result {
	uint64_t exit_ns;	/* go -> join returned */
	uint64_t wake_ns;	/* go -> last waiter woke */
	unsigned int recovered;
	bool bad;
};

/*
 * One thread exit: the owner holds @n locks in @mode's lists and exits;
 * time from the request to its death (pthread_join returns after the
 * CLONE_CHILD_CLEARTID wake, which do_exit() issues after the walks).
 */
static struct exit_result exit_once(int mode, unsigned int n, struct lock64 *locks,
				    bool waiters, bool count)
{
	static struct exit_job j;
	struct waiter w[MAX_WAITERS];
	uint32_t release = 0;
	struct exit_result res = { 0 };
	pthread_attr_t attr;
	pthread_t owner;
	uint64_t t0, deadline;
	unsigned int i;

	memset(&j, 0, sizeof(j));
	j.mode = mode;
	j.n = n;
	j.locks = locks;
	if (waiters) {
		j.nwait = n < MAX_WAITERS ? n : MAX_WAITERS;
		for (i = 0; i < j.nwait; i++)	/* spread out, the last one last */
			j.widx[i] = (unsigned int)((uint64_t)(i + 1) * n / j.nwait) - 1;
	}
	thread_attr(&attr, 128 << 10, 0);
	if (pthread_create(&owner, &attr, owner_main, &j))
		die("pthread_create: %s", strerror(errno));
	if (wait_change(&j.ready, 0, 10000))
		die("owner thread never got ready");
	if (j.err)
		die("registering the %s list: %s", mode_name[mode], strerror(j.err));

	for (i = 0; i < j.nwait; i++) {
		w[i] = (struct waiter){
			.uaddr = &locks[j.widx[i]].futex,
			.val = (uint32_t)j.tid | FUTEX_WAITERS,
			.release = &release,
		};
		if (pthread_create(&w[i].thread, &attr, waiter_main, &w[i]))
			die("pthread_create: %s", strerror(errno));
	}
	deadline = now_ns() + 10 * NSEC_PER_SEC;
	for (i = 0; i < j.nwait; i++) {
		while (!__atomic_load_n(&w[i].started, __ATOMIC_ACQUIRE) ||
		       !sleeping_on(w[i].tid, w[i].uaddr)) {
			if (now_ns() > deadline)
				die("waiter %u never slept", i);
			sched_yield();
		}
	}
	pthread_attr_destroy(&attr);

	t0 = now_ns();
	store_wake(&j.go, 1);
	pthread_join(owner, NULL);
	res.exit_ns = now_ns() - t0;

	if (j.nwait) {
		store_wake(&release, 1);
		for (i = 0; i < j.nwait; i++) {
			pthread_join(w[i].thread, NULL);
			if (w[i].result)
				res.bad = true;
			if (w[i].woke - t0 > res.wake_ns)
				res.wake_ns = w[i].woke - t0;
		}
	}
	if (count) {
		for (i = 0; i < n; i++)
			if ((locks[i].futex & (FUTEX_OWNER_DIED | FUTEX_TID_MASK)) ==
			    FUTEX_OWNER_DIED)
				res.recovered++;
	}
	return res;
}

static void test_exit(void)
{
	/*
	 * Per round, [mode][n index], medians over the round's exits: exit
	 * time (index 0: with no locks), per-entry cost (T(N) - T(0)) / N of
	 * adjacent pairs, time until the last waiter woke.
	 */
	static double walk[MAX_ROUNDS][NR_MODES][NR_EXIT_N];
	static double pe[MAX_ROUNDS][NR_MODES][NR_EXIT_N];
	static double wake[MAX_ROUNDS][NR_MODES][NR_EXIT_N];
	static double s0[NR_MODES][MAX_SLICES], sn[NR_MODES][MAX_SLICES];
	static double sd[NR_MODES][MAX_SLICES], sw[NR_MODES][MAX_SLICES];
	int n0;
	unsigned int recovered[NR_MODES][NR_EXIT_N] = { { 0 } };
	long k[NR_EXIT_N], kw[NR_EXIT_N];
	bool bad_wake = false;
	struct lock64 *locks;
	struct figure f;
	unsigned int a;
	int r, m, i;

	progress("exit: walk of N locks at thread exit, legacy list vs 1 and 8 slots");
	pin_to_cpu(0);
	locks = calloc(MAX_LOCKS, sizeof(*locks));
	if (!locks)
		die("out of memory");

	/*
	 * Exits per mode and round: about 25 ms of the slowest mode's exits,
	 * counting thread creation and list set-up (not timed) at 250 us.
	 */
	for (a = 1; a < NR_EXIT_N; a++) {
		uint64_t t = 0;

		for (i = 0; i < 2; i++)
			t += exit_once(MODE_RL2, exit_ns[a], locks, false, false).exit_ns +
			     250000;
		t /= 2;
		k[a] = (long)(25 * NSEC_PER_MSEC * opt_time / t);
		k[a] = k[a] < 3 ? 3 : k[a] > 100 ? 100 : k[a];
		kw[a] = k[a] / 4 < 3 ? 3 : k[a] / 4;
	}

	/*
	 * Every exit with N locks is paired with an exit with none in the
	 * same mode, and the modes take turns exit by exit: per-entry cost =
	 * (T(N) - T(0)) / N from exits taken within a millisecond or so of
	 * each other, whatever the machine's speed does meanwhile; a round
	 * reports medians over its pairs, so an exit another VM slowed down
	 * does not count.
	 */
	for (r = 0; r < opt_rounds; r++) {
		progress("exit: round %d/%d", r + 1, opt_rounds);
		n0 = 0;
		for (a = 1; a < NR_EXIT_N; a++) {
			unsigned int n = exit_ns[a];

			for (i = 0; i < k[a]; i++) {
				for (int mi = 0; mi < NR_MODES; mi++) {
					bool count = !r && !i;
					struct exit_result res;
					double t0;

					m = (mi + i + r) % NR_MODES;
					if ((i + mi) & 1) {
						t0 = exit_once(m, 0, locks, false, false).exit_ns;
						res = exit_once(m, n, locks, false, count);
					} else {
						res = exit_once(m, n, locks, false, count);
						t0 = exit_once(m, 0, locks, false, false).exit_ns;
					}
					s0[m][n0 + i] = t0;
					sn[m][i] = res.exit_ns;
					sd[m][i] = (res.exit_ns - t0) / n;
					if (count)
						recovered[m][a] = res.recovered;
				}
			}
			n0 += k[a];
			for (m = 0; m < NR_MODES; m++) {
				walk[r][m][a] = median_of(sn[m], k[a]);
				pe[r][m][a] = median_of(sd[m], k[a]);
			}

			/* Waiters on the last entries (not for legacy past its cap). */
			for (i = 0; i < kw[a]; i++) {
				for (int mi = 0; mi < NR_MODES; mi++) {
					struct exit_result res;

					m = (mi + i + r) % NR_MODES;
					if (m == MODE_LEGACY && n > LEGACY_LIMIT)
						continue;
					res = exit_once(m, n, locks, true, false);
					sw[m][i] = res.wake_ns;
					bad_wake |= res.bad;
				}
			}
			for (m = 0; m < NR_MODES; m++)
				wake[r][m][a] = median_of(sw[m], kw[a]);
		}
		for (m = 0; m < NR_MODES; m++)
			walk[r][m][0] = median_of(s0[m], n0);
	}
	if (bad_wake)
		progress("exit: WARNING: a waiter was not woken by the walk");

	/* Fixed cost: a thread exit with registered but empty lists. */
	for (m = MODE_RL2; m < NR_MODES; m++) {
		char item[64];

		snprintf(item, sizeof(item), "exit with 0 locks: %s vs legacy", mode_name[m]);
		figure_init(&f, "exit", item, 0, "us/exit", 0);
		for (r = 0; r < opt_rounds; r++)
			add_round(&f, walk[r][m][0] / 1e3, walk[r][MODE_LEGACY][0] / 1e3);
		snprintf(f.note, sizeof(f.note), "lists registered but empty: the fixed cost of the hook and walk");
		emit(&f);
	}

	/* Per entry: (T(N) - T(0)) / N, each against the legacy list. */
	for (a = 1; a < NR_EXIT_N; a++) {
		unsigned int n = exit_ns[a];
		unsigned int an = n > LEGACY_LIMIT ? NR_EXIT_N - 2 : a;	/* N = 2048 */

		for (m = MODE_RL2; m < NR_MODES; m++) {
			struct series total = { .n = 0 }, pe_ours = { .n = 0 }, pe_anc = { .n = 0 };
			char item[64];

			if (n < 256)
				snprintf(item, sizeof(item), "exit with N locks: %s vs legacy",
					 mode_name[m]);
			else
				snprintf(item, sizeof(item), "per entry: %s vs legacy", mode_name[m]);
			figure_init(&f, "exit", item, n, n < 256 ? "us/exit" : "ns/entry",
				    n >= 256 ? 1.5 : 0);
			for (r = 0; r < opt_rounds; r++) {
				double ours = pe[r][m][a], anc = pe[r][MODE_LEGACY][an];

				push(&pe_ours, ours);
				push(&pe_anc, anc);
				if (n < 256)	/* too few entries to resolve per entry */
					add_round(&f, walk[r][m][a] / 1e3,
						  walk[r][MODE_LEGACY][a] / 1e3);
				else
					add_round(&f, ours, anc);
				push(&total, walk[r][m][a] / walk[r][MODE_LEGACY][a]);
			}
			if (n > LEGACY_LIMIT) {
				f.status = median(&f.ratio) <= 1.5 ? "met" : "MISSED";
				snprintf(f.note, sizeof(f.note),
					 "legacy capped: it recovered %u/%u (anchor: legacy per entry at N=%u); ours %u/%u",
					 recovered[MODE_LEGACY][a], n, LEGACY_LIMIT,
					 recovered[m][a], n);
			} else if (n < 256) {
				snprintf(f.note, sizeof(f.note),
					 "whole exit; (T(N)-T(0))/N = %.0f ns vs legacy %.0f ns is below the noise of an exit; recovered %u/%u (legacy %u/%u)",
					 median(&pe_ours), median(&pe_anc), recovered[m][a], n,
					 recovered[MODE_LEGACY][a], n);
			} else {
				snprintf(f.note, sizeof(f.note),
					 "whole exit %.2fx legacy; recovered %u/%u (legacy %u/%u)",
					 median(&total), recovered[m][a], n,
					 recovered[MODE_LEGACY][a], n);
			}
			emit(&f);
		}
	}

	/* Request to exit -> last waiter woken. */
	for (a = 1; a < NR_EXIT_N; a++) {
		unsigned int n = exit_ns[a];

		for (m = MODE_RL2; m < NR_MODES; m++) {
			char item[64];

			snprintf(item, sizeof(item), "last waiter wakes: %s vs legacy", mode_name[m]);
			figure_init(&f, "exit", item, n, "us", 0);
			if (n > LEGACY_LIMIT) {
				for (r = 0; r < opt_rounds; r++)
					add_round(&f, wake[r][m][a] / 1e3, 0);
				f.status = "capped";
				snprintf(f.note, sizeof(f.note),
					 "legacy never recovers entries past %u: their waiters sleep on",
					 LEGACY_LIMIT);
			} else {
				for (r = 0; r < opt_rounds; r++)
					add_round(&f, wake[r][m][a] / 1e3,
						  wake[r][MODE_LEGACY][a] / 1e3);
				snprintf(f.note, sizeof(f.note),
					 "%u waiter(s) spread over the list; the last on the last entry walked",
					 n < MAX_WAITERS ? n : MAX_WAITERS);
			}
			emit(&f);
		}
	}
	free(locks);
	pin_to_cpu(-1);
}

/* ----------------------------------------------------------- bystander */

static const char *module_path(void)
{
	const char *p = getenv("RL2_KO");

	return p && *p ? p : "/lib/robust_list2/robust_list2.ko";
}

static bool module_loaded(void)
{
	return access("/sys/module/" MODULE_NAME, F_OK) == 0;
}

static void module_unload(void)
{
	uint64_t deadline = now_ns() + 10 * NSEC_PER_SEC;

	while (syscall(SYS_delete_module, MODULE_NAME, O_NONBLOCK)) {
		if ((errno != EAGAIN && errno != EWOULDBLOCK) || now_ns() > deadline)
			die("rmmod %s: %s", MODULE_NAME, strerror(errno));
		sleep_ms(20);
	}
}

static void module_load(void)
{
	uint64_t deadline = now_ns() + 10 * NSEC_PER_SEC;
	int fd = open(module_path(), O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("%s: %s (set RL2_KO)", module_path(), strerror(errno));
	if (syscall(SYS_finit_module, fd, "", 0))
		die("insmod %s: %s", module_path(), strerror(errno));
	close(fd);
	while (access(ROBUST_LIST2_DEVICE, F_OK)) {
		if (now_ns() > deadline)
			die("%s did not appear", ROBUST_LIST2_DEVICE);
		sleep_ms(5);
	}
}

static uint64_t b_fork_exit(void *ctx, long k)
{
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid < 0)
			die("fork: %s", strerror(errno));
		waitpid(pid, NULL, 0);
	}
	return now_ns() - t;
}

static void *nop_main(void *arg)
{
	return arg;
}

static uint64_t b_thread_exit(void *ctx, long k)
{
	pthread_attr_t attr;
	uint64_t t;

	thread_attr(&attr, 128 << 10, 0);
	t = now_ns();
	for (long i = 0; i < k; i++) {
		pthread_t th;

		if (pthread_create(&th, &attr, nop_main, NULL))
			die("pthread_create: %s", strerror(errno));
		pthread_join(th, NULL);
	}
	t = now_ns() - t;
	pthread_attr_destroy(&attr);
	return t;
}

/*
 * "Busy": one other thread on the machine has a slot, so the exit hook's
 * fast path (an empty registry) no longer applies to bystanders.  Raw
 * ioctls on our own descriptor: the library would keep the device open
 * and the module could not be unloaded any more.
 */
struct busy {
	int fd;
	struct robust_list_head head;
	uint32_t ready, release;
	int err;
	pthread_t thread;
};

static void *busy_main(void *arg)
{
	struct busy *b = arg;
	struct robust_list2_set a = {
		.head = (uintptr_t)&b->head,
		.cmd = ROBUST_LIST2_CMD_SET_64,
	};

	if (ioctl(b->fd, ROBUST_LIST2_IOC_SET, &a))
		b->err = errno;
	store_wake(&b->ready, 1);
	while (!__atomic_load_n(&b->release, __ATOMIC_ACQUIRE))
		futex(&b->release, FUTEX_WAIT_PRIVATE, 0, NULL);
	a.head = 0;
	ioctl(b->fd, ROBUST_LIST2_IOC_SET, &a);
	return NULL;
}

static void busy_start(struct busy *b)
{
	memset(b, 0, sizeof(*b));
	b->head.list.next = &b->head.list;
	b->fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);
	if (b->fd < 0)
		die("%s: %s", ROBUST_LIST2_DEVICE, strerror(errno));
	if (pthread_create(&b->thread, NULL, busy_main, b))
		die("pthread_create: %s", strerror(errno));
	wait_change(&b->ready, 0, 10000);
	if (b->err)
		die("SET from the busy thread: %s", strerror(b->err));
}

static void busy_stop(struct busy *b)
{
	store_wake(&b->release, 1);
	pthread_join(b->thread, NULL);
	close(b->fd);
}

enum { BY_UNLOADED, BY_LOADED, BY_BUSY, NR_BY };

/*
 * The reference for the bystander test: kernel work of a similar kind to
 * fork+exit (page faults, page-table set-up and tear-down, syscalls) that
 * never exits a task, so nothing the module hooks.
 */
static uint64_t b_reference(void *ctx, long k)
{
	const size_t len = 128 << 10;
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			die("mmap: %s", strerror(errno));
		for (size_t off = 0; off < len; off += 4096)
			p[off] = 1;
		munmap(p, len);
		for (int j = 0; j < 16; j++)
			syscall(SYS_getppid);
	}
	return now_ns() - t;
}

/*
 * Module states cannot be switched every millisecond (a load or unload
 * patches kernel text and takes most of a second), so each state's fork
 * and thread times are normalised by a reference workload (above)
 * interleaved with them in ~10 ms slices: each slice of fork or thread
 * work is divided by the reference slice next to it, and a state's value
 * is the median over its slices, which cancels most of the machine's
 * drift and ignores slices another VM stole.  The unloaded state is also
 * split in halves, whose ratio is the noise floor.
 */
static void test_bystander(void)
{
	static const char *const what[2] = { "fork+exit", "pthread_create+join" };
	double t[MAX_ROUNDS][2][NR_BY], raw[MAX_ROUNDS][2][NR_BY], half[MAX_ROUNDS][2][2];
	struct side side[3] = {
		{ .fn = b_fork_exit }, { .fn = b_thread_exit }, { .fn = b_reference },
	};
	int slices = (int)(6 * ROUND_NS * opt_time / (30 * NSEC_PER_MSEC));
	int rounds = opt_rounds + 6 < MAX_ROUNDS ? opt_rounds + 6 : MAX_ROUNDS;
	struct figure f;
	struct busy b;
	int r, w, s;

	if (!module_loaded())
		module_load();
	progress("bystander: fork+exit and pthread_create+join, module loaded vs not");
	pin_to_cpu(0);
	for (w = 0; w < 3; w++)
		side[w].chunk = calibrate(side[w].fn, NULL, 10 * NSEC_PER_MSEC);
	slices = (slices + 1) & ~1;
	slices = slices < 2 ? 2 : slices > MAX_SLICES ? MAX_SLICES : slices;

	/*
	 * Even rounds: busy, loaded, unload, unloaded.  Odd rounds: unloaded,
	 * load, loaded, busy.  Loaded and unloaded swap order every round.
	 */
	for (r = 0; r < rounds; r++) {
		static const int order[2][NR_BY] = {
			{ BY_BUSY, BY_LOADED, BY_UNLOADED },
			{ BY_UNLOADED, BY_LOADED, BY_BUSY },
		};

		progress("bystander: round %d/%d", r + 1, rounds);
		for (int i = 0; i < NR_BY; i++) {
			/* per slice: ns per op of fork, thread, reference */
			double v[3][MAX_SLICES], norm[2][MAX_SLICES];

			s = order[r & 1][i];
			if (s == BY_UNLOADED && module_loaded())
				module_unload();
			if (s != BY_UNLOADED && !module_loaded())
				module_load();
			if (i == 0 || s != BY_BUSY)
				sleep_ms(200);	/* let the switch's background work end */
			if (s == BY_BUSY)
				busy_start(&b);
			for (w = 0; w < 3; w++)	/* warm up after the switch */
				side_run(&side[w]);
			for (int j = 0; j < slices; j++)
				for (w = 0; w < 3; w++) {
					int x = (w + j) % 3;

					v[x][j] = side_run(&side[x]);
				}
			/* Each op against the reference slice next to it. */
			for (w = 0; w < 2; w++) {
				for (int j = 0; j < slices; j++)
					norm[w][j] = v[w][j] / v[2][j];
				raw[r][w][s] = median_of(v[w], slices);
				t[r][w][s] = median_of(norm[w], slices);
				if (s == BY_UNLOADED) {
					half[r][w][0] = median_of(norm[w], slices / 2);
					half[r][w][1] = median_of(norm[w] + slices / 2, slices / 2);
				}
			}
			if (s == BY_BUSY)
				busy_stop(&b);
		}
	}
	if (!module_loaded())
		module_load();

	for (w = 0; w < 2; w++) {
		for (s = BY_LOADED; s <= BY_BUSY; s++) {
			struct series unnorm = { .n = 0 };
			char item[64];

			snprintf(item, sizeof(item), "%s: %s vs not loaded", what[w],
				 s == BY_LOADED ? "loaded" : "loaded+1 registered thread");
			figure_init(&f, "bystander", item, 0, "us/op", 1.02);
			for (r = 0; r < rounds; r++) {
				add_round(&f, raw[r][w][s] / 1e3, raw[r][w][BY_UNLOADED] / 1e3);
				push(&unnorm, f.ratio.v[r]);
				/* The ratio that counts: drift-normalised. */
				f.ratio.v[r] = t[r][w][s] / t[r][w][BY_UNLOADED];
			}
			snprintf(f.note, sizeof(f.note),
				 "normalised by an interleaved reference (mmap+touch+munmap+getppid); raw ratio %.3f (%.3f-%.3f)",
				 median(&unnorm), quantile(&unnorm, 0), quantile(&unnorm, 1));
			emit(&f);
		}
		/* The same state against itself: what the method can resolve. */
		{
			char item[64];

			snprintf(item, sizeof(item), "%s: not loaded vs not loaded (noise floor)",
				 what[w]);
			figure_init(&f, "bystander", item, 0, "us/op", 0);
		}
		for (r = 0; r < rounds; r++)
			add_round(&f, half[r][w][1], half[r][w][0]);
		for (r = 0; r < rounds; r++) {	/* show the times, not the normalised values */
			f.ours.v[r] = raw[r][w][BY_UNLOADED] / 1e3;
			f.anchor.v[r] = raw[r][w][BY_UNLOADED] / 1e3;
		}
		snprintf(f.note, sizeof(f.note),
			 "A/A: second half of each unloaded period vs its first half, normalised the same way");
		emit(&f);
	}
	pin_to_cpu(-1);
}

/* --------------------------------------------------------------- scale */

#define SCALE_STACK	(64 << 10)

struct scale_run {
	unsigned int nr;
	bool rl2;
	struct robust_list_head *heads;	/* nr * NR_SLOTS */
	uint32_t ready, go;
	int err;
	uint32_t *reg_ns, *native_ns;	/* per thread */
};

struct scale_arg {
	struct scale_run *run;
	unsigned int idx;
};

/*
 * Every thread makes NR_SLOTS set_robust_list() calls on an empty list
 * (the anchor threads too); the subject's threads also register NR_SLOTS
 * slots.  Both batches are timed in the thread, in alternating order: the
 * registration cost with nr threads registered, against the native call
 * measured at the same moment.
 */
static void *scale_main(void *p)
{
	struct scale_arg *a = p;
	struct scale_run *run = a->run;
	struct robust_list_head *h = &run->heads[a->idx * NR_SLOTS];
	uint64_t t0, t1, t2;
	unsigned int s;

	for (s = 0; s < NR_SLOTS; s++) {
		h[s].list.next = &h[s].list;
		h[s].futex_offset = LOCK_OFF;
		h[s].list_op_pending = NULL;
	}
	t0 = now_ns();
	if (run->rl2 && (a->idx & 1))
		for (s = 0; s < NR_SLOTS; s++)
			if (set_robust_list2(&h[s], s, FUTEX_ROBUST_LIST_CMD_SET_64, 0))
				__atomic_store_n(&run->err, errno, __ATOMIC_RELAXED);
	t1 = now_ns();
	for (s = 0; s < NR_SLOTS; s++)
		syscall(SYS_set_robust_list, &h[s], sizeof(h[s]));
	t2 = now_ns();
	if (run->rl2 && !(a->idx & 1))
		for (s = 0; s < NR_SLOTS; s++)
			if (set_robust_list2(&h[s], s, FUTEX_ROBUST_LIST_CMD_SET_64, 0))
				__atomic_store_n(&run->err, errno, __ATOMIC_RELAXED);
	if (run->rl2) {
		run->reg_ns[a->idx] = (uint32_t)((a->idx & 1) ? t1 - t0 : now_ns() - t2);
		run->native_ns[a->idx] = (uint32_t)(t2 - t1);
	}
	if (__atomic_add_fetch(&run->ready, 1, __ATOMIC_ACQ_REL) == run->nr)
		futex(&run->ready, FUTEX_WAKE_PRIVATE, 1, NULL);
	while (!__atomic_load_n(&run->go, __ATOMIC_ACQUIRE))
		futex(&run->go, FUTEX_WAIT_PRIVATE, 0, NULL);
	return NULL;
}

static long meminfo_kb(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = atol(line + len + 1);
			break;
		}
	fclose(f);
	return v;
}

static long read_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atol(buf) : -1;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Median of @v[0..n), which it sorts. */
static double median_u32(uint32_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u32);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

struct scale_mem {
	struct robust_list_head *heads;
	uint32_t *reg_ns, *native_ns;
	char *stacks;			/* preallocated: no mmap per thread */
	pthread_t *th;
	struct scale_arg *args;
};

/*
 * Start @nr threads at once; each registers (see scale_main()) and
 * waits.  Once all are up, note the slab memory, let them all exit and
 * join them.  Returns ns per thread for the whole life cycle.
 */
static double scale_once(unsigned int nr, bool rl2, struct scale_mem *m,
			 long *slab_kb, double reg[3])
{
	struct scale_run run = {
		.nr = nr, .rl2 = rl2, .heads = m->heads,
		.reg_ns = m->reg_ns, .native_ns = m->native_ns,
	};
	uint64_t t0, t;
	unsigned int i;
	uint32_t v;

	t0 = now_ns();
	for (i = 0; i < nr; i++) {
		pthread_attr_t attr;
		int err;

		pthread_attr_init(&attr);
		pthread_attr_setstack(&attr, m->stacks + (size_t)i * SCALE_STACK, SCALE_STACK);
		m->args[i] = (struct scale_arg){ &run, i };
		err = pthread_create(&m->th[i], &attr, scale_main, &m->args[i]);
		pthread_attr_destroy(&attr);
		if (err)
			die("pthread_create #%u of %u: %s (threads-max, memory?)", i, nr,
			    strerror(err));
	}
	while ((v = __atomic_load_n(&run.ready, __ATOMIC_ACQUIRE)) != nr)
		futex(&run.ready, FUTEX_WAIT_PRIVATE, v, NULL);
	*slab_kb = meminfo_kb("Slab");
	store_wake(&run.go, 1);
	for (i = 0; i < nr; i++)
		pthread_join(m->th[i], NULL);
	t = now_ns() - t0;
	if (run.err)
		die("set_robust_list2 in a scale thread: %s", strerror(run.err));
	/* Medians: a thread preempted inside its timed calls is an outlier. */
	if (rl2) {
		reg[0] = median_u32(m->reg_ns, nr);
		reg[1] = median_u32(m->native_ns, nr);
		reg[2] = reg[0] / reg[1];
	}
	return (double)t / nr;
}

static void test_scale(void)
{
	static const unsigned int sizes[] = { 1000, 5000, 10000 };
	const unsigned int nsz = sizeof(sizes) / sizeof(sizes[0]);
	const unsigned int max = sizes[nsz - 1];
	int rounds = opt_rounds < 3 ? opt_rounds : 3;
	struct figure f[3], reg[3], lin, mem;
	struct series slab_delta = { .n = 0 };
	struct scale_mem m;
	char section[32];
	long tmax, obj, stride;

	snprintf(section, sizeof(section), "scale %d vCPU", nr_cpus);
	progress("%s: up to %u threads x %d slots alive, registered then exiting",
		 section, max, NR_SLOTS);
	pin_to_cpu(-1);
	tmax = read_long("/proc/sys/kernel/threads-max");
	if (tmax >= 0 && tmax < 3L * max) {
		FILE *fp = fopen("/proc/sys/kernel/threads-max", "w");

		if (fp) {
			fprintf(fp, "%u\n", 3 * max);
			fclose(fp);
		}
	}
	m.heads = calloc((size_t)max * NR_SLOTS, sizeof(*m.heads));
	m.stacks = aligned_alloc(4096, (size_t)max * SCALE_STACK);
	m.th = calloc(max, sizeof(*m.th));
	m.args = calloc(max, sizeof(*m.args));
	m.reg_ns = calloc(max, sizeof(*m.reg_ns));
	m.native_ns = calloc(max, sizeof(*m.native_ns));
	if (!m.heads || !m.stacks || !m.th || !m.args || !m.reg_ns || !m.native_ns)
		die("out of memory");
	if (robust_list2_fd() < 0)
		die("%s: %s", ROBUST_LIST2_DEVICE, strerror(errno));

	for (unsigned int s = 0; s < nsz; s++) {
		figure_init(&f[s], section, "thread with 8 slots vs plain thread", sizes[s],
			    "us/thread", 0);
		figure_init(&reg[s], section, "8 registrations vs 8 set_robust_list", sizes[s],
			    "us/8 calls", 0);
	}
	/* A first run of each kind pays for page faults on the stacks. */
	{
		long kb;
		double rr[3];

		scale_once(max, false, &m, &kb, rr);
		scale_once(max, true, &m, &kb, rr);
	}
	for (int r = 0; r < rounds; r++) {
		progress("%s: round %d/%d", section, r + 1, rounds);
		for (unsigned int s = 0; s < nsz; s++) {
			/* Smaller sizes: more pairs, each side taking turns first. */
			unsigned int reps = max / sizes[s] / 2 ? max / sizes[s] / 2 : 1;
			double o = 0, a = 0, rr[3] = { 0 }, rsum[3] = { 0 };
			long slab_o = 0, slab_a = 0;

			for (unsigned int i = 0; i < reps; i++) {
				if ((r + s + i) & 1) {
					a += scale_once(sizes[s], false, &m, &slab_a, rr);
					o += scale_once(sizes[s], true, &m, &slab_o, rr);
				} else {
					o += scale_once(sizes[s], true, &m, &slab_o, rr);
					a += scale_once(sizes[s], false, &m, &slab_a, rr);
				}
				for (int x = 0; x < 3; x++)
					rsum[x] += rr[x];
			}
			add_round(&f[s], o / reps / 1e3, a / reps / 1e3);
			push(&reg[s].ours, rsum[0] / reps / 1e3);
			push(&reg[s].anchor, rsum[1] / reps / 1e3);
			push(&reg[s].ratio, rsum[2] / reps);
			if (s == nsz - 1)
				push(&slab_delta, (slab_o - slab_a) * 1024.0 / ((double)sizes[s] * NR_SLOTS));
		}
	}
	for (unsigned int s = 0; s < nsz; s++) {
		snprintf(f[s].note, sizeof(f[s].note),
			 "all %u threads alive at once; create + register + exit + join", sizes[s]);
		emit(&f[s]);
	}
	for (unsigned int s = 0; s < nsz; s++) {
		snprintf(reg[s].note, sizeof(reg[s].note),
			 "medians of per-thread times: 8 set_robust_list2 vs 8 set_robust_list in the same thread; up to %u threads registered",
			 sizes[s]);
		emit(&reg[s]);
	}

	/*
	 * Linear: the cost per thread at 10k against 1k, relative to plain
	 * threads (whose own cost per thread also grows with their number).
	 */
	figure_init(&lin, section, "per-thread cost 10k vs 1k: 8 slots vs plain", max, "x", 1.25);
	for (int r = 0; r < rounds; r++)
		add_round(&lin, f[nsz - 1].ours.v[r] / f[0].ours.v[r],
			  f[nsz - 1].anchor.v[r] / f[0].anchor.v[r]);
	snprintf(lin.note, sizeof(lin.note),
		 "ours/anchor: growth of the cost per thread from 1k to 10k threads; 5k vs 1k: ours %.2f plain %.2f",
		 median(&f[1].ours) / median(&f[0].ours),
		 median(&f[1].anchor) / median(&f[0].anchor));
	emit(&lin);

	/* Registry memory: the record's slab size, and what Slab grew by. */
	obj = read_long("/sys/kernel/slab/rl2_task/object_size");
	stride = read_long("/sys/kernel/slab/rl2_task/slab_size");
	figure_init(&mem, section, "registry memory per slot: measured vs record/8", max,
		    "bytes/slot", 0);
	for (int r = 0; r < slab_delta.n; r++)
		add_round(&mem, slab_delta.v[r], stride > 0 ? stride / 8.0 : 0);
	snprintf(mem.note, sizeof(mem.note),
		 "struct rl2_task: %ld B (slab stride %ld B) per thread; measured: Slab growth with %u registered threads alive (records + hash table)",
		 obj, stride, max);
	emit(&mem);

	free(m.heads);
	free(m.stacks);
	free(m.th);
	free(m.args);
	free(m.reg_ns);
	free(m.native_ns);
}

/* ---------------------------------------------------------------- main */

static void usage(void)
{
	fprintf(stderr,
		"usage: rl2_bench [-r ROUNDS] [-t FACTOR] [register|unlock|exit|bystander|scale|all]...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	bool all = false, want[5] = { false };
	static const char *const names[5] = {
		"bystander", "register", "unlock", "exit", "scale"
	};
	static void (*const fns[5])(void) = {
		test_bystander, test_register, test_unlock, test_exit, test_scale
	};
	int c;

	while ((c = getopt(argc, argv, "r:t:h")) != -1) {
		switch (c) {
		case 'r':
			opt_rounds = atoi(optarg);
			if (opt_rounds < 1 || opt_rounds > MAX_ROUNDS)
				die("-r wants 1..%d", MAX_ROUNDS);
			break;
		case 't':
			opt_time = atof(optarg);
			if (opt_time <= 0)
				die("-t wants a positive factor");
			break;
		default:
			usage();
		}
	}
	if (optind == argc)
		all = true;
	for (int i = optind; i < argc; i++) {
		int j;

		if (!strcmp(argv[i], "all")) {
			all = true;
			continue;
		}
		for (j = 0; j < 5 && strcmp(argv[i], names[j]); j++)
			;
		if (j == 5)
			usage();
		want[j] = true;
	}
	nr_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("@csv section,item,n,unit,ours,anchor,ratio,ratio_min,ratio_max,ratio_q1,ratio_q3,rounds,target,status,note\n");
	progress("%d vCPUs, %d rounds, time factor %.2f", nr_cpus, opt_rounds, opt_time);
	/* Bystander first: it unloads the module, so nothing may hold it. */
	for (int j = 0; j < 5; j++)
		if (all || want[j])
			fns[j]();
	progress("done");
	return 0;
}
