// SPDX-License-Identifier: GPL-2.0
/*
 * recovery: from the SIGKILL of a process holding N robust locks to the
 * last process-shared waiter back with EOWNERDEAD.  The holder keeps its
 * locks in the legacy list (the kernel's walk), in one slot or spread
 * over eight (ours), or in a list nobody registered, which a pidfd
 * watchdog repairs from outside (watchdog.c: what an emulator would
 * write without us).
 *
 * Each lock is alone in its own MAP_SHARED page (its own mapping); one
 * waiter thread per lock, all in one other process, blocks in FUTEX_WAIT
 * on it the way glibc's pthread_mutex_lock() blocks on a robust
 * process-shared mutex, and takes it over when it finds FUTEX_OWNER_DIED.
 * A trial starts once every waiter is seen asleep in the kernel (and the
 * watchdog in poll()).
 *
 * Every process of the area runs on CPU 0.  Under -icount QEMU runs the
 * vCPUs one after the other, and a wake-up sent to another vCPU waits
 * until the sending one idles or reaches its next timer deadline: the
 * dying holder's whole exit (or the watchdog's whole walk) would come
 * before any waiter on CPU 1 ran, whatever the kernel does (README.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/futex.h>

#include "bench.h"
#include "helpers.h"
#include "watchdog.h"

#define REC_MAX_LOCKS	2048
#define REC_WAIT_MS	10000		/* any one wait in a trial */
#define REC_AREA_S	3600		/* the waiter process's life, at most */
#define REC_TARGET_LEG	1.10		/* SPEC.md: vs the legacy list */
#define REC_TARGET_WD	0.10		/* SPEC.md: >= 10x faster than the watchdog */
/*
 * SPEC.md: the 10x holds while the watchdog's fixed cost dominates, up to
 * REC_WD_FIXED_N locks; past that both pay one wake-up per waiter, and the
 * target is the cost per additional lock: ours no more than the watchdog's.
 */
#define REC_WD_FIXED_N	16
#define REC_TARGET_WD_PER_LOCK	1.00

enum { REC_LEGACY, REC_RL2, REC_RL2X8, REC_WATCHDOG, NR_REC };
static const char *const rec_name[NR_REC] = {
	"legacy", "1 slot", "8 slots", "pidfd watchdog"
};
static const unsigned int rec_ns[] = { 1, 16, 256, 2048 };
#define NR_REC_N	ARRAY_SIZE(rec_ns)
/* Trials per mode, N and round; a round takes their median. */
static const int rec_trials[NR_REC_N] = { 5, 5, 3, 3 };

struct rec_waiter {
	uint32_t gen;		/* bumped by the timer: take part in a trial */
	int32_t tid;
	int32_t err;		/* EOWNERDEAD, 0 (lock was free) or ETIMEDOUT */
	uint32_t pad;
	uint64_t woke;		/* CLOCK_MONOTONIC when the lock was taken */
};

/* The control page(s), shared by every process of the area. */
struct rec_ctl {
	struct robust_list_head heads[NR_SLOTS];
	uint32_t holder_ready, wd_ready, done, nactive, started, quit;
	int32_t holder_err, wd_err;
	uint64_t deadline;	/* every wait of a waiter thread ends by then */
	struct rec_waiter w[REC_MAX_LOCKS];
};

static struct rec_ctl *ctl;
static char *lock_base;		/* lock i: the start of page i */
static size_t page;

static struct lock64 *rec_lock_at(unsigned int i)
{
	return (struct lock64 *)(lock_base + (size_t)i * page);
}

static long sfutex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, FUTEX_BITSET_MATCH_ANY);
}

static void store_wake_shared(uint32_t *word, uint32_t val)
{
	__atomic_store_n(word, val, __ATOMIC_RELEASE);
	sfutex(word, FUTEX_WAKE, INT_MAX, NULL);
}

/* Wait (shared futex) until *word != val or CLOCK_MONOTONIC @deadline. */
static int wait_shared_until(uint32_t *word, uint32_t val, uint64_t deadline)
{
	struct timespec ts = { deadline / NSEC_PER_SEC, deadline % NSEC_PER_SEC };

	while (__atomic_load_n(word, __ATOMIC_ACQUIRE) == val) {
		if (now_ns() >= deadline)
			return -1;
		sfutex(word, FUTEX_WAIT_BITSET, val, &ts);
	}
	return 0;
}

static int wait_shared(uint32_t *word, uint32_t val, unsigned int ms)
{
	return wait_shared_until(word, val, now_ns() + ms * NSEC_PER_MSEC);
}

