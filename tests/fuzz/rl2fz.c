// SPDX-License-Identifier: GPL-2.0
/*
 * make fuzz: a libFuzzer target (Debian's libclang-rt-dev) whose
 * coverage is the kernel's KCOV coverage of robust_list2, gathered inside
 * the test VM.  The controller is built without any instrumentation of
 * its own: libFuzzer's only feedback is the __libfuzzer_extra_counters
 * section, filled after each input from the KCOV trace of the module.
 *
 * Run: `make fuzz` (FUZZ_S seconds, default 180; FUZZ_KERNEL, default
 * 6.12-debug: KASAN and lockdep; 6.12-kcsan), or scripts/fuzz [--plant
 * MASK] [--no-corpus] ALIAS.  --plant 1 and --plant 2 plant the bugs of
 * module/fault_inject.h (a walk that writes past its list, a 32-bit
 * list's lost wake-up): the run must then end with a crash.  The corpus
 * persists in $RL2_CACHE/fuzz/corpus/ (seeds: tests/fuzz/seeds/, written
 * by mkseeds.sh); crash inputs land in build/fuzz/<kernel>/crashes/.
 *
 * Read: the last lines are "fuzz coverage: module/ ..." (gcov, as make
 * coverage measures), "fuzz: KCOV sites of the module reached: S of T"
 * and "fuzz: E execs (R/s), P features, module edges N, fuse stalls F,
 * crashes C" (N: distinct pairs of consecutive KCOV sites; F: dying threads whose
 * walk met a FUSE page that is never answered and gave it up at its
 * deadline, as the module's io_timeouts confirm), preceded by this
 * program's summary "rl2fz: E programs (R/s), ...".  A crash is a
 * violation below (its "rl2fz: VIOLATION:" line and the program), a
 * kernel warning or report (the VM panics), a hang or a dirty kernel log.
 *
 * KCOV: the controller does KCOV_REMOTE_ENABLE with a common handle that
 * every task it starts inherits; the module's instrumented build (make
 * fuzz loads it) makes each ioctl and each exit or exec walk a remote
 * section of that handle (module/fault_inject.c), so the trace holds the
 * module code the program ran, in any thread, also in one that dies.  The
 * controller itself never calls the device (a task with remote coverage
 * enabled must not enter a remote section).
 *
 * Speed (34 programs/s on 6.12-debug under TCG, one vCPU; 4 when each
 * was a process of its own): the executors are persistent servers
 * (rl2fz_exec.c), started once; each program runs in a child that shares
 * its server's address space, its waiters are threads of a third server
 * that live as long as it does, so an input costs the child's threads and
 * their death, no fork, exec or dynamic loading.  The VM sets io_wait_ms
 * to 50 ms (guest.sh), so that a walk that meets a page never answered
 * gives it up quickly.  RL2FZ_VERBOSE=1 prints where each program's time
 * goes; RL2FZ_TRACE=FILE each program before it runs.
 *
 * One input is one program (rl2fz_input.c has the byte layout): a 64- or
 * 32-bit child with up to 3 more threads, up to 4 lists laid out in the
 * shared arena (64- or 32-bit, based or not, up to 8 entries at positions
 * the input picks, so entries are shared, misaligned or overlapping; ends
 * back at the head, in a cycle, a self-loop, NULL, a raw pointer or the
 * pending entry; futex words owned by the owner, another task, nobody or
 * a raw TID, with FUTEX_WAITERS and FUTEX_OWNER_DIED as given; pending
 * entries in any state), list pages made read-only, PROT_NONE or not
 * present, or (hostile programs) replaced by FUSE file pages: shared and
 * private, MADV_RANDOM read synchronously by the walk, READ never
 * answered, WRITE never answered (rl2fz.h, rl2fz_fuse.c); up to 12 ioctls
 * of any command with fields the input picks from small numbers, list
 * heads, arena cells, TIDs and raw values, and up to 4 waiters; then the
 * owner exits, exits the group, is SIGKILLed or execs.
 *
 * Checks, from the lists' pages before the death and after it: the model
 * of the walk (rl2fz_model.c) over the slots the device reported says
 * which words must become (word & WAITERS) | FUTEX_OWNER_DIED, which may
 * instead be given up at the deadline (left as they were), which waiters
 * must be woken, and how many accesses the module must and may give up
 * (its io_timeouts); every other word of the lists' pages must be
 * unchanged (checked unless a list went into memory of the child outside
 * the arena, which the model cannot follow), a private mapping's file
 * too; every errno must be documented; the child must die within 10 s
 * plus twice io_wait_ms.  When the module gave up more than the model
 * allows (the host held the VM past io_wait_ms) and the words disagree,
 * the program is run once more and only that run counts.  A violation
 * aborts: libFuzzer keeps the input as a crash.
 *
 * Map: the input (rl2fz_input.c), the model of the walk (rl2fz_model.c),
 * the hostile pages (rl2fz_fuse.c), and here one program: the servers,
 * run() and check(), feed_kcov(), libFuzzer's two entry points.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <linux/kcov.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "rl2fz_int.h"

#define KCOV_WORDS	(1 << 16)
#define NCOUNTERS	(1 << 16)
#define EDGE_BITS	(1 << 22)

extern char **environ;

__attribute__((used, section("__libfuzzer_extra_counters")))
static uint8_t counters[NCOUNTERS];

static unsigned long *kcov;
static uint8_t edge_seen[EDGE_BITS / 8];
static unsigned long nedges, npcs, execs, violations, skipped, reruns, lates, stalls;
static unsigned long pcs[1 << 14];	/* the distinct KCOV sites seen */
static double t_start;
/* Where a program's time goes (the summary; RL2FZ_VERBOSE=1: each program's). */
enum { PH_PARSE, PH_READY, PH_BEFORE, PH_DEATH, PH_CHECK, PH_RESET, PH_NR };
static const char *const ph_name[PH_NR] = { "parse", "ready", "before", "death", "check", "reset" };
static double t_ph[PH_NR], t_prog[PH_NR], t_mark;
/* ... and inside "ready": the server's and the child's steps (ctl->t_ns) */
enum { SP_NR = 7 };
static const char *const sp_name[SP_NR] = { "settle", "map", "clone", "setup", "threads", "ops", "join" };
static double t_sp[SP_NR];
static bool verbose;

