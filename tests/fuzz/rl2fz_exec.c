// SPDX-License-Identifier: GPL-2.0
/*
 * make fuzz: the executor, built as a static 64-bit and a static 32-bit
 * program (the 32-bit one calls the device through compat_ioctl).  The
 * libFuzzer controller (rl2fz.c) starts each mode once, with the shared
 * arena's memfd (rl2fz.h) as descriptor 3, and they serve every program
 * of the run:
 *
 *   rl2fz-exec --serve  for each program: read the module's counters, lay
 *                       out the program's list pages (FUSE files mapped
 *                       over pages 6..9, every page it may touch made
 *                       present), start the child that runs it, reap it,
 *                       read the counters again
 *   rl2fz-exec --wait   four waiter threads, started once: for each
 *                       program, one per waiter, in FUTEX_WAIT on its word
 *                       (shared futex op, bounded), its outcome noted
 *
 * The child is a process that shares the server's address space
 * (clone(CLONE_VM)): a fork of even this small program and its exit cost
 * 40-65 ms under TCG on the debug kernel, a thread 4-6 ms.  It fills the
 * futex words (with its TID), registers the lists, applies the page
 * protections, runs the ops from the owner and up to 3 other threads at
 * once, records every thread's slots (GET_BASED), says ready, and dies as
 * told once the controller says go: its threads exit, it exits the
 * group, it is SIGKILLed, or it execs rl2fz-exit (a program that only
 * exits: its exec costs less than a libc's start).  Since it has no
 * thread-local storage of its own (it runs on the server's), the child
 * calls the kernel through sys() below, never through a libc wrapper that
 * would store errno; its stacks are static, used by one program at a
 * time.  The server puts pages 6..9 back before the next program.
 *
 * A server dies with the controller (PR_SET_PDEATHSIG).  Every answer of
 * the device must be a success or a documented errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/robust_list2.h>

#include "rl2fz.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static struct rl2fz_ctl *ctl = (struct rl2fz_ctl *)RL2FZ_ARENA;

/* ---- the child: one program, no libc calls that touch errno ---------------- */

/* A system call: its result, or -errno. */
static long sys(long nr, long a, long b, long c, long d)
{
	long r;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;

	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
#elif defined(__i386__)
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d)
			 : "memory");
#else
#error "the executor knows x86-64 and i386 only"
#endif
	return r;
}

static void futex_wait(uint32_t *p, uint32_t v, long secs)
{
	struct timespec ts = { .tv_sec = secs };

	sys(SYS_futex, (long)p, FUTEX_WAIT, v, (long)&ts);
}

static void set_wake(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_SEQ_CST);
	sys(SYS_futex, (long)p, FUTEX_WAKE, INT_MAX, 0);
}

