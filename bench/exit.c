// SPDX-License-Identifier: GPL-2.0
/*
 * exit: the walk at thread exit.  An owner thread holds N locks in the
 * legacy list, in one slot or spread over all slots, and exits; the
 * figures are the whole exit, the cost per entry, and the time until the
 * last of a few waiters on its locks is woken.
 */
#include <errno.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#include "bench.h"
#include "helpers.h"

#define MAX_WAITERS	4
#define LEGACY_LIMIT	2048		/* the kernel's ROBUST_LIST_LIMIT */
#define WALK_TARGET	1.0		/* SPEC.md: per entry, vs the kernel's walk */

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
		       th_sleeping_in_futex(getpid(), w[i].tid, w[i].uaddr) != 1) {
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

/*
 * Per round, [mode][N index], medians over the round's exits: exit time
 * (index 0: with no locks), per-entry cost (T(N) - T(0)) / N of adjacent
 * pairs, time until the last waiter woke.
 */
struct exit_data {
	double walk[MAX_ROUNDS][NR_MODES][NR_EXIT_N];
	double pe[MAX_ROUNDS][NR_MODES][NR_EXIT_N];
	double wake[MAX_ROUNDS][NR_MODES][NR_EXIT_N];
	unsigned int recovered[NR_MODES][NR_EXIT_N];
	bool bad_wake;
};

/*
 * Every exit with N locks is paired with an exit with none in the same
 * mode, and the modes take turns exit by exit: per-entry cost =
 * (T(N) - T(0)) / N from exits taken within a millisecond or so of each
 * other, whatever the machine's speed does meanwhile; a round reports
 * medians over its pairs, so an exit another VM slowed down does not
 * count.
 */
static void exit_measure(struct exit_data *d, struct lock64 *locks)
{
	static double s0[NR_MODES][MAX_SLICES], sn[NR_MODES][MAX_SLICES];
	static double sd[NR_MODES][MAX_SLICES], sw[NR_MODES][MAX_SLICES];
	long k[NR_EXIT_N], kw[NR_EXIT_N];
	unsigned int a;
	int r, m, i, n0;

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
						d->recovered[m][a] = res.recovered;
				}
			}
			n0 += k[a];
			for (m = 0; m < NR_MODES; m++) {
				d->walk[r][m][a] = median_of(sn[m], k[a]);
				d->pe[r][m][a] = median_of(sd[m], k[a]);
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
					d->bad_wake |= res.bad;
				}
			}
			for (m = 0; m < NR_MODES; m++)
				d->wake[r][m][a] = median_of(sw[m], kw[a]);
		}
		for (m = 0; m < NR_MODES; m++)
			d->walk[r][m][0] = median_of(s0[m], n0);
	}
}

/* Fixed cost: a thread exit with registered but empty lists. */
static void exit_report_empty(const struct exit_data *d)
{
	struct figure f;

	for (int m = MODE_RL2; m < NR_MODES; m++) {
		char item[64];

		snprintf(item, sizeof(item), "exit with 0 locks: %s vs legacy", mode_name[m]);
		figure_init(&f, "exit", item, 0, "us/exit", 0);
		for (int r = 0; r < opt_rounds; r++)
			add_round(&f, d->walk[r][m][0] / 1e3, d->walk[r][MODE_LEGACY][0] / 1e3);
		snprintf(f.note, sizeof(f.note), "lists registered but empty: the fixed cost of the hook and walk");
		emit(&f);
	}
}

