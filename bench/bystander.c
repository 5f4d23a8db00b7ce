// SPDX-License-Identifier: GPL-2.0
/*
 * bystander: what the module costs processes that never use it.  The exit
 * hook runs for every exiting thread on the machine, so fork+exit and
 * pthread_create+join are timed with the module unloaded, loaded, and
 * loaded while one other thread has a slot registered.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/futex.h>

#include "bench.h"

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
	return thread_lives(nop_main, k);
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
void bench_bystander(void)
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
			/*
			 * SPEC.md's target is for machines that never use the
			 * module; with a registered thread the hook's lookup
			 * runs for every exit, which is information.
			 */
			figure_init(&f, "bystander", item, 0, "us/op",
				    s == BY_LOADED ? 1.01 : 0);
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