static void stamp(unsigned int i)
{
	struct timespec ts;

	sys(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&ts, 0, 0);
	ctl->t_ns[i] = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int documented(long e)
{
	switch (e) {
	case EINVAL: case EFAULT: case ENOTTY: case EPERM: case ESRCH:
	case EOPNOTSUPP: case ENOSPC: case EBUSY: case EOVERFLOW:
	case EAGAIN: case ENOMEM: case EINTR: case ETOOMANYREFS:
		return 1;
	}
	return 0;
}

static const unsigned long cmds[RL2FZ_NR_CMDS] = {
	ROBUST_LIST2_IOC_INFO, ROBUST_LIST2_IOC_SET, ROBUST_LIST2_IOC_GET,
	ROBUST_LIST2_IOC_STATS, ROBUST_LIST2_IOC_CREATE, ROBUST_LIST2_IOC_UNLOCK,
	ROBUST_LIST2_IOC_SET_WINDOW, ROBUST_LIST2_IOC_SET_BASED,
	ROBUST_LIST2_IOC_GET_BASED, ROBUST_LIST2_IOC_FAULTS,
};

static int dev = -1;			/* the child's own descriptor */
static char exit_path[PATH_MAX + 16];	/* rl2fz-exit, next to us */
static uint32_t start_gate;
static uint8_t stacks[RL2FZ_THREADS][64 * 1024] __attribute__((aligned(16)));

static void run_op(unsigned int i)
{
	struct rl2fz_op *op = &ctl->ops[i];
	uint64_t buf[16] = { 0 };
	unsigned char *p = (unsigned char *)buf;
	unsigned long cmd, arg;
	unsigned int f;
	long ret;

	for (f = 0; f < RL2FZ_FIELDS && op->size[f]; f++) {
		uint64_t v = op->val[f];

		if (op->kind[f] == RL2FZ_F_TID)
			v = ctl->tids[v % RL2FZ_THREADS];
		if (op->size[f] == 8) {
			memcpy(p, &v, 8);
		} else {
			uint32_t v32 = (uint32_t)v;

			memcpy(p, &v32, 4);
		}
		p += op->size[f];
	}
	cmd = op->nr < RL2FZ_NR_CMDS ? cmds[op->nr] : op->raw_cmd;
	switch (op->arg) {
	case RL2FZ_ARG_BUF: arg = (unsigned long)buf; break;
	case RL2FZ_ARG_NULL: arg = 0; break;
	case RL2FZ_ARG_PAGE6: arg = RL2FZ_ARENA + 6 * RL2FZ_PAGE; break;
	case RL2FZ_ARG_KERNEL: arg = (unsigned long)(sizeof(long) == 8 ? 0xffffffff81000000ULL : 0xc1000000ULL); break;
	default: arg = (unsigned long)op->arg_raw; break;
	}
	ret = sys(SYS_ioctl, dev, (long)cmd, (long)arg, 0);
	op->ret = ret < 0 && ret > -4096 ? -1 : (int32_t)ret;
	op->err = ret < 0 && ret > -4096 ? -ret : 0;
	if (op->err && !documented(op->err) && !ctl->bad_op) {
		ctl->bad_errno = op->err;
		ctl->bad_op = i + 1;
	}
}

/*
 * Thread @t's ops, then its slots as the device sees them: the owner's,
 * and another thread's if an op of it may have set one (a thread starts
 * with every slot empty).
 */
static void run_thread(unsigned int t)
{
	unsigned int i, sets = !t;

	for (i = 0; i < ctl->nops; i++) {
		unsigned int nr = ctl->ops[i].nr;

		if (ctl->ops[i].thread != t)
			continue;
		run_op(i);
		sets |= nr == 1 || nr == 4 || nr == 7 || nr == RL2FZ_NR_RAW;
	}
	for (i = 0; i < RL2FZ_SLOTS && sets; i++) {
		struct robust_list2_get_based g = { .pid = 0, .index = i };
		struct rl2fz_slot *s = &ctl->slots[t][i];
		long r = sys(SYS_ioctl, dev, ROBUST_LIST2_IOC_GET_BASED, (long)&g, 0);

		if (r) {
			s->err = -r;
			continue;
		}
		s->head = g.head;
		s->base = g.base;
		s->type = g.type;
	}
	__atomic_add_fetch(&ctl->done, 1, __ATOMIC_SEQ_CST);
	sys(SYS_futex, (long)&ctl->done, FUTEX_WAKE, INT_MAX, 0);
}

static void wait_go(void)
{
	for (int n = 0; n < 60 && !__atomic_load_n(&ctl->go, __ATOMIC_SEQ_CST); n++)
		futex_wait(&ctl->go, 0, 1);
}

static int other(void *a)
{
	unsigned int t = (unsigned int)(uintptr_t)a;

	while (!__atomic_load_n(&start_gate, __ATOMIC_SEQ_CST))
		futex_wait(&start_gate, 0, 1);
	run_thread(t);
	wait_go();
	sys(SYS_exit, 0, 0, 0, 0);
	return 0;
}

static void protect(void)
{
	for (unsigned int pg = RL2FZ_PROT_FIRST; pg < RL2FZ_PAGES; pg++) {
		long a = (long)(RL2FZ_ARENA + pg * RL2FZ_PAGE);

		switch (ctl->kind[pg]) {
		case RL2FZ_K_RO: sys(SYS_mprotect, a, RL2FZ_PAGE, PROT_READ, 0); break;
		case RL2FZ_K_NONE: sys(SYS_mprotect, a, RL2FZ_PAGE, PROT_NONE, 0); break;
		case RL2FZ_K_DONTNEED: sys(SYS_madvise, a, RL2FZ_PAGE, MADV_DONTNEED, 0); break;
		}
	}
}

static void do_register(const struct rl2fz_reg *r)
{
	unsigned int cmd = r->is32 ? ROBUST_LIST2_CMD_SET_32 : ROBUST_LIST2_CMD_SET_64;

	if (r->how == 2) {
		struct robust_list2_set_based a = {
			.head = r->head, .base = r->base, .index = r->slot, .cmd = cmd,
		};

		sys(SYS_ioctl, dev, ROBUST_LIST2_IOC_SET_BASED, (long)&a, 0);
	} else {
		struct robust_list2_set a = {
			.head = r->head, .index = r->how == 1 ? 0 : r->slot, .cmd = cmd,
		};

		sys(SYS_ioctl, dev, r->how == 1 ? ROBUST_LIST2_IOC_CREATE : ROBUST_LIST2_IOC_SET,
		    (long)&a, 0);
	}
}

/*
 * May the server touch page @pg before the program, and the child write
 * its words there?  Not a page that must stay unread until the death, nor
 * one the controller serves (their READ brings the words), whose writeback
 * may have started (rl2fz_fuse.c).
 */
static int touchable(unsigned int pg)
{
	unsigned int k = ctl->kind[pg];

	return k != RL2FZ_K_RANDOM && k != RL2FZ_K_RANDOM_PRIV &&
	       k != RL2FZ_K_NOREAD && k != RL2FZ_K_NOREAD_PRIV && k != RL2FZ_K_NOWRITE;
}

/* The child: the owner, thread 0. */
static int child(void *unused)
{
	uint32_t tid = (uint32_t)sys(SYS_gettid, 0, 0, 0, 0);
	const int clone_thread = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
				 CLONE_THREAD | CLONE_SYSVSEM | CLONE_PARENT_SETTID;
	struct timespec ts = { .tv_sec = 1 };
	unsigned int i;

	ctl->tids[0] = tid;
	stamp(3);
	/* its "wN" pages: read now (with its TID in them) and made dirty, once */
	for (i = RL2FZ_PROT_FIRST; i < RL2FZ_PAGES; i++)
		if (ctl->kind[i] == RL2FZ_K_NOWRITE)
			__atomic_fetch_or((uint32_t *)(RL2FZ_ARENA + i * RL2FZ_PAGE), 0, __ATOMIC_SEQ_CST);
	for (i = 0; i < ctl->nfill && i < RL2FZ_FILLS; i++) {
		struct rl2fz_fill *f = &ctl->fill[i];

		if (touchable(f->off / RL2FZ_PAGE))
			*(uint32_t *)(RL2FZ_ARENA + f->off) = f->val | (f->self ? tid : 0);
	}
	dev = (int)sys(SYS_open, (long)ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC, 0, 0);
	if (dev < 0)
		return 2;
	for (i = 0; i < ctl->nreg; i++)
		do_register(&ctl->reg[i]);
	protect();
	stamp(4);
	for (i = 1; i < ctl->nthreads; i++)
		if (clone(other, stacks[i] + sizeof(stacks[i]), clone_thread, (void *)(uintptr_t)i,
			  (pid_t *)&ctl->tids[i]) < 0)
			return 3;
	set_wake(&start_gate, 1);
	stamp(5);
	run_thread(0);
	stamp(6);
	for (uint32_t d; (d = __atomic_load_n(&ctl->done, __ATOMIC_SEQ_CST)) < ctl->nthreads; )
		futex_wait(&ctl->done, d, 1);
	stamp(7);
	set_wake(&ctl->ready, 1);
	wait_go();
	switch (ctl->death) {
	case RL2FZ_DIE_EXIT:
		sys(SYS_exit, 0, 0, 0, 0);
		break;
	case RL2FZ_DIE_EXEC: {
		char *args[] = { exit_path, NULL };

		sys(SYS_execve, (long)exit_path, (long)args, (long)(args + 1), 0);
		break;
	}
	case RL2FZ_DIE_KILL:	/* the controller kills us */
		for (;;)
			sys(SYS_nanosleep, (long)&ts, 0, 0, 0);
	}
	sys(SYS_exit_group, 0, 0, 0, 0);
	return 0;
}

/* ---- the servers ----------------------------------------------------------- */

/* The FUSE files of the hostile pages (fuse_open()). */
enum { FILE_S, FILE_V, FILE_M, FILE_R, FILE_W0, NFILES = FILE_W0 + 4 };
static int fuse_fd[NFILES] = { -1, -1, -1, -1, -1, -1, -1, -1 };

/* Wait until *@p is no longer @v; false if our controller is gone. */
static int wait_change(uint32_t *p, uint32_t v)
{
	while (__atomic_load_n(p, __ATOMIC_SEQ_CST) == v) {
		futex_wait(p, v, 1);
		if (getppid() == 1)
			return 0;
	}
	return 1;
}

static const char *const fuse_path[NFILES] = {
	RL2FZ_FUSE_PROMPT "/s", RL2FZ_FUSE_PROMPT "/v", RL2FZ_FUSE_PROMPT "/m",
	RL2FZ_FUSE_STALL "/r", RL2FZ_FUSE_STALL "/w0", RL2FZ_FUSE_STALL "/w1",
	RL2FZ_FUSE_STALL "/w2", RL2FZ_FUSE_STALL "/w3",
};

/* File @i of the mounts, opened on first use. */
static int fuse_file(int i)
{
	if (fuse_fd[i] < 0 && ctl->fuse_ok)
		fuse_fd[i] = open(fuse_path[i], O_RDWR | O_CLOEXEC);
	return fuse_fd[i];
}

/*
 * Forget the mounts' files from @first on.  An open drops a FUSE file's
 * cached pages, so the prompt mount's, into which the controller writes
 * each program, are opened once, at the start (fuse_file() for each);
 * the stalling mount's, fresh after each remount, when a program first
 * maps them: a remount costs one LOOKUP and OPEN per file used, not five.
 */
static void fuse_close(int first)
{
	for (int i = first; i < NFILES; i++) {
		if (fuse_fd[i] >= 0)
			close(fuse_fd[i]);
		fuse_fd[i] = -1;
	}
}

static void *page_at(unsigned int pg)
{
	return (void *)(RL2FZ_ARENA + pg * RL2FZ_PAGE);
}

/* Put the hostile pages' files in place of their arena pages. */
static int map_hostile(void)
{
	for (unsigned int pg = RL2FZ_PROT_FIRST; pg < RL2FZ_PAGES; pg++) {
		unsigned int k = ctl->kind[pg], file, priv = 0, rnd = 0;
		off_t off = (off_t)(pg - RL2FZ_PROT_FIRST) * RL2FZ_PAGE;

		switch (k) {
		case RL2FZ_K_SHARED: file = FILE_S; break;
		case RL2FZ_K_PRIVATE: file = FILE_V; priv = 1; break;
		case RL2FZ_K_RANDOM: file = FILE_M; rnd = 1; off = 0; break;
		case RL2FZ_K_RANDOM_PRIV: file = FILE_M; rnd = priv = 1; off = 0; break;
		case RL2FZ_K_NOREAD: file = FILE_R; break;
		case RL2FZ_K_NOREAD_PRIV: file = FILE_R; rnd = priv = 1; break;
		case RL2FZ_K_NOWRITE: file = FILE_W0 + pg - RL2FZ_PROT_FIRST; off = 0; break;
		default: continue;
		}
		if (mmap(page_at(pg), RL2FZ_PAGE, PROT_READ | PROT_WRITE,
			 (priv ? MAP_PRIVATE : MAP_SHARED) | MAP_FIXED, fuse_file(file), off) != page_at(pg))
			return -1;
		if (rnd && madvise(page_at(pg), RL2FZ_PAGE, MADV_RANDOM))
			return -1;
	}
	return 0;
}

/*
 * Make every page the child may touch present and writable, so that which
 * pages its walks must bring in is the program's choice: the ones it
 * drops, and the hostile ones nobody touches.
 */
static void touch(void)
{
	for (unsigned int pg = RL2FZ_CTL_PAGES; pg < RL2FZ_PAGES; pg++)
		if (touchable(pg))
			__atomic_fetch_or((uint32_t *)page_at(pg), 0, __ATOMIC_SEQ_CST);
}

/* Pages 6..9 as the arena's memfd again, read-write, after a program changed them. */
static int restore(const uint32_t *was)
{
	for (unsigned int pg = RL2FZ_PROT_FIRST; pg < RL2FZ_PAGES; pg++)
		if (was[pg] != RL2FZ_K_RW &&
		    mmap(page_at(pg), RL2FZ_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			 RL2FZ_FD, pg * RL2FZ_PAGE) != page_at(pg))
			return -1;
	return 0;
}

/* The module's counters, read as root. */
static void counters(int fd, struct robust_list2_stats *st)
{
	if (ioctl(fd, ROBUST_LIST2_IOC_STATS, st))
		memset(st, 0xff, sizeof(*st));
}

/*
 * The counters before a program.  Fault-ins the last one left behind (its
 * mount aborted) end first, so that none holds a place of the account or
 * of our address space that the next one's walks would wait for.
 */
static void settle(int fd, struct robust_list2_stats *st)
{
	for (int i = 0; i < 5000; i++) {
		counters(fd, st);
		if (!st->faults_in_flight || st->faults_in_flight == (uint64_t)-1)
			return;
		usleep(1000);
	}
}

static int serve(void)
{
	struct rl2fz_srv *s = &ctl->srv[sizeof(long) == 8 ? 0 : 1];
	static uint8_t stack0[256 * 1024] __attribute__((aligned(16)));
	uint32_t seen = s->seq, gen = s->fuse_gen, was[RL2FZ_PAGES] = { 0 };
	struct robust_list2_stats st;
	int fd, status;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 2;
	for (int i = FILE_S; i <= FILE_M; i++)
		fuse_file(i);
	set_wake(&s->up, 1);
	while (wait_change(&s->seq, seen)) {
		pid_t pid = -1;

		seen = __atomic_load_n(&s->seq, __ATOMIC_SEQ_CST);
		stamp(0);
		settle(fd, &st);
		ctl->io_timeouts[0] = st.io_timeouts;
		stamp(1);
		if (s->fuse_gen != gen) {
			gen = s->fuse_gen;
			fuse_close(FILE_R);
		}
		if (restore(was))
			return 4;
		memcpy(was, ctl->kind, sizeof(was));
		start_gate = 0;
		if (!map_hostile()) {
			touch();
			stamp(2);
			pid = clone(child, stack0 + sizeof(stack0), CLONE_VM | SIGCHLD, NULL);
		}
		__atomic_store_n(&s->pid, pid, __ATOMIC_SEQ_CST);
		status = -1;
		while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		counters(fd, &st);
		ctl->io_timeouts[1] = st.io_timeouts;
		ctl->faults_in_flight = st.faults_in_flight;
		s->status = status;
		set_wake(&s->done, seen);
	}
	return 0;
}

/*
 * A waiter thread: for each program (an odd seq) that has a waiter @i,
 * FUTEX_WAIT on its word until woken or 60 s; then count itself done.
 */
static void *waiter(void *a)
{
	unsigned int i = (unsigned int)(uintptr_t)a;
	struct rl2fz_wait *w = &ctl->wait[i];
	uint32_t seen = 0;

	for (;;) {
		struct timespec ts = { .tv_sec = 60 };
		long r;

		if (!wait_change(&ctl->wsrv.seq, seen))
			exit(0);
		seen = __atomic_load_n(&ctl->wsrv.seq, __ATOMIC_SEQ_CST);
		if (!(seen & 1) || i >= ctl->nwait)
			continue;
		w->tid = (uint32_t)sys(SYS_gettid, 0, 0, 0, 0);
		__atomic_store_n(&w->state, RL2FZ_W_WAITING, __ATOMIC_SEQ_CST);
		r = sys(SYS_futex, (long)(RL2FZ_ARENA + w->off), FUTEX_WAIT, w->val, (long)&ts);
		__atomic_store_n(&w->state, !r ? RL2FZ_W_WOKEN : r == -EAGAIN ? RL2FZ_W_CHANGED :
				 r == -ETIMEDOUT ? RL2FZ_W_TIMEOUT : RL2FZ_W_OTHER, __ATOMIC_SEQ_CST);
		__atomic_add_fetch((uint32_t *)&ctl->wsrv.status, 1, __ATOMIC_SEQ_CST);
		sys(SYS_futex, (long)&ctl->wsrv.status, FUTEX_WAKE, INT_MAX, 0);
	}
	return NULL;
}

static int wait_serve(void)
{
	pthread_attr_t attr;
	pthread_t th;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (unsigned int i = 0; i < RL2FZ_WAITERS; i++)
		if (pthread_create(&th, &attr, waiter, (void *)(uintptr_t)i))
			return 3;
	set_wake(&ctl->wsrv.up, 1);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	void *a;

	if (n <= 0)
		return 2;
	self[n] = 0;
	slash = strrchr(self, '/');
	*slash = 0;
	snprintf(exit_path, sizeof(exit_path), "%s/rl2fz-exit", self);
	a = mmap((void *)RL2FZ_ARENA, RL2FZ_PAGES * RL2FZ_PAGE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, RL2FZ_FD, 0);
	if (a != (void *)RL2FZ_ARENA) {
		perror("rl2fz-exec: mmap");
		return 2;
	}
	if (argc > 1 && !strcmp(argv[1], "--wait"))
		return wait_serve();
	if (argc > 1 && !strcmp(argv[1], "--serve"))
		return serve();
	fprintf(stderr, "usage: %s --serve | --wait\n", argv[0]);
	return 2;
}