/* Per entry: (T(N) - T(0)) / N, each against the legacy list. */
static void exit_report_walk(const struct exit_data *d)
{
	struct figure f;

	for (unsigned int a = 1; a < NR_EXIT_N; a++) {
		unsigned int n = exit_ns[a];
		unsigned int an = n > LEGACY_LIMIT ? NR_EXIT_N - 2 : a;	/* N = 2048 */

		for (int m = MODE_RL2; m < NR_MODES; m++) {
			struct series total = { .n = 0 }, pe_ours = { .n = 0 }, pe_anc = { .n = 0 };
			char item[64];

			if (n < 256)
				snprintf(item, sizeof(item), "exit with N locks: %s vs legacy",
					 mode_name[m]);
			else
				snprintf(item, sizeof(item), "per entry: %s vs legacy", mode_name[m]);
			figure_init(&f, "exit", item, n, n < 256 ? "us/exit" : "ns/entry",
				    n >= 256 ? WALK_TARGET : 0);
			for (int r = 0; r < opt_rounds; r++) {
				double ours = d->pe[r][m][a], anc = d->pe[r][MODE_LEGACY][an];

				push(&pe_ours, ours);
				push(&pe_anc, anc);
				if (n < 256)	/* too few entries to resolve per entry */
					add_round(&f, d->walk[r][m][a] / 1e3,
						  d->walk[r][MODE_LEGACY][a] / 1e3);
				else
					add_round(&f, ours, anc);
				push(&total, d->walk[r][m][a] / d->walk[r][MODE_LEGACY][a]);
			}
			if (n > LEGACY_LIMIT) {
				snprintf(f.note, sizeof(f.note),
					 "legacy capped: it recovered %u/%u (anchor: legacy per entry at N=%u); ours %u/%u",
					 d->recovered[MODE_LEGACY][a], n, LEGACY_LIMIT,
					 d->recovered[m][a], n);
			} else if (n < 256) {
				snprintf(f.note, sizeof(f.note),
					 "whole exit; (T(N)-T(0))/N = %.0f ns vs legacy %.0f ns is below the noise of an exit; recovered %u/%u (legacy %u/%u)",
					 median(&pe_ours), median(&pe_anc), d->recovered[m][a], n,
					 d->recovered[MODE_LEGACY][a], n);
			} else {
				snprintf(f.note, sizeof(f.note),
					 "whole exit %.2fx legacy; recovered %u/%u (legacy %u/%u)",
					 median(&total), d->recovered[m][a], n,
					 d->recovered[MODE_LEGACY][a], n);
			}
			emit(&f);
		}
	}
}

/* Request to exit -> last waiter woken. */
static void exit_report_wake(const struct exit_data *d)
{
	struct figure f;

	for (unsigned int a = 1; a < NR_EXIT_N; a++) {
		unsigned int n = exit_ns[a];

		for (int m = MODE_RL2; m < NR_MODES; m++) {
			char item[64];

			snprintf(item, sizeof(item), "last waiter wakes: %s vs legacy", mode_name[m]);
			figure_init(&f, "exit", item, n, "us", 0);
			if (n > LEGACY_LIMIT) {
				for (int r = 0; r < opt_rounds; r++)
					add_round(&f, d->wake[r][m][a] / 1e3, 0);
				f.status = "capped";
				snprintf(f.note, sizeof(f.note),
					 "legacy never recovers entries past %u: their waiters sleep on",
					 LEGACY_LIMIT);
			} else {
				for (int r = 0; r < opt_rounds; r++)
					add_round(&f, d->wake[r][m][a] / 1e3,
						  d->wake[r][MODE_LEGACY][a] / 1e3);
				snprintf(f.note, sizeof(f.note),
					 "%u waiter(s) spread over the list; the last on the last entry walked",
					 n < MAX_WAITERS ? n : MAX_WAITERS);
			}
			emit(&f);
		}
	}
}

void bench_exit(void)
{
	static struct exit_data d;
	struct lock64 *locks;

	progress("exit: walk of N locks at thread exit, legacy list vs 1 and 8 slots");
	pin_to_cpu(0);
	locks = calloc(MAX_LOCKS, sizeof(*locks));
	if (!locks)
		die("out of memory");
	memset(&d, 0, sizeof(d));
	exit_measure(&d, locks);
	if (d.bad_wake)
		progress("exit: WARNING: a waiter was not woken by the walk");
	exit_report_empty(&d);
	exit_report_walk(&d);
	exit_report_wake(&d);
	free(locks);
	pin_to_cpu(-1);
}
