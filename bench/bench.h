/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rl2_bench's shared harness (harness.c) and its measured areas, one file
 * each (register.c, unlock.c, exit.c, bystander.c, recovery.c, scale.c).
 *
 * Every figure is a ratio of ours to an anchor measured in the same run,
 * interleaved with it at the finest grain the test allows: absolute
 * times in a VM are for scale only.  A round yields one value per side
 * and one ratio; a row is the median over the rounds, with min-max and
 * quartiles.  One CSV row per figure on stdout, prefixed "@csv " so the
 * host can pick them out of the console stream; progress on stderr.
 */
#ifndef RL2_BENCH_H
#define RL2_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <pthread.h>
#include <time.h>

#include "robust_list2.h"	/* also <linux/robust_list2.h>: NR_SLOTS, ioctls */

#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_MSEC	1000000ULL
#define MAX_ROUNDS	31
#define MAX_SLICES	512
#define ROUND_NS	(100 * NSEC_PER_MSEC)	/* both sides of a pair, one round */
#define SLICE_NS	(1 * NSEC_PER_MSEC)	/* one side, between switches */
#define NR_SLOTS	ROBUST_LIST2_NR_SLOTS
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * The anchor of every registration figure: a command number our driver
 * does not know, answered ENOTTY as soon as the call reaches it, so it
 * costs what any ioctl on the device costs before the driver does work.
 */
#define RL2_IOC_EMPTY	_IO(ROBUST_LIST2_IOC_TYPE, 0x1f)

/* Options, set by main.c before any area runs. */
extern int opt_rounds;		/* -r: rounds per figure */
extern double opt_time;		/* -t: scales the time of every round */
extern bool opt_wall;		/* -w: the guest clock is wall time, not -icount */
extern int nr_cpus;		/* online CPUs */

/* The measured areas; main.c runs them in its table's order. */
void bench_bystander(void);
void bench_register(void);
void bench_unlock(void);
void bench_exit(void);
void bench_scale(void);
void bench_recovery(void);

/* A lock as the exit walk sees it: list entry, then the futex word. */
struct lock64 {
	struct robust_list list;
	uint32_t futex;
	uint32_t pad;
};

#define LOCK_OFF	((long)offsetof(struct lock64, futex))

/* ------------------------------------------------ process and threads */

__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void progress(const char *fmt, ...);

/* The clock every figure uses (see README.md, "What the clock measures"). */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

void sleep_ms(unsigned int ms);
pid_t gettid_(void);
long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts);
/* Wait until *word != val (private futex, bounded by @ms); -1 on timeout. */
int wait_change(uint32_t *word, uint32_t val, unsigned int ms);
void store_wake(uint32_t *word, uint32_t val);
/* Pin the calling thread to @cpu, or let it run anywhere (-1). */
void pin_to_cpu(int cpu);
/* Time @k threads, one after another, created, running @fn and joined. */
uint64_t thread_lives(void *(*fn)(void *), long k);
void thread_attr(pthread_attr_t *attr, size_t stack, int cpu);

/* ------------------------------------------------------------- figures */

struct series {
	double v[MAX_ROUNDS];
	int n;
};

void push(struct series *s, double v);
/* Quantile @q of @s, linear interpolation between order statistics. */
double quantile(const struct series *s, double q);
double median(const struct series *s);
/* Median of @n values (n <= MAX_SLICES); @v is left alone. */
double median_of(const double *v, int n);

struct figure {
	const char *section;
	char item[80];
	long n;
	const char *unit;
	struct series ours, anchor, ratio;
	double target;		/* 0: information only */
	const char *status;	/* overrides met/MISSED */
	char note[200];
};

void figure_init(struct figure *f, const char *section, const char *item,
		 long n, const char *unit, double target);
void add_round(struct figure *f, double ours, double anchor);
/* Print @f as one CSV row (csv_header() names the columns). */
void emit(struct figure *f);
void csv_header(void);

/* ------------------------------------------------------------- pairing */

/* A loop of @iters operations; returns the elapsed ns. */
typedef uint64_t (*bench_fn)(void *ctx, long iters);

/* Operations per slice of about @slice_ns. */
long calibrate(bench_fn fn, void *ctx, double slice_ns);

/* One side of a comparison: a loop of @chunk operations per slice. */
struct side {
	bench_fn fn;
	void *ctx;
	long chunk;
};

/* Run one slice; returns ns per operation. */
double side_run(struct side *s);
/* Subject against anchor, interleaved in slices: one round per option -r. */
void run_pair(struct figure *f, bench_fn ours, void *octx, bench_fn anchor, void *actx);
/* The same, the same number of operations per slice on both sides. */
void run_pair_long(struct figure *f, bench_fn ours, void *octx, bench_fn anchor,
		   void *actx, double slice_ns, int pairs);

/* -------------------------------------------------------------- module */

bool module_loaded(void);
void module_load(void);
void module_unload(void);

#endif /* RL2_BENCH_H */