static double now(void);
static void phase(int ph)
{
	double t = now();

	t_prog[ph] += t - t_mark;
	t_mark = t;
}
static int memfd = -1;
static pid_t wsrv_pid = -1, srv_pid[2] = { -1, -1 }, maps_pid = -1;
static char srv_prog[2][PATH_MAX + 16];
static unsigned int io_wait_ms = 10000;
struct rl2fz_ctl *const ctl = (struct rl2fz_ctl *)RL2FZ_ARENA;
uint8_t *const arena = (uint8_t *)RL2FZ_ARENA;
static uint8_t ours[ARENA_BYTES], after[ARENA_BYTES];

static bool failed;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "rl2fz: VIOLATION: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	failed = true;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the servers ----------------------------------------------------------- */

static pid_t spawn(const char *prog, const char *arg)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { (char *)prog, (char *)arg, NULL };
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, memfd, RL2FZ_FD);
	if (posix_spawn(&pid, prog, &fa, NULL, argv, environ))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

/* Wait up to @secs until *@p == @v. */
static bool wait_for(uint32_t *p, uint32_t v, double secs)
{
	double end = now() + secs;

	for (;;) {
		uint32_t cur = __atomic_load_n(p, __ATOMIC_SEQ_CST);
		struct timespec ts = { .tv_nsec = 10 * 1000 * 1000 };

		if (cur == v)
			return true;
		if (now() > end)
			return false;
		syscall(SYS_futex, p, FUTEX_WAIT, cur, &ts, NULL, 0);
	}
}

