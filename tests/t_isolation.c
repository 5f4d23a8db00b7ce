// SPDX-License-Identifier: GPL-2.0
/*
 * One user's file systems cannot take another user's lock recovery away,
 * and every exit leaves the walk by its deadline (SPEC "Reliability and
 * security"; docs/isolation.md).  Two FUSE mounts of lib/fusesrv.c: a
 * hostile one, whose file "w" has a page under a WRITE that is never
 * answered (a store to it waits in fuse_page_mkwrite()) and whose file
 * "r" is never read (READ never answered, synchronous reads), and a
 * prompt one.  io_wait_ms is 2000 during each case.
 *
 *  - The victim: a process of uid VICTIM holds a robust lock on a page of
 *    the prompt mount (MAP_SHARED, written back, so its store needs
 *    ->page_mkwrite() and the walk a worker), a waiter of the same uid
 *    sleeps on it; the holder is SIGKILLed and the waiter must wake with
 *    FUTEX_OWNER_DIED.  Timed once before the attack (the baseline) and
 *    once during it: at most 1 s more.
 *
 *  - The attack: 400 threads of one uid (8 processes; then 16 of 8 uids),
 *    300 with a lock word on the stuck page and 100 on the unread one,
 *    SIGKILLed together: far more than the account's limit of fault-ins
 *    in flight, and more stuck stores than the 256 items one unbound
 *    workqueue runs at once (the module had one for every user).
 *
 *  - Then: the attackers' accounts hold at most their limit; rmmod is
 *    refused at once, not hung; aborting the hostile connection brings the
 *    module's refcount, the fault-ins in flight and pinned, and the tasks
 *    in D state back to none.
 *
 *  - 400 threads of one process killed at once, each with a lock on a
 *    stuck page first and one on a present shared page second: every
 *    thread leaves its walk by the deadline (the process is reaped within
 *    io_wait_ms of a control run without the stuck pages, plus 1 s), and
 *    every present word is recovered, its waiters woken.
 *
 * Root, /dev/fuse and the module are needed (the VM has them): the cases
 * skip otherwise.  64-bit only (tests/Makefile): the accounts do not
 * depend on the caller's ABI.  RL2_TEST_FILTER runs a subset.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "fusesrv.h"
#include "helpers.h"

#define PARAM		"/sys/module/robust_list2/parameters/"
#define IO_WAIT_MS	2000
#define UID_VICTIM	2000
#define UID_ATTACK	3000
#define SLACK_MS	1000	/* what the victim may lose to an attack */

static struct fs_srv hostile = {
	.fd = -1,
	.mnt = "/tmp/rl2-iso-h",
	.sync_read = true,
	.file = { { "w", FS_NO_WRITE }, { "r", FS_NO_READ } },
};

static struct fs_srv prompt = {
	.fd = -1,
	.mnt = "/tmp/rl2-iso-p",
	.file = { { "p", FS_PROMPT } },
};

static char saved_io_wait[32];
#define MAX_APROC	64
static pid_t apids[MAX_APROC];	/* the attackers, killed by the teardown too */
static int napids;

static int setup(void **state)
{
	saved_io_wait[0] = 0;
	if (geteuid() || !th_have_device())
		return 0;
	if (th_read_file(PARAM "io_wait_ms", saved_io_wait, sizeof(saved_io_wait)) <= 0)
		saved_io_wait[0] = 0;
	hostile.answer_writes = true;	/* until arm_page() */
	if (fs_start(&hostile) || fs_start(&prompt)) {
		fs_stop(&hostile);
		fs_stop(&prompt);
	}
	return 0;
}

static int teardown(void **state)
{
	fs_stop(&hostile);
	fs_stop(&prompt);
	for (int i = 0; i < napids; i++) {
		kill(apids[i], SIGKILL);
		waitpid(apids[i], NULL, 0);
	}
	napids = 0;
	th_kill_kids();
	if (saved_io_wait[0])
		th_write_file(PARAM "io_wait_ms", saved_io_wait);
	return 0;
}

