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
#include <poll.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

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
 * "Busy": another process on the machine has a thread with a slot, so the
 * exit hooks are installed and the registry is not empty while the
 * bystanders (this process and its children, which never open the device)
 * fork, exit and create threads.  SPEC.md's promise is that a process that
 * does not use the module does not pay for another that does.  The busy
 * process is this program exec'd afresh (RL2_BENCH_BUSY in its
 * environment), not a fork: a forked child would share our pages
 * copy-on-write and change what our own page faults cost.  Raw ioctls: the
 * library would keep the device open in this process, and the module could
 * not be unloaded.  Pipes both ways; every wait is bounded.
 */
#define BUSY_ENV	"RL2_BENCH_BUSY"
#define BUSY_READY_FD	3	/* the busy process writes its errno, 0 if set worked */
#define BUSY_RELEASE_FD	4	/* EOF on it: empty the slot and exit */

struct busy {
	pid_t pid;
	int release;		/* write end: closing it lets the busy process go */
};

static void busy_main(void)
{
	struct robust_list_head head = { .list.next = &head.list };
	struct robust_list2_set a = {
		.head = (uintptr_t)&head,
		.cmd = ROBUST_LIST2_CMD_SET_64,
	};
	int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC), err = 0;
	char c;

	if (fd < 0 || ioctl(fd, ROBUST_LIST2_IOC_SET, &a))
		err = errno;
	if (write(BUSY_READY_FD, &err, sizeof(err)) != sizeof(err))
		_exit(1);
	while (read(BUSY_RELEASE_FD, &c, 1) < 0 && errno == EINTR)
		;
	a.head = 0;
	if (fd >= 0)
		ioctl(fd, ROBUST_LIST2_IOC_SET, &a);
	_exit(0);
}

/* Before main(): the busy process never gets to the benchmark. */
__attribute__((constructor)) static void busy_entry(void)
{
	if (getenv(BUSY_ENV))
		busy_main();
}