/*
 * glibc's robust-mutex lock, reduced to its futex protocol: take a free
 * word; take over one whose owner died (EOWNERDEAD); else set
 * FUTEX_WAITERS and sleep.
 */
static int rec_lock(uint32_t *word, uint32_t tid)
{
	uint64_t deadline = now_ns() + REC_WAIT_MS * NSEC_PER_MSEC;

	for (;;) {
		uint32_t v = __atomic_load_n(word, __ATOMIC_ACQUIRE);
		struct timespec ts;
		uint64_t left;

		if (!v) {
			if (__atomic_compare_exchange_n(word, &v, tid, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return 0;
			continue;
		}
		if ((v & FUTEX_OWNER_DIED) && !(v & FUTEX_TID_MASK)) {
			if (__atomic_compare_exchange_n(word, &v, tid | (v & FUTEX_WAITERS), false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return EOWNERDEAD;
			continue;
		}
		if (!(v & FUTEX_WAITERS)) {
			if (!__atomic_compare_exchange_n(word, &v, v | FUTEX_WAITERS, false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				continue;
			v |= FUTEX_WAITERS;
		}
		left = deadline - now_ns();
		if ((int64_t)left <= 0)
			return ETIMEDOUT;
		ts.tv_sec = left / NSEC_PER_SEC;
		ts.tv_nsec = left % NSEC_PER_SEC;
		syscall(SYS_futex, word, FUTEX_WAIT, v, &ts, NULL, 0);
	}
}

/* ------------------------------------------------------ the processes */

static void *rec_waiter_main(void *arg)
{
	unsigned int i = (unsigned int)(uintptr_t)arg;
	struct rec_waiter *w = &ctl->w[i];
	uint32_t seen = 0;

	w->tid = gettid_();
	__atomic_add_fetch(&ctl->started, 1, __ATOMIC_RELEASE);
	for (;;) {
		if (wait_shared_until(&w->gen, seen, ctl->deadline))
			break;
		seen = __atomic_load_n(&w->gen, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ctl->quit, __ATOMIC_ACQUIRE))
			break;
		w->err = rec_lock(&rec_lock_at(i)->futex, (uint32_t)w->tid);
		w->woke = now_ns();
		/* The last one back wakes the timer; the others do nothing more. */
		if (__atomic_add_fetch(&ctl->done, 1, __ATOMIC_ACQ_REL) ==
		    __atomic_load_n(&ctl->nactive, __ATOMIC_ACQUIRE))
			sfutex(&ctl->done, FUTEX_WAKE, 1, NULL);
	}
	return NULL;
}

/* One thread per lock, on CPU 0 with the rest; lives until quit. */
static __attribute__((noreturn)) void rec_waiters(void)
{
	static pthread_t th[REC_MAX_LOCKS];
	pthread_attr_t attr;
	unsigned int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	thread_attr(&attr, 64 << 10, 0);
	for (i = 0; i < REC_MAX_LOCKS; i++)
		if (pthread_create(&th[i], &attr, rec_waiter_main, (void *)(uintptr_t)i))
			_exit(20);
	for (i = 0; i < REC_MAX_LOCKS; i++)
		pthread_join(th[i], NULL);
	_exit(0);
}

/* Take locks 0..n-1, list them (index order) in the mode's lists, wait to die. */
static __attribute__((noreturn)) void rec_holder(int mode, unsigned int n)
{
	unsigned int nslots = mode == REC_RL2X8 ? NR_SLOTS : 1, i, s;
	pid_t tid = gettid_();
	struct timespec ts = { REC_WAIT_MS / 1000 * 2, 0 };
	uint32_t never = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (s = 0; s < nslots; s++) {
		ctl->heads[s].list.next = &ctl->heads[s].list;
		ctl->heads[s].futex_offset = LOCK_OFF;
		ctl->heads[s].list_op_pending = NULL;
	}
	for (i = n; i-- > 0;) {
		struct lock64 *l = rec_lock_at(i);

		s = (unsigned int)((uint64_t)i * nslots / n);
		l->futex = (uint32_t)tid;
		l->list.next = ctl->heads[s].list.next;
		ctl->heads[s].list.next = &l->list;
	}
	switch (mode) {
	case REC_LEGACY:
		if (syscall(SYS_set_robust_list, &ctl->heads[0], sizeof(ctl->heads[0])))
			ctl->holder_err = errno;
		break;
	case REC_RL2:
	case REC_RL2X8:
		for (s = 0; s < nslots && !ctl->holder_err; s++)
			if (set_robust_list2(&ctl->heads[s], s, FUTEX_ROBUST_LIST_CMD_SET_64, 0))
				ctl->holder_err = errno;
		break;
	default:		/* the watchdog's: nobody registers it */
		break;
	}
	store_wake_shared(&ctl->holder_ready, 1);
	syscall(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
	_exit(3);		/* never killed: the timer fails the trial */
}

static __attribute__((noreturn)) void rec_watchdog(pid_t holder, pid_t tid)
{
	struct wd_region r = {
		(uintptr_t)lock_base, (uintptr_t)lock_base + REC_MAX_LOCKS * page
	};
	int pfd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pfd = wd_open(holder);
	if (pfd < 0)
		ctl->wd_err = errno;
	store_wake_shared(&ctl->wd_ready, 1);
	if (pfd < 0 || wd_wait_death(pfd, REC_WAIT_MS))
		_exit(2);
	wd_repair_list(&ctl->heads[0], tid, &r);
	_exit(0);
}

/* ------------------------------------------------------------ a trial */

/* Is @pid (thread @tid) asleep in system call @nr, or in @nr2? */
static bool rec_in_syscall(pid_t pid, pid_t tid, long nr, long nr2)
{
	char path[64], buf[128];
	ssize_t len;
	long cur;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return false;
	buf[len] = 0;
	return sscanf(buf, "%ld", &cur) == 1 && (cur == nr || cur == nr2);
}

/* The number of mappings a holder, forked from here, inherits. */
static int rec_nr_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, c;

	if (!f)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/* Wait for @pid to end, bounded; SIGKILL it if it does not. */
static int rec_reap(pid_t pid, unsigned int ms)
{
	uint64_t deadline = now_ns() + ms * NSEC_PER_MSEC;
	int status = 0;

	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		sleep_ms(1);
	}
	return status;
}

struct rec_result {
	uint64_t ns;		/* SIGKILL -> last waiter back */
	bool bad;		/* a waiter not back with EOWNERDEAD, or a step failed */
};

static struct rec_result rec_once(pid_t waiters, int mode, unsigned int n)
{
	struct rec_result res = { 0, false };
	pid_t holder, wd = -1, htid;
	uint64_t t0, deadline;
	unsigned int i;
	int st;

	for (i = 0; i < n; i++) {
		rec_lock_at(i)->futex = 0;
		ctl->w[i].err = -1;
		ctl->w[i].woke = 0;
	}
	ctl->holder_ready = ctl->wd_ready = ctl->done = 0;
	ctl->nactive = n;
	ctl->holder_err = ctl->wd_err = 0;

	holder = fork();
	if (holder < 0)
		die("fork: %s", strerror(errno));
	if (!holder)
		rec_holder(mode, n);
	htid = holder;		/* single-threaded: its tid is its pid */
	if (wait_shared(&ctl->holder_ready, 0, REC_WAIT_MS) || ctl->holder_err)
		die("recovery: the %s holder did not get ready: %s", rec_name[mode],
		    strerror(ctl->holder_err));
	if (mode == REC_WATCHDOG) {
		wd = fork();
		if (wd < 0)
			die("fork: %s", strerror(errno));
		if (!wd)
			rec_watchdog(holder, htid);
		if (wait_shared(&ctl->wd_ready, 0, REC_WAIT_MS) || ctl->wd_err)
			die("recovery: no watchdog: %s", strerror(ctl->wd_err));
	}

	for (i = 0; i < n; i++) {
		ctl->w[i].gen++;
		sfutex(&ctl->w[i].gen, FUTEX_WAKE, 1, NULL);
	}
	deadline = now_ns() + REC_WAIT_MS * NSEC_PER_MSEC;
	for (i = 0; i < n; i++)
		while (th_sleeping_in_futex(waiters, ctl->w[i].tid, &rec_lock_at(i)->futex) != 1) {
			if (now_ns() > deadline)
				die("recovery: waiter %u never slept", i);
			sched_yield();
		}
#ifdef SYS_poll
	while (wd > 0 && !rec_in_syscall(wd, wd, SYS_poll, SYS_ppoll)) {
#else
	while (wd > 0 && !rec_in_syscall(wd, wd, SYS_ppoll, SYS_ppoll)) {
#endif
		if (now_ns() > deadline)
			die("recovery: the watchdog never slept in poll()");
		sched_yield();
	}

	t0 = now_ns();
	kill(holder, SIGKILL);
	for (;;) {
		uint32_t d = __atomic_load_n(&ctl->done, __ATOMIC_ACQUIRE);

		if (d >= n)
			break;
		/* Longer than a waiter's own timeout: it reports that itself. */
		if (wait_shared(&ctl->done, d, 2 * REC_WAIT_MS)) {
			res.bad = true;
			break;
		}
	}
	for (i = 0; i < n; i++) {
		const struct rec_waiter *w = &ctl->w[i];

		if (w->err != EOWNERDEAD || w->woke < t0)
			res.bad = true;
		else if (w->woke - t0 > res.ns)
			res.ns = w->woke - t0;
	}
	if (res.bad)		/* the figure shows how long the trial waited */
		res.ns = now_ns() - t0;
	/* A waiter that never came back leaves its thread waiting: give up. */
	if (__atomic_load_n(&ctl->done, __ATOMIC_ACQUIRE) < n)
		die("recovery: %s, N=%u: %u of %u waiters back after %d ms", rec_name[mode], n,
		    ctl->done, n, 2 * REC_WAIT_MS);
	st = rec_reap(holder, REC_WAIT_MS);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
		res.bad = true;
	if (wd > 0 && rec_reap(wd, REC_WAIT_MS) != 0)
		res.bad = true;
	return res;
}

/* ------------------------------------------------------------ figures */

struct rec_data {
	double lat[MAX_ROUNDS][NR_REC][NR_REC_N];	/* us, median of the trials */
	unsigned int bad[NR_REC][NR_REC_N];
};

static void rec_measure(struct rec_data *d, pid_t waiters)
{
	double v[NR_REC][8];

	for (int r = 0; r < opt_rounds; r++) {
		progress("recovery: round %d/%d", r + 1, opt_rounds);
		for (unsigned int a = 0; a < NR_REC_N; a++) {
			int k = rec_trials[a];

			for (int i = 0; i < k; i++) {
				for (int mi = 0; mi < NR_REC; mi++) {
					int m = (mi + i + r) % NR_REC;
					struct rec_result res = rec_once(waiters, m, rec_ns[a]);

					v[m][i] = res.ns / 1e3;
					d->bad[m][a] += res.bad;
				}
			}
			for (int m = 0; m < NR_REC; m++)
				d->lat[r][m][a] = median_of(v[m], k);
		}
	}
}

/* The index of REC_WD_FIXED_N in rec_ns[]: the base of the per-lock rows */
static unsigned int rec_fixed_index(void)
{
	unsigned int a;

	for (a = 0; a < NR_REC_N && rec_ns[a] < REC_WD_FIXED_N; a++)
		;
	return a;
}

/*
 * Past REC_WD_FIXED_N locks: what each lock beyond REC_WD_FIXED_N adds to
 * the latency, ours against the watchdog's, per round:
 * (lat(n) - lat(16)) / (n - 16) for both.
 */
static void rec_report_per_lock(const struct rec_data *d, unsigned int a)
{
	unsigned int b = rec_fixed_index(), n = rec_ns[a];
	double locks = n - rec_ns[b];
	struct figure f;

	for (int m = REC_RL2; m <= REC_RL2X8; m++) {
		char item[80];

		snprintf(item, sizeof(item),
			 "per lock past %u: %s vs %s", rec_ns[b], rec_name[m],
			 rec_name[REC_WATCHDOG]);
		figure_init(&f, "recovery", item, n, "us/lock",
			    REC_TARGET_WD_PER_LOCK);
		for (int r = 0; r < opt_rounds; r++)
			add_round(&f, (d->lat[r][m][a] - d->lat[r][m][b]) / locks,
				  (d->lat[r][REC_WATCHDOG][a] -
				   d->lat[r][REC_WATCHDOG][b]) / locks);
		if (d->bad[m][a] || d->bad[REC_WATCHDOG][a] ||
		    d->bad[m][b] || d->bad[REC_WATCHDOG][b]) {
			f.status = "FAILED";
			snprintf(f.note, sizeof(f.note),
				 "a %s or watchdog trial had a waiter not back with EOWNERDEAD (or a step failed)",
				 rec_name[m]);
		} else {
			snprintf(f.note, sizeof(f.note),
				 "latency added by each lock beyond %u (one waiter per lock), ours and the watchdog's; every waiter back with EOWNERDEAD",
				 rec_ns[b]);
		}
		emit(&f);
	}
}

static void rec_report(const struct rec_data *d)
{
	static const int anchors[] = { REC_LEGACY, REC_WATCHDOG };
	struct figure f;

	for (unsigned int a = 0; a < NR_REC_N; a++) {
		unsigned int n = rec_ns[a];

		for (unsigned int ai = 0; ai < ARRAY_SIZE(anchors); ai++) {
			int an = anchors[ai];

			for (int m = REC_RL2; m <= REC_RL2X8; m++) {
				struct series inv = { .n = 0 };
				char item[80];

				snprintf(item, sizeof(item), "SIGKILL to last waiter: %s vs %s",
					 rec_name[m], rec_name[an]);
				/* past REC_WD_FIXED_N: information, the per-lock rows judge */
				figure_init(&f, "recovery", item, n, "us",
					    an == REC_LEGACY ? REC_TARGET_LEG :
					    n <= REC_WD_FIXED_N ? REC_TARGET_WD : 0);
				for (int r = 0; r < opt_rounds; r++) {
					add_round(&f, d->lat[r][m][a], d->lat[r][an][a]);
					push(&inv, d->lat[r][an][a] / d->lat[r][m][a]);
				}
				if (d->bad[m][a] || d->bad[an][a]) {
					f.status = "FAILED";
					snprintf(f.note, sizeof(f.note),
						 "%u %s and %u %s trials had a waiter not back with EOWNERDEAD (or a step failed)",
						 d->bad[m][a], rec_name[m], d->bad[an][a], rec_name[an]);
				} else if (an == REC_WATCHDOG) {
					snprintf(f.note, sizeof(f.note),
						 "watchdog/ours %.1fx; %u waiter(s), one per lock; every one back with EOWNERDEAD",
						 median(&inv), n);
				} else {
					snprintf(f.note, sizeof(f.note),
						 "%u waiter(s), one per lock, each lock in its own MAP_SHARED page; every one back with EOWNERDEAD",
						 n);
				}
				emit(&f);
			}
		}
		if (n > REC_WD_FIXED_N)
			rec_report_per_lock(d, a);
	}
}

void bench_recovery(void)
{
	static struct rec_data d;
	struct rec_ctl *c;
	pid_t waiters;
	uint64_t t0;
	int devfd, st;

	progress("recovery: SIGKILL of a holder of N locks -> last waiter back, legacy / 1 slot / 8 slots / pidfd watchdog");
	page = (size_t)sysconf(_SC_PAGESIZE);
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	lock_base = mmap(NULL, REC_MAX_LOCKS * page, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (c == MAP_FAILED || lock_base == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	/* One mapping per lock: shared anonymous mappings never merge. */
	for (unsigned int i = 0; i < REC_MAX_LOCKS; i++)
		if (mmap(lock_base + i * page, page, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			die("mmap: %s", strerror(errno));
	ctl = c;
	memset(ctl, 0, sizeof(*ctl));
	ctl->deadline = now_ns() + REC_AREA_S * NSEC_PER_SEC;
	/* Hold the device open: the exit hooks stay installed between trials. */
	devfd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);
	if (devfd < 0)
		die("%s: %s", ROBUST_LIST2_DEVICE, strerror(errno));
	pin_to_cpu(0);
	progress("recovery: a holder has %d mappings (%u of them its locks' pages) to tear down at exit",
		 rec_nr_maps(), REC_MAX_LOCKS);

	waiters = fork();
	if (waiters < 0)
		die("fork: %s", strerror(errno));
	if (!waiters)
		rec_waiters();
	if (wait_shared(&ctl->started, 0, REC_WAIT_MS))
		die("recovery: no waiter thread started");
	while (__atomic_load_n(&ctl->started, __ATOMIC_ACQUIRE) < REC_MAX_LOCKS) {
		if (now_ns() > ctl->deadline || waitpid(waiters, &st, WNOHANG))
			die("recovery: the waiter threads did not start");
		sleep_ms(1);
	}

	memset(&d, 0, sizeof(d));
	t0 = now_ns();
	rec_measure(&d, waiters);
	progress("recovery: %d rounds in %.1f s", opt_rounds, (now_ns() - t0) / 1e9);
	for (int m = 0; m < NR_REC; m++)
		for (unsigned int a = 0; a < NR_REC_N; a++)
			if (d.bad[m][a])
				progress("recovery: WARNING: %s, N=%u: %u trial(s) with a waiter not back with EOWNERDEAD",
					 rec_name[m], rec_ns[a], d.bad[m][a]);
	rec_report(&d);

	store_wake_shared(&ctl->quit, 1);
	for (unsigned int i = 0; i < REC_MAX_LOCKS; i++) {
		ctl->w[i].gen++;
		sfutex(&ctl->w[i].gen, FUTEX_WAKE, 1, NULL);
	}
	if (rec_reap(waiters, REC_WAIT_MS))
		progress("recovery: WARNING: the waiter process did not end cleanly");
	close(devfd);
	pin_to_cpu(-1);
	munmap(lock_base, REC_MAX_LOCKS * page);
	munmap(c, sizeof(*c));
}