#define NEED_SERVERS()						\
	do {							\
		TH_NEED_ROOT();					\
		if (hostile.fd < 0 || prompt.fd < 0)		\
			skip();	/* no /dev/fuse, or no module */ \
		assert_int_equal(0, th_write_file(PARAM "io_wait_ms", "2000")); \
	} while (0)

/* Map page @index of file @name of @s; the descriptor is closed at once. */
static char *map_file(struct fs_srv *s, const char *name, int prot, int flags, int index,
		      void *at)
{
	char path[128];
	size_t pg = th_page_size();
	int fd = open(fs_path(s, name, path, sizeof(path)), prot & PROT_WRITE ? O_RDWR : O_RDONLY);
	char *p;

	if (fd < 0)
		return NULL;
	p = mmap(at, pg, prot, flags | (at ? MAP_FIXED : 0), fd, (off_t)index * pg);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* Fail with what a child that should be waiting exited with, if it did. */
static void expect_alive(pid_t pid, const char *what)
{
	int st = th_poll_kid(pid, 0);

	if (st != -1)
		fail_msg("%s (pid %d) exited early: status %d", what, (int)pid, st);
}

/* A /proc/.../stat of a task in D state; a stack in exit_mmap(). */
static bool state_d(const char *stat)
{
	const char *p = strrchr(stat, ')');

	return p && p[1] == ' ' && p[2] == 'D';
}

static bool exiting_mm(const char *stack)
{
	return strstr(stack, "exit_mmap");
}

static long refcnt(void)
{
	return th_read_long("/sys/module/robust_list2/refcnt", -1);
}

/* The fault-ins of @uid's account, read by a child that becomes @uid. */
static struct robust_list2_faults *faults_of(uid_t uid)
{
	static struct robust_list2_faults *f;
	pid_t pid;

	if (!f)
		f = th_shared_alloc(sizeof(*f), false);
	assert_non_null(f);
	memset(f, 0xcc, sizeof(*f));
	pid = fork();
	if (pid == 0)
		_exit(th_become(uid) || robust_list2_faults(f) ? 1 : 0);
	assert_int_equal(0, th_wait_child(pid));
	return f;
}

/* ---- the victim ------------------------------------------------------ */

struct victim {
	uint32_t h_ready, w_ready, w_done;
	int32_t err;
	uint32_t off;		/* of its lock on the page */
	uint32_t h_tid, w_tid;
	uint64_t w_uaddr;	/* the waiter's address of the word */
	long t_wake;		/* th_now_ms() when the waiter returned */
	uint32_t word;		/* as the waiter saw it then */
};

static int holder_main(void *p)
{
	struct victim *v = p;
	struct robust_list_head *head = malloc(sizeof(*head));
	char *page;
	struct th_lock64 *l;

	if (!head || th_become(UID_VICTIM))
		return 2;
	page = map_file(&prompt, "p", PROT_READ | PROT_WRITE, MAP_SHARED, 0, NULL);
	if (!page)
		return 3;
	l = (void *)(page + v->off);
	th_list64_init(head, TH_OFF64);
	l->futex = th_gettid();
	th_list64_add(head, l, false);
	v->err = set_robust_list2(head, 0, TH_NATIVE, 0) ? errno : 0;
	/* written back: clean and write-protected, the walk's store needs ->page_mkwrite() */
	if (!v->err && msync(page, th_page_size(), MS_SYNC))
		v->err = errno;
	v->h_tid = th_gettid();
	th_set_flag(&v->h_ready, 1);
	for (int i = 0; i < 600; i++)
		th_sleep_ms(100);
	return 1;
}

static int waiter_main(void *p)
{
	struct victim *v = p;
	uint32_t *w, tid;
	char *page;
	int r;

	if (th_become(UID_VICTIM))
		return 2;
	page = map_file(&prompt, "p", PROT_READ | PROT_WRITE, MAP_SHARED, 0, NULL);
	if (!page || !th_wait_flag(&v->h_ready, 1, TH_TIMEOUT_MS))
		return 3;
	w = (uint32_t *)(page + v->off + TH_OFF64);
	tid = v->h_tid;
	if (!__atomic_compare_exchange_n(w, &tid, tid | FUTEX_WAITERS, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return 4;
	v->w_uaddr = (uintptr_t)w;
	v->w_tid = th_gettid();
	th_set_flag(&v->w_ready, 1);
	do {
		r = th_futex_wait(w, v->h_tid | FUTEX_WAITERS, 10000, false);
	} while (r != -ETIMEDOUT && __atomic_load_n(w, __ATOMIC_SEQ_CST) ==
		 (v->h_tid | FUTEX_WAITERS));
	v->t_wake = th_now_ms();
	v->word = __atomic_load_n(w, __ATOMIC_SEQ_CST);
	th_set_flag(&v->w_done, 1);
	return 0;
}

/*
 * Kill a victim holding a lock at @off of the prompt page; returns the ms
 * from the kill to its waiter's wake-up, the word it saw in *@word.
 */
static long victim_run(uint32_t off, uint32_t *word, const char *when)
{
	struct victim *v = th_shared_alloc(sizeof(*v), false);
	pid_t h, w;
	long t0, ms;

	assert_non_null(v);
	v->off = off;
	h = th_spawn_kid(holder_main, v);
	assert_true(h > 0);
	assert_true(th_wait_flag(&v->h_ready, 1, TH_TIMEOUT_MS));
	assert_int_equal(0, v->err);
	w = th_spawn_kid(waiter_main, v);
	assert_true(w > 0);
	if (!th_wait_flag(&v->w_ready, 1, TH_TIMEOUT_MS))
		expect_alive(w, "the waiter");
	assert_true(v->w_ready);
	assert_int_equal(0, th_wait_futex_sleeper(w, v->w_tid, (void *)(uintptr_t)v->w_uaddr));

	t0 = th_now_ms();
	assert_int_equal(0, kill(h, SIGKILL));
	assert_true(th_wait_flag(&v->w_done, 1, 15000));
	ms = v->t_wake - t0;
	*word = v->word;
	print_message("# victim (uid %d) %s: kill -> waiter awake %ld ms, word 0x%08x%s\n",
		      UID_VICTIM, when, ms, v->word,
		      v->word & FUTEX_OWNER_DIED ? " (OWNER_DIED)" : " (lock lost)");
	assert_int_equal(128 + SIGKILL, th_poll_kid(h, 10000));
	assert_int_equal(0, th_reap_kid(w, 5000));
	th_free(v, sizeof(*v));
	return ms;
}

/* ---- the attackers --------------------------------------------------- */

struct attack {
	uint32_t ready;		/* threads registered, all processes */
	uint32_t errors;
	uint32_t nthreads;
};

struct athread {
	struct attack *a;
	uint32_t *word;		/* on the stuck page, or the unread one */
	bool store;		/* own it: write the TID (the stuck page) */
};

static void *athread_main(void *p)
{
	struct athread *t = p;
	struct robust_list_head *head = malloc(sizeof(*head));
	struct robust_list *node = malloc(sizeof(*node));

	if (!head || !node) {
		__atomic_add_fetch(&t->a->errors, 1, __ATOMIC_SEQ_CST);
	} else {
		if (t->store)
			*t->word = th_gettid();
		/* one entry; its word sits wherever the offset says */
		head->list.next = node;
		node->next = &head->list;
		head->futex_offset = (long)((char *)t->word - (char *)node);
		head->list_op_pending = NULL;
		if (set_robust_list2(head, 0, TH_NATIVE, 0))
			__atomic_add_fetch(&t->a->errors, 1, __ATOMIC_SEQ_CST);
	}
	__atomic_add_fetch(&t->a->ready, 1, __ATOMIC_SEQ_CST);
	th_futex_wake(&t->a->ready, 1, false);
	for (;;)
		pause();
	return NULL;
}

struct aproc {
	struct attack *a;
	uid_t uid;
	uint32_t first;		/* index of its first word */
};

/* Threads whose word is on the unread page: every fourth. */
static int aproc_main(void *p)
{
	struct aproc *ap = p;
	struct attack *a = ap->a;
	struct athread t[64];
	char *w, *r;

	if (th_become(ap->uid) || a->nthreads > 64)
		return 2;
	w = map_file(&hostile, "w", PROT_READ | PROT_WRITE, MAP_SHARED, 0, NULL);
	r = map_file(&hostile, "r", PROT_READ, MAP_SHARED, 1, NULL);
	if (!w || !r)
		return 3;
	for (uint32_t i = 0; i < a->nthreads; i++) {
		pthread_t th;
		pthread_attr_t attr;
		uint32_t k = ap->first + i;

		t[i].a = a;
		t[i].store = k % 4 != 3;
		t[i].word = (uint32_t *)((t[i].store ? w : r) + 4 * (k % 1024));
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		if (pthread_create(&th, &attr, athread_main, &t[i]))
			__atomic_add_fetch(&a->errors, 1, __ATOMIC_SEQ_CST);
	}
	for (;;)
		pause();
	return 1;
}

/*
 * The WRITE of page @page of "w", never answered: the page stays under
 * writeback.  The server answered the WRITEs before (FUSE's strict dirty
 * limit may write the attackers' stores back early).
 */
static void arm_page(uint32_t page)
{
	assert_int_equal(0, fs_hold_write(&hostile, "w", page, robust_list2_fd()));
}

/*
 * @nuids users, @nproc processes of @nthreads threads each, every thread
 * with one word on the stuck page or the unread one, all SIGKILLed once
 * the page is under its WRITE.
 */
static long attack(int nuids, int nproc, uint32_t nthreads)
{
	struct attack *a = th_shared_alloc(sizeof(*a), false);
	struct aproc *ap = th_shared_alloc(sizeof(*ap) * nproc, false);
	uint32_t want = nproc * nthreads, seen;
	long t0, deadline = th_now_ms() + 120000;

	assert_true(a && ap);
	a->nthreads = nthreads;
	for (int i = 0; i < nproc; i++) {
		ap[i] = (struct aproc){ .a = a, .uid = UID_ATTACK + i % nuids,
					.first = i * nthreads };
		apids[i] = fork();	/* not th_spawn_kid(): more than it tracks */
		assert_true(apids[i] >= 0);
		if (apids[i] == 0)
			_exit(aproc_main(&ap[i]));
		napids = i + 1;
	}
	while ((seen = __atomic_load_n(&a->ready, __ATOMIC_SEQ_CST)) < want &&
	       th_now_ms() < deadline)
		th_futex_wait(&a->ready, seen, 100, false);
	print_message("# %u of %u attacking threads registered in %ld ms\n", a->ready, want,
		      th_now_ms() - (deadline - 120000));
	assert_int_equal(want, a->ready);
	assert_int_equal(0, a->errors);

	arm_page(0);
	t0 = th_now_ms();
	for (int i = 0; i < nproc; i++)
		assert_int_equal(0, kill(apids[i], SIGKILL));
	print_message("# %u threads of %d uid(s) killed, words on a page under a WRITE that "
		      "is never answered and on a page never read\n", want, nuids);
	return t0;
}

enum { REAPED = 1, IN_EXIT_MMAP };

/*
 * Wait until every thread of the SIGKILLed attacker @pid is past its walk:
 * REAPED, or IN_EXIT_MMAP: the mm's last reference is gone, which happens
 * only after each thread's exit_mm() (our walk runs at its start) and after
 * any of our workers let go of it.  The kernel's exit_mmap() then closes
 * the shared writable mapping of "w": FUSE writes the inode back and,
 * on kernels whose FUSE keeps a page under writeback until the server
 * answers (7.2; 6.12 copies it to a temporary page), waits for the WRITE
 * that never comes.  That is the kernel's own release, after ours, with
 * or without the module (docs/isolation.md).  -1 after @timeout_ms.
 */
static int past_walks(pid_t pid, int timeout_ms)
{
	long deadline = th_now_ms() + timeout_ms;
	int st;

	do {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? REAPED : -2;
		if (th_count_tasks(pid, "stack", exiting_mm))
			return IN_EXIT_MMAP;
		th_sleep_ms(5);
	} while (th_now_ms() < deadline);
	return -1;
}

/* After the hostile connection is aborted: everything back to nothing. */
static void settle(long r0)
{
	struct robust_list2_stats st;
	long deadline, r;
	int d = -1;

	fs_abort(&hostile);
	fs_end_hold(&hostile);	/* its close may have waited for the WRITE */
	for (int i = 0; i < napids; i++)	/* those that waited in exit_mmap() */
		assert_int_equal(128 + SIGKILL, th_poll_kid(apids[i], 10000));
	napids = 0;
	deadline = th_now_ms() + 10000;
	do {
		memset(&st, 0xcc, sizeof(st));
		assert_int_equal(0, robust_list2_stats(&st));
		r = refcnt();
		d = th_count_tasks(0, "stat", state_d);
		if (r == r0 && !st.faults_in_flight && !st.faults_pinned && !d)
			break;
		th_sleep_ms(50);
	} while (th_now_ms() < deadline);
	print_message("# connection aborted: refcount %ld (%ld before), fault-ins in flight "
		      "%llu, pinned %llu, tasks in D state %d\n", r, r0,
		      (unsigned long long)st.faults_in_flight,
		      (unsigned long long)st.faults_pinned, d);
	assert_int_equal(r0, r);
	assert_int_equal(0, st.faults_in_flight);
	assert_int_equal(0, st.faults_pinned);
	assert_int_equal(0, d);
}

static void attack_and_check(int nuids, int nproc, uint32_t nthreads)
{
	struct robust_list2_faults *f;
	struct robust_list2_stats st;
	uint32_t word, in_flight = 0, pinned = 0;
	long base, during, r0, t0, ms;
	int ret, parked = 0;

	NEED_SERVERS();
	assert_true(nproc <= MAX_APROC);
	assert_int_equal(0, robust_list2_stats(&st));	/* opens our descriptor first */
	r0 = refcnt();

	base = victim_run(0, &word, "before the attack");
	assert_true(word & FUTEX_OWNER_DIED);

	t0 = attack(nuids, nproc, nthreads);
	th_sleep_ms(300);	/* the attackers' exits are in their walks */
	during = victim_run(256, &word, "during the attack");
	assert_true(word & FUTEX_OWNER_DIED);
	assert_true(during <= base + SLACK_MS);

	/* the attackers' own walks end by their deadline, stuck faults or not */
	for (int i = 0; i < nproc; i++) {
		ret = past_walks(apids[i], IO_WAIT_MS + 10000);
		assert_true(ret == REAPED || ret == IN_EXIT_MMAP);
		if (ret == IN_EXIT_MMAP)
			apids[parked++] = apids[i];	/* reaped once the connection is aborted */
	}
	ms = th_now_ms() - t0;
	print_message("# every attacker past its walks %ld ms after the kill (io_wait_ms %d): "
		      "%d reaped, %d in the kernel's exit_mmap() waiting for its server\n", ms,
		      IO_WAIT_MS, nproc - parked, parked);
	napids = parked;
	assert_true(ms <= IO_WAIT_MS + 8 * SLACK_MS);	/* never held in D (debug kernels are slow) */

	/* each attacking account holds no more than its limit, all of it pinned now */
	for (int u = 0; u < nuids; u++) {
		f = faults_of(UID_ATTACK + u);
		print_message("# uid %d: %u fault-ins in flight, %u pinned (limit %u, %u per mm)\n",
			      UID_ATTACK + u, f->in_flight, f->pinned, f->per_user, f->per_mm);
		assert_true(f->in_flight >= 1);
		assert_true(f->in_flight <= f->per_user);
		assert_int_equal(f->in_flight, f->pinned);
		in_flight += f->in_flight;
		pinned += f->pinned;
	}
	memset(&st, 0xcc, sizeof(st));
	assert_int_equal(0, robust_list2_stats(&st));
	assert_int_equal(in_flight, st.faults_in_flight);
	assert_int_equal(pinned, st.faults_pinned);

	/*
	 * Only the stuck fault-ins hold the module, and the descriptor the
	 * attackers inherited may too while one is in exit_mmap(); rmmod is
	 * refused at once, never hung.
	 */
	close(robust_list2_fd());	/* the library opens it again when asked */
	ret = refcnt();
	assert_true(ret >= (long)pinned && ret <= (long)pinned + (parked > 0));
	t0 = th_now_ms();
	ret = syscall(SYS_delete_module, "robust_list2", O_NONBLOCK);
	assert_int_equal(-1, ret);
	assert_true(errno == EWOULDBLOCK || errno == EBUSY);
	print_message("# rmmod with %u fault-ins stuck: refused in %ld ms (%s)\n", pinned,
		      th_now_ms() - t0, strerror(errno));
	assert_true(th_now_ms() - t0 < 1000);

	settle(r0);
}

/*
 * 400 threads, 300 of them with a stuck store: more than the 256 items
 * one unbound workqueue runs at once.
 */
static void test_stuck_faults_of_one_user_spare_another(void **state)
{
	attack_and_check(1, 8, 50);	/* 8 processes: twice the account's limit of mms */
}

static void test_eight_attacking_users(void **state)
{
	attack_and_check(8, 16, 25);
}

/* ---- 400 threads, one deadline --------------------------------------- */

#define NT	400

struct mass {
	uint32_t ready;
	uint32_t errors;
	bool stuck;		/* a first entry on the stuck pages */
	int memfd;		/* the present shared page(s) */
};

struct mthread {
	struct mass *m;
	uint32_t i;
	char *nodes;		/* two private pages: node, then node + page */
	char *stuck;		/* the stuck page; the present one right after */
};

/*
 * Thread i's list: a node whose word is word i of the stuck page, then a
 * node one page further, whose word (the same offset) is word i of the
 * present page right after it.  The stuck entry comes first.
 */
static void *mthread_main(void *p)
{
	struct mthread *t = p;
	size_t pg = th_page_size();
	struct robust_list_head *head = malloc(sizeof(*head));
	struct robust_list *n1 = (struct robust_list *)t->nodes + t->i;
	struct robust_list *n2 = (void *)((char *)n1 + pg);
	uint32_t *sw = (uint32_t *)(t->stuck + 4 * t->i), *pw = (uint32_t *)((char *)sw + pg);
	uint32_t tid = th_gettid();

	if (!head) {
		__atomic_add_fetch(&t->m->errors, 1, __ATOMIC_SEQ_CST);
		goto out;
	}
	if (t->m->stuck && t->i % 2 == 0)
		*sw = tid;		/* the page under WRITE: own it, the store waits */
	*pw = tid;
	head->futex_offset = (long)((char *)sw - (char *)n1);
	head->list_op_pending = NULL;
	head->list.next = t->m->stuck ? n1 : n2;
	n1->next = n2;
	n2->next = &head->list;
	if (set_robust_list2(head, 0, TH_NATIVE, 0))
		__atomic_add_fetch(&t->m->errors, 1, __ATOMIC_SEQ_CST);
out:
	__atomic_add_fetch(&t->m->ready, 1, __ATOMIC_SEQ_CST);
	th_futex_wake(&t->m->ready, 1, false);
	for (;;)
		pause();
	return NULL;
}

static int mass_main(void *p)
{
	struct mass *m = p;
	size_t pg = th_page_size();
	static struct mthread t[NT];
	char *z[2], *nodes;

	/* two layouts: [stuck "w" page | present page 0], [unread "r" page | present page 1] */
	nodes = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (nodes == MAP_FAILED)
		return 2;
	for (int k = 0; k < 2; k++) {
		z[k] = mmap(NULL, 2 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (z[k] == MAP_FAILED ||
		    mmap(z[k] + pg, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, m->memfd,
			 k * pg) == MAP_FAILED)
			return 3;
		if (!m->stuck)
			continue;
		if (!map_file(&hostile, k ? "r" : "w", PROT_READ | PROT_WRITE, MAP_SHARED, k ? 2 : 1,
			      z[k]))
			return 4;
	}
	for (uint32_t i = 0; i < NT; i++) {
		pthread_t th;
		pthread_attr_t attr;

		/* nodes of both layouts interleave, 8 bytes each: 400 fit a page */
		t[i] = (struct mthread){ .m = m, .i = i, .nodes = nodes, .stuck = z[i % 2] };
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 64 * 1024);
		if (pthread_create(&th, &attr, mthread_main, &t[i]))
			__atomic_add_fetch(&m->errors, 1, __ATOMIC_SEQ_CST);
	}
	for (;;)
		pause();
	return 1;
}

/* kill -> waitpid of the 400 threads, in ms; the present words checked. */
static long mass_run(bool stuck, int memfd, uint32_t *words, int *recovered)
{
	struct mass *m = th_shared_alloc(sizeof(*m), false);
	struct th_waiter w[16];
	uint32_t seen;
	long t0, ms, deadline = th_now_ms() + 120000;
	pid_t pid;

	assert_non_null(m);
	memset(words, 0, 2 * th_page_size());
	m->stuck = stuck;
	m->memfd = memfd;
	pid = th_spawn_kid(mass_main, m);
	assert_true(pid > 0);
	while ((seen = __atomic_load_n(&m->ready, __ATOMIC_SEQ_CST)) < NT && th_now_ms() < deadline) {
		expect_alive(pid, "the 400 threads' process");
		th_futex_wait(&m->ready, seen, 100, false);
	}
	assert_int_equal(NT, m->ready);
	assert_int_equal(0, m->errors);
	if (stuck)
		arm_page(1);	/* the "w" page the 400 threads use */
	/* 16 waiters, on every 25th present word */
	for (int k = 0; k < 16; k++) {
		uint32_t i = 25 * k, *pw = (uint32_t *)((char *)words + (i % 2) * th_page_size()) + i;
		uint32_t v = *pw;

		assert_true(__atomic_compare_exchange_n(pw, &v, v | FUTEX_WAITERS, false,
							__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
		w[k] = (struct th_waiter){ .uaddr = pw, .val = v | FUTEX_WAITERS,
					   .timeout_ms = 15000 };
		assert_int_equal(0, th_waiter_start(&w[k]));
		assert_int_equal(0, th_wait_futex_sleeper(getpid(), w[k].tid, pw));
	}
	t0 = th_now_ms();
	assert_int_equal(0, kill(pid, SIGKILL));
	assert_int_equal(128 + SIGKILL, th_poll_kid(pid, 30000));
	ms = th_now_ms() - t0;
	*recovered = 0;
	for (uint32_t i = 0; i < NT; i++) {
		uint32_t *pw = (uint32_t *)((char *)words + (i % 2) * th_page_size()) + i;

		*recovered += !!(*pw & FUTEX_OWNER_DIED);
	}
	for (int k = 0; k < 16; k++) {
		th_waiter_join(&w[k]);
		assert_int_equal(0, w[k].result);	/* woken, not timed out */
	}
	th_free(m, sizeof(*m));
	return ms;
}

static void test_400_threads_leave_by_the_deadline(void **state)
{
	size_t pg = th_page_size();
	int memfd, recovered;
	uint32_t *words;
	long control, ms;

	NEED_SERVERS();
	memfd = memfd_create("rl2-present", MFD_CLOEXEC);
	assert_true(memfd >= 0);
	assert_int_equal(0, ftruncate(memfd, 2 * pg));
	words = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	assert_true(words != MAP_FAILED);

	control = mass_run(false, memfd, words, &recovered);
	print_message("# %d threads killed, present words only: reaped in %ld ms, %d of %d "
		      "recovered\n", NT, control, recovered, NT);
	assert_int_equal(NT, recovered);
	ms = mass_run(true, memfd, words, &recovered);
	print_message("# %d threads killed, a stuck word first (io_wait_ms %d): reaped in %ld ms "
		      "(bound %ld), %d of %d present words recovered\n", NT, IO_WAIT_MS, ms,
		      IO_WAIT_MS + control + SLACK_MS, recovered, NT);
	assert_int_equal(NT, recovered);
	assert_true(ms <= IO_WAIT_MS + control + SLACK_MS);
	munmap(words, 2 * pg);
	close(memfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stuck_faults_of_one_user_spare_another,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_eight_attacking_users, setup, teardown),
		cmocka_unit_test_setup_teardown(test_400_threads_leave_by_the_deadline,
						setup, teardown),
	};

	TH_MODULE_ONLY_SUITE("accounts, workers and the exit deadline are the module's");
	if (getenv("RL2_TEST_FILTER"))
		cmocka_set_test_filter(getenv("RL2_TEST_FILTER"));
	return cmocka_run_group_tests_name("isolation", tests, NULL, NULL);
}