static void busy_start(struct busy *b)
{
	static char *const argv[] = { "rl2_bench (busy)", NULL };
	static char *const envp[] = { BUSY_ENV "=1", NULL };
	posix_spawn_file_actions_t fa;
	struct pollfd pfd;
	int rp[2], wp[2], err = 0;

	if (pipe2(rp, O_CLOEXEC) || pipe2(wp, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	if (posix_spawn_file_actions_init(&fa) ||
	    posix_spawn_file_actions_adddup2(&fa, rp[1], BUSY_READY_FD) ||
	    posix_spawn_file_actions_adddup2(&fa, wp[0], BUSY_RELEASE_FD))
		die("posix_spawn_file_actions: out of memory");
	err = posix_spawn(&b->pid, "/proc/self/exe", &fa, NULL, argv, envp);
	if (err)
		die("posix_spawn /proc/self/exe: %s", strerror(err));
	posix_spawn_file_actions_destroy(&fa);
	close(rp[1]);
	close(wp[0]);
	b->release = wp[1];
	pfd = (struct pollfd){ .fd = rp[0], .events = POLLIN };
	if (poll(&pfd, 1, 10000) != 1 || read(rp[0], &err, sizeof(err)) != sizeof(err))
		die("the busy process did not report");
	close(rp[0]);
	if (err)
		die("SET from the busy process: %s", strerror(err));
}

static void busy_stop(struct busy *b)
{
	int status;

	close(b->release);
	for (int i = 0; i < 1000; i++) {	/* 10 s */
		if (waitpid(b->pid, &status, WNOHANG) == b->pid)
			return;
		sleep_ms(10);
	}
	die("the busy process did not exit");
}

/*
 * After the busy state, wait until the module's reference count is 0 again
 * (the busy process's descriptor and records gone; bounded: 10 s), so the
 * "loaded" state that follows has no registered thread anywhere.
 */
static void hooks_gone_wait(void)
{
	for (int i = 0; i < 1000; i++) {
		char buf[32] = "";
		int fd = open("/sys/module/robust_list2/refcnt", O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

		if (fd >= 0)
			close(fd);
		if (n > 0 && atoi(buf) == 0)
			return;
		sleep_ms(10);
	}
	die("robust_list2 still in use 10 s after the busy process exited");
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
	double t[MAX_ROUNDS][2][NR_BY], raw[MAX_ROUNDS][2][NR_BY];
	double half[MAX_ROUNDS][2][2], halfn[MAX_ROUNDS][2][2];
	struct side side[3] = {
		{ .fn = b_fork_exit }, { .fn = b_thread_exit }, { .fn = b_reference },
	};
	int slices = (int)(6 * ROUND_NS * opt_time / (30 * NSEC_PER_MSEC));
	int rounds = opt_rounds + 6 < MAX_ROUNDS ? opt_rounds + 6 : MAX_ROUNDS;
	struct figure f;
	struct busy b = { 0 };
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
					half[r][w][0] = median_of(v[w], slices / 2);
					half[r][w][1] = median_of(v[w] + slices / 2, slices / 2);
					halfn[r][w][0] = median_of(norm[w], slices / 2);
					halfn[r][w][1] = median_of(norm[w] + slices / 2, slices / 2);
				}
			}
			if (s == BY_BUSY) {
				busy_stop(&b);
				hooks_gone_wait();
			}
		}
	}
	if (!module_loaded())
		module_load();

	for (w = 0; w < 2; w++) {
		for (s = BY_LOADED; s <= BY_BUSY; s++) {
			struct series other = { .n = 0 };
			char item[64];

			snprintf(item, sizeof(item), "%s: %s vs not loaded", what[w],
				 s == BY_LOADED ? "loaded" : "loaded+1 registered thread");
			/*
			 * SPEC.md: a process that does not use the module does
			 * not pay for another that does, so both rows carry
			 * the target.
			 */
			figure_init(&f, "bystander", item, 0, "us/op", 1.01);
			for (r = 0; r < rounds; r++) {
				double n = t[r][w][s] / t[r][w][BY_UNLOADED];

				add_round(&f, raw[r][w][s] / 1e3, raw[r][w][BY_UNLOADED] / 1e3);
				/* Wall clock: the drift-normalised ratio counts. */
				if (opt_wall) {
					push(&other, f.ratio.v[r]);
					f.ratio.v[r] = n;
				} else {
					push(&other, n);
				}
			}
			snprintf(f.note, sizeof(f.note),
				 "%s; %s ratio %.3f (%.3f-%.3f)",
				 opt_wall ? "normalised by an interleaved reference (mmap+touch+munmap+getppid)" :
					    "instructions; no normalisation",
				 opt_wall ? "raw" : "reference-normalised",
				 median(&other), quantile(&other, 0), quantile(&other, 1));
			emit(&f);
		}
		/* The same state against itself: what the method can resolve. */
		{
			char item[64];

			snprintf(item, sizeof(item), "%s: not loaded vs not loaded (noise floor)",
				 what[w]);
			figure_init(&f, "bystander", item, 0, "us/op", 0);
		}
		for (r = 0; r < rounds; r++) {
			if (opt_wall)
				add_round(&f, halfn[r][w][1], halfn[r][w][0]);
			else
				add_round(&f, half[r][w][1], half[r][w][0]);
		}
		for (r = 0; r < rounds; r++) {	/* show the times, not the normalised values */
			f.ours.v[r] = raw[r][w][BY_UNLOADED] / 1e3;
			f.anchor.v[r] = raw[r][w][BY_UNLOADED] / 1e3;
		}
		snprintf(f.note, sizeof(f.note),
			 "A/A: second half of each unloaded period vs its first half%s",
			 opt_wall ? ", normalised the same way" : "");
		emit(&f);
	}
	pin_to_cpu(-1);
}
