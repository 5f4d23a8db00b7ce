// SPDX-License-Identifier: GPL-2.0
/*
 * The harness every area shares: threads and futexes, series and their
 * quantiles, figures and their CSV row, the interleaved pair, and module
 * load/unload.  Nothing here knows what an area measures.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#include "bench.h"

#define MODULE_NAME	"robust_list2"

int opt_rounds = 9;
double opt_time = 1.0;
bool opt_wall;
int nr_cpus = 1;

/* ------------------------------------------------ process and threads */

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("rl2_bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * NSEC_PER_MSEC };

	nanosleep(&ts, NULL);
}

pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

int wait_change(uint32_t *word, uint32_t val, unsigned int ms)
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

void store_wake(uint32_t *word, uint32_t val)
{
	__atomic_store_n(word, val, __ATOMIC_RELEASE);
	futex(word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

void pin_to_cpu(int cpu)
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

void thread_attr(pthread_attr_t *attr, size_t stack, int cpu)
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

void push(struct series *s, double v)
{
	if (s->n < MAX_ROUNDS)
		s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double quantile(const struct series *s, double q)
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

double median(const struct series *s)
{
	return quantile(s, 0.5);
}

double median_of(const double *v, int n)
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

void figure_init(struct figure *f, const char *section, const char *item,
		 long n, const char *unit, double target)
{
	memset(f, 0, sizeof(*f));
	f->section = section;
	snprintf(f->item, sizeof(f->item), "%s", item);
	f->n = n;
	f->unit = unit;
	f->target = target;
}

void add_round(struct figure *f, double ours, double anchor)
{
	push(&f->ours, ours);
	push(&f->anchor, anchor);
	push(&f->ratio, anchor > 0 ? ours / anchor : 0);
}

/*
 * ours/anchor: medians of the per-round values in @unit; ratio = ours /
 * anchor per round; status: met, MISSED, unresolved (median above the
 * target, lower quartile within it), info (no target) or capped (the
 * legacy list cannot do it).  scripts/bench, table.awk and plot.sh read
 * these columns by position.
 */
void csv_header(void)
{
	printf("@csv section,item,n,unit,ours,anchor,ratio,ratio_min,ratio_max,"
	       "ratio_q1,ratio_q3,rounds,target,status,note\n");
}

void emit(struct figure *f)
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

/* ------------------------------------------------------------- pairing */

long calibrate(bench_fn fn, void *ctx, double slice_ns)
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

double side_run(struct side *s)
{
	return (double)s->fn(s->ctx, s->chunk) / s->chunk;
}

/*
 * The machine's speed may drift within a second, and another VM on the
 * host can steal whole milliseconds, so the two sides are interleaved in
 * slices of about a millisecond (taking turns going first) and a round
 * is the median over ~50 adjacent pairs of their ratio: drift cancels
 * within a pair, a stolen slice is an outlier the median ignores.
 * Records ns per operation (medians).
 */
/* @slices interleaved pairs of the two sides per round, turns taken going first */
static void run_rounds(struct figure *f, struct side *o, struct side *a, int slices)
{
	double ov[MAX_SLICES], av[MAX_SLICES], rv[MAX_SLICES];

	slices = slices < 1 ? 1 : slices > MAX_SLICES ? MAX_SLICES : slices;
	for (int r = 0; r < opt_rounds; r++) {
		for (int i = 0; i < slices; i++) {
			if ((i + r) & 1) {
				av[i] = side_run(a);
				ov[i] = side_run(o);
			} else {
				ov[i] = side_run(o);
				av[i] = side_run(a);
			}
			rv[i] = ov[i] / av[i];
		}
		push(&f->ours, median_of(ov, slices));
		push(&f->anchor, median_of(av, slices));
		push(&f->ratio, median_of(rv, slices));
	}
}

/*
 * Work a slice defers (RCU callbacks, a dead thread's reaping) runs in a
 * later slice, often the other side's.  For operations that defer much
 * of their cost, such as a thread's whole life, run_pair_long() runs both
 * sides with the same number of operations per slice and slices many
 * ticks long, so that what crosses a slice boundary is a small and equal
 * share of either side: @pairs pairs of @slice_ns slices per round.
 */
void run_pair_long(struct figure *f, bench_fn ours, void *octx, bench_fn anchor,
		   void *actx, double slice_ns, int pairs)
{
	struct side o = { .fn = ours, .ctx = octx }, a = { .fn = anchor, .ctx = actx };

	a.chunk = calibrate(anchor, actx, slice_ns);
	o.chunk = a.chunk;
	ours(octx, o.chunk);		/* warm up at the size measured */
	run_rounds(f, &o, &a, pairs);
}

void run_pair(struct figure *f, bench_fn ours, void *octx, bench_fn anchor, void *actx)
{
	struct side o = { .fn = ours, .ctx = octx }, a = { .fn = anchor, .ctx = actx };

	o.chunk = calibrate(ours, octx, SLICE_NS);
	a.chunk = calibrate(anchor, actx, SLICE_NS);
	run_rounds(f, &o, &a, (int)(ROUND_NS * opt_time / (2 * SLICE_NS)));
}

/* -------------------------------------------------------------- module */

static const char *module_path(void)
{
	const char *p = getenv("RL2_KO");

	return p && *p ? p : "/lib/robust_list2/robust_list2.ko";
}

bool module_loaded(void)
{
	return access("/sys/module/" MODULE_NAME, F_OK) == 0;
}

/* EAGAIN while the release of a closed descriptor is still pending. */
void module_unload(void)
{
	uint64_t deadline = now_ns() + 10 * NSEC_PER_SEC;

	while (syscall(SYS_delete_module, MODULE_NAME, O_NONBLOCK)) {
		if ((errno != EAGAIN && errno != EWOULDBLOCK) || now_ns() > deadline)
			die("rmmod %s: %s", MODULE_NAME, strerror(errno));
		sleep_ms(20);
	}
}

void module_load(void)
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

/*
 * Time @k threads, one after another, created, running @fn and joined;
 * creator and thread on one CPU: no migration or cross-CPU wake-up noise.
 */
uint64_t thread_lives(void *(*fn)(void *), long k)
{
	pthread_attr_t attr;
	uint64_t t;

	thread_attr(&attr, 128 << 10, 0);
	t = now_ns();
	for (long i = 0; i < k; i++) {
		pthread_t th;

		if (pthread_create(&th, &attr, fn, NULL))
			die("pthread_create: %s", strerror(errno));
		pthread_join(th, NULL);
	}
	t = now_ns() - t;
	pthread_attr_destroy(&attr);
	return t;
}