/* Ask server @s for its next step; its answer is s->done == the result. */
static uint32_t call(struct rl2fz_srv *s)
{
	uint32_t seq = s->seq + 1;

	__atomic_store_n(&s->seq, seq, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &s->seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	return seq;
}

/* Start executor server @abi (0 64-bit, 1 32-bit) and wait until it is up. */
static void srv_start(int abi)
{
	ctl->srv[abi].up = 0;
	srv_pid[abi] = spawn(srv_prog[abi], "--serve");
	if (srv_pid[abi] < 0 || !wait_for(&ctl->srv[abi].up, 1, 60)) {
		fprintf(stderr, "rl2fz: the %s executor server did not start\n", abi ? "32-bit" : "64-bit");
		exit(2);
	}
}

/*
 * Wait up to @secs for server @abi to finish step @seq.  A server that
 * died meanwhile (a program's op wrote over its memory: the child runs in
 * its address space) is started again: false, as for a timeout.
 */
static bool srv_wait(int abi, uint32_t seq, double secs, bool *died)
{
	double end = now() + secs;
	int st;

	*died = false;
	while (!wait_for(&ctl->srv[abi].done, seq, secs ? 0.1 : 0)) {
		if (waitpid(srv_pid[abi], &st, WNOHANG) == srv_pid[abi]) {
			fprintf(stderr, "rl2fz: the %s executor server died (status %#x): starting it again\n",
				abi ? "32-bit" : "64-bit", st);
			if (ctl->srv[abi].pid > 0)
				kill(ctl->srv[abi].pid, SIGKILL);
			fz_fuse_reset();
			srv_start(abi);
			maps_pid = -1;
			*died = true;
			return false;
		}
		if (now() > end)
			return false;
	}
	return true;
}

/*
 * Is waiter @i asleep in futex()?  (x86-64: syscall 202.)  The waiter
 * threads live as long as we do: their /proc files stay open.
 */
static bool asleep(unsigned int i, uint32_t tid)
{
	static int fd[RL2FZ_WAITERS] = { -1, -1, -1, -1 };
	static uint32_t fd_tid[RL2FZ_WAITERS];
	char path[64], buf[32] = "";

	if (fd[i] < 0 || fd_tid[i] != tid) {
		if (fd[i] >= 0)
			close(fd[i]);
		snprintf(path, sizeof(path), "/proc/%d/task/%u/syscall", wsrv_pid, tid);
		fd[i] = open(path, O_RDONLY | O_CLOEXEC);
		fd_tid[i] = tid;
	}
	if (fd[i] < 0 || pread(fd[i], buf, sizeof(buf) - 1, 0) <= 0)
		return false;
	return !strncmp(buf, "202 ", 4);
}

/*
 * The waiter threads (rl2fz-exec --wait) start at each odd seq.  The ones
 * whose wake-up the model checks must be asleep before the death.
 */
static void waiters_start(void)
{
	double end;

	for (unsigned int i = 0; i < ctl->nwait; i++)
		memcpy(&ctl->wait[i].val, before + ctl->wait[i].off, 4);
	ctl->wsrv.status = 0;
	__atomic_store_n(&ctl->wsrv.seq, (ctl->wsrv.seq | 1) + 2, __ATOMIC_SEQ_CST);
	syscall(SYS_futex, &ctl->wsrv.seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	end = now() + 10;
	for (unsigned int i = 0; i < ctl->nwait; i++) {
		struct rl2fz_wait *w = &ctl->wait[i];

		if (!(ex.named[w->off / 4] & NAMED_WAKE))
			continue;
		while (now() < end) {
			uint32_t st = __atomic_load_n(&w->state, __ATOMIC_SEQ_CST);

			if (st > RL2FZ_W_WAITING || (st == RL2FZ_W_WAITING && asleep(i, w->tid)))
				break;
			usleep(200);
		}
	}
}

/* Every waiter the model says a walk woke must be awake; then end them all. */
static void waiters_check(void)
{
	double end;

	for (unsigned int i = 0; i < ctl->nwait; i++) {
		struct rl2fz_wait *w = &ctl->wait[i];

		if (!(ex.named[w->off / 4] & NAMED_WAKE) || w->state != RL2FZ_W_WAITING ||
		    !asleep(i, w->tid))
			continue;
		end = now() + 3;
		while (now() < end && __atomic_load_n(&w->state, __ATOMIC_SEQ_CST) == RL2FZ_W_WAITING)
			usleep(1000);
		if (w->state == RL2FZ_W_WAITING)
			fail("waiter on %#x (was %#x, now %#x) left asleep after the owner died",
			     (unsigned int)(RL2FZ_ARENA + w->off), w->val, ((uint32_t *)arena)[w->off / 4]);
	}
	/* every waiter back before the next program's parse(), late sleepers too */
	end = now() + 70;
	for (uint32_t n; (n = __atomic_load_n((uint32_t *)&ctl->wsrv.status, __ATOMIC_SEQ_CST)) < ctl->nwait; ) {
		struct timespec ts = { .tv_nsec = 5 * 1000 * 1000 };

		if (now() > end) {
			fprintf(stderr, "rl2fz: a waiter does not come back\n");
			exit(2);
		}
		for (unsigned int i = 0; i < ctl->nwait; i++)
			syscall(SYS_futex, arena + ctl->wait[i].off, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
		syscall(SYS_futex, &ctl->wsrv.status, FUTEX_WAIT, n, &ts, NULL, 0);
	}
}

/* ---- one program ----------------------------------------------------------- */

static void check(const struct prog *pg)
{
	const uint32_t *a = (const uint32_t *)after;
	const uint32_t *b = (const uint32_t *)before;
	const uint32_t *o = (const uint32_t *)ours;

	fz_fuse_after(after, ours);
	for (uint32_t i = RL2FZ_CTL_PAGES * RL2FZ_PAGE / 4; i < ARENA_WORDS; i++) {
		unsigned long long h = RL2FZ_ARENA + 4ULL * i;

		if (!fz_observable(i * 4 / RL2FZ_PAGE)) {
			/* a private copy's file, a page never read: never written */
			if (a[i] != o[i])
				fail("word %#llx of a file the child mapped privately changed: %#x -> %#x",
				     h, o[i], a[i]);
		} else if (ex.named[i] & NAMED_RECOVER) {
			if (a[i] != ex.val[i])
				fail("lock word %#llx: %#x before, %#x after, %#x expected (owner %u)",
				     h, b[i], a[i], ex.val[i], ctl->tids[0]);
		} else if (ex.named[i] & NAMED_MAYBE) {
			if (a[i] != ex.val[i] && a[i] != b[i])
				fail("lock word %#llx: %#x before, %#x after, %#x or given up expected (owner %u)",
				     h, b[i], a[i], ex.val[i], ctl->tids[0]);
		} else if (a[i] != b[i] && !ex.unknown) {
			fail("word %#llx that no list names changed: %#x -> %#x", h, b[i], a[i]);
		}
	}
}

/* Where the tasks of @pid are, for a server or child that does not move. */
static void dump_tasks(pid_t pid)
{
	char path[96], line[256];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stack", pid, d->d_name);
		fprintf(stderr, "rl2fz: task %s of %d:\n", d->d_name, pid);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			fprintf(stderr, "rl2fz:   %s", line);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	for (FILE *f = fopen(path, "r"); f; f = (fclose(f), NULL))
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "2000", 4))
				fprintf(stderr, "rl2fz:   %s", line);
}

/* Wait for the child's ready, or its early end: false if it never got ready. */
static bool child_ready(int abi, uint32_t seq)
{
	struct rl2fz_srv *s = &ctl->srv[abi];
	double end = now() + 20;
	bool died;

	for (int n = 0; !__atomic_load_n(&ctl->ready, __ATOMIC_SEQ_CST); n++) {
		/* an early end: a GET wrote where a raw head_ptr pointed, ...: not ours */
		if (__atomic_load_n(&s->done, __ATOMIC_SEQ_CST) == seq)
			return false;
		if (n % 10 == 9 && !srv_wait(abi, seq, 0, &died) && died)
			return false;
		if (now() > end) {
			if (s->pid > 0)
				kill(s->pid, SIGKILL);
			if (!srv_wait(abi, seq, 60, &died) && !died) {
				fprintf(stderr, "rl2fz: a child that never got ready does not die\n");
				dump_tasks(srv_pid[abi]);
				if (s->pid > 0)
					dump_tasks(s->pid);
				abort();
			}
			return false;
		}
		wait_for(&ctl->ready, 1, 0.01);
	}
	for (int i = 0; i < 10000 && !__atomic_load_n(&s->pid, __ATOMIC_SEQ_CST); i++)
		usleep(100);	/* the server stores it right after its clone */
	return true;
}

/*
 * Run the program in @data once: 0 clean, 1 a violation, 2 a violation in
 * a run whose walks gave up more than the model allows (run it again), -1
 * a child that never got ready.
 */
static int run(const uint8_t *data, size_t size, struct prog *pg)
{
	struct rl2fz_srv *s;
	uint64_t gave_up;
	uint32_t seq;
	bool died;
	double t1, bound = 10 + 2 * io_wait_ms / 1000.0;

	failed = false;
	memset(t_prog, 0, sizeof(t_prog));
	t_mark = now();
	parse(data, size, pg, fz_fuse_up());
	if (fz_fuse_up())
		fz_fuse_stage();
	phase(PH_PARSE);
	s = &ctl->srv[pg->abi32];
	s->pid = 0;
	seq = call(s);
	if (!child_ready(pg->abi32, seq)) {
		fz_fuse_reset();
		return -1;
	}
	phase(PH_READY);
	if (ctl->bad_op)
		fail("op %u (nr %u) answered errno %u, which no command documents",
		     ctl->bad_op - 1, ctl->ops[ctl->bad_op - 1].nr, ctl->bad_errno);
	fz_fuse_arm();
	fz_fuse_before(before, ours);
	/* the child runs in its server's address space, whose mappings stay */
	if (maps_pid != srv_pid[pg->abi32]) {
		maps_pid = srv_pid[pg->abi32];
		read_maps(maps_pid);
	}
	model(pg);
	if (ctl->nwait)
		waiters_start();
	phase(PH_BEFORE);

	t1 = now();
	if (pg->death == RL2FZ_DIE_KILL) {
		kill(s->pid, SIGKILL);
	} else {
		__atomic_store_n(&ctl->go, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &ctl->go, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
	if (!srv_wait(pg->abi32, seq, 60, &died)) {
		if (died) {
			fz_fuse_reset();
			return -1;
		}
		fail("the child did not die within 60 s of its death");
		dump_tasks(s->pid);
		kill(s->pid, SIGKILL);
		if (!srv_wait(pg->abi32, seq, 60, &died) && !died)
			abort();
	} else if (now() - t1 > bound) {
		fail("the child took %.1f s to die, more than 10 s + 2 * io_wait_ms", now() - t1);
	}
	phase(PH_DEATH);
	check(pg);
	gave_up = ctl->io_timeouts[1] - ctl->io_timeouts[0];
	if (gave_up < ex.tmo_min)
		fail("the walks gave up %llu accesses at their deadline, the model says at least %u",
		     (unsigned long long)gave_up, ex.tmo_min);
	if (ctl->nwait)
		waiters_check();
	phase(PH_CHECK);
	fz_fuse_reset();
	phase(PH_RESET);
	if (gave_up > ex.tmo_max)
		lates++;
	else if (!failed)
		stalls += ex.stalls;
	for (int i = 0; i < PH_NR; i++)
		t_ph[i] += t_prog[i];
	for (int i = 0; i < SP_NR; i++) {
		double ms = (ctl->t_ns[i + 1] - ctl->t_ns[i]) / 1e6;

		if (ctl->t_ns[i + 1] >= ctl->t_ns[i])	/* a step it did not reach: 0 */
			t_sp[i] += ms;
		if (verbose)
			fprintf(stderr, "%s %s %.1f%s", i ? "" : "rl2fz: server/child ms:",
				sp_name[i], ms, i == SP_NR - 1 ? "\n" : "");
	}
	if (verbose)
		fprintf(stderr, "rl2fz: ms: parse %.1f ready %.1f before %.1f death %.1f check %.1f reset %.1f; gave up %llu (%u..%u)\n",
			1000 * t_prog[0], 1000 * t_prog[1], 1000 * t_prog[2], 1000 * t_prog[3],
			1000 * t_prog[4], 1000 * t_prog[5], (unsigned long long)gave_up,
			ex.tmo_min, ex.tmo_max);
	if (!failed)
		return 0;
	return gave_up > ex.tmo_max ? 2 : 1;
}

static void feed_kcov(void)
{
	unsigned long n, i, prev = 0;

	if (!kcov)
		return;
	n = __atomic_load_n(&kcov[0], __ATOMIC_RELAXED);
	if (n > KCOV_WORDS - 1)
		n = KCOV_WORDS - 1;
	for (i = 1; i <= n; i++) {
		unsigned long pc = kcov[i];
		uint64_t h = (prev * 0x9E3779B97F4A7C15ULL) ^ pc;
		unsigned long k = (pc * 0x9E3779B97F4A7C15ULL) >> 50;

		while (pcs[k] && pcs[k] != pc)
			k = (k + 1) % (1 << 14);
		if (!pcs[k] && npcs < (1 << 13)) {
			pcs[k] = pc;
			npcs++;
		}

		h ^= h >> 29;
		h *= 0xBF58476D1CE4E5B9ULL;
		h ^= h >> 32;
		if (counters[h % NCOUNTERS] < 255)
			counters[h % NCOUNTERS]++;
		if (!(edge_seen[(h % EDGE_BITS) / 8] & (1 << (h % 8)))) {
			edge_seen[(h % EDGE_BITS) / 8] |= 1 << (h % 8);
			nedges++;
		}
		prev = pc;
	}
}

static void kcov_start(void)
{
	int fd = open("/sys/kernel/debug/kcov", O_RDWR);

	if (fd >= 0 && !ioctl(fd, KCOV_INIT_TRACE, KCOV_WORDS)) {
		struct kcov_remote_arg ra = {
			.trace_mode = KCOV_TRACE_PC,
			.area_size = KCOV_WORDS,
			.num_handles = 0,
			.common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 0x726c32),
		};

		kcov = mmap(NULL, KCOV_WORDS * sizeof(long), PROT_READ | PROT_WRITE,
			    MAP_SHARED, fd, 0);
		if (kcov == MAP_FAILED || ioctl(fd, KCOV_REMOTE_ENABLE, &ra)) {
			perror("rl2fz: KCOV_REMOTE_ENABLE");
			exit(2);
		}
	} else {
		fprintf(stderr, "rl2fz: no KCOV (%s): fuzzing blind\n", strerror(errno));
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	FILE *f;

	if (n <= 0)
		abort();
	self[n] = 0;
	slash = strrchr(self, '/');
	*slash = 0;
	owner_pid_other = getpid();
	verbose = getenv("RL2FZ_VERBOSE");
	f = fopen("/sys/module/robust_list2/parameters/io_wait_ms", "r");
	if (f && fscanf(f, "%u", &io_wait_ms) != 1)
		io_wait_ms = 10000;
	if (f)
		fclose(f);

	memfd = memfd_create("rl2fz", 0);
	if (memfd < 0 || ftruncate(memfd, ARENA_BYTES) ||
	    mmap((void *)RL2FZ_ARENA, ARENA_BYTES, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, memfd, 0) != (void *)RL2FZ_ARENA) {
		perror("rl2fz: arena");
		exit(2);
	}
	kcov_start();
	fz_fuse_start();
	/* the servers inherit the KCOV handle; they and the mounts live as long as we do */
	snprintf(srv_prog[0], sizeof(srv_prog[0]), "%s/rl2fz-exec", self);
	snprintf(srv_prog[1], sizeof(srv_prog[1]), "%s/rl2fz-exec.m32", self);
	wsrv_pid = spawn(srv_prog[0], "--wait");
	if (wsrv_pid < 0 || !wait_for(&ctl->wsrv.up, 1, 60)) {
		fprintf(stderr, "rl2fz: the waiter server did not start\n");
		exit(2);
	}
	srv_start(0);
	srv_start(1);
	t_start = now();
	return 0;
}

/*
 * RL2FZ_TRACE=FILE (guest.sh: the VM's fourth serial port): each program
 * in hex before it runs, so the one that panicked the kernel is known.
 */
static void trace(const uint8_t *data, size_t size)
{
	static FILE *f;
	static bool tried;

	if (!tried) {
		const char *p = getenv("RL2FZ_TRACE");

		tried = true;
		f = p ? fopen(p, "w") : NULL;
	}
	if (!f)
		return;
	fputs("IN ", f);
	for (size_t i = 0; i < size; i++)
		fprintf(f, "%02x", data[i]);
	fputc('\n', f);
	fflush(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prog pg;
	int r;

	trace(data, size);
	if (kcov)
		__atomic_store_n(&kcov[0], 0, __ATOMIC_RELAXED);
	execs++;
	r = run(data, size, &pg);
	if (r == 2) {		/* the host held the VM past a deadline: again */
		fprintf(stderr, "rl2fz: the walks gave up more than the model allows: running it again\n");
		reruns++;
		r = run(data, size, &pg);
	}
	if (r < 0)
		skipped++;
	feed_kcov();
	if (r > 0) {
		violations++;
		fprintf(stderr, "rl2fz: program: %s executor, death %u, %u threads, %u lists, %u ops, %u waiters, pages 6-9 %u %u %u %u\n",
			pg.abi32 ? "32-bit" : "64-bit", pg.death, pg.nthreads, nlists,
			ctl->nops, ctl->nwait, ctl->kind[6], ctl->kind[7], ctl->kind[8], ctl->kind[9]);
		abort();
	}
	return 0;
}

__attribute__((destructor)) static void summary(void)
{
	double secs = now() - t_start;

	if (!execs)
		return;
	fprintf(stderr, "rl2fz: %lu programs (%.1f/s), module edges %lu, module sites %lu, %lu skipped, %lu violations, fuse stalls %lu, %lu late, %lu run again\n",
		execs, secs > 0 ? execs / secs : 0, nedges, npcs, skipped, violations, stalls, lates, reruns);
	fprintf(stderr, "rl2fz: ms per program:");
	for (int i = 0; i < PH_NR; i++)
		fprintf(stderr, " %s %.1f", ph_name[i], 1000 * t_ph[i] / execs);
	fprintf(stderr, " (ready:");
	for (int i = 0; i < SP_NR; i++)
		fprintf(stderr, " %s %.1f", sp_name[i], t_sp[i] / execs);
	fprintf(stderr, ")\n");
	fz_fuse_stop();
}
