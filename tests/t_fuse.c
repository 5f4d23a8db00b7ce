// SPDX-License-Identifier: GPL-2.0
/*
 * Robust lists on files whose I/O never completes, served by the minimal
 * FUSE server of lib/fusesrv.c, a fresh mount for each case.  A child
 * registers a list there, is SIGKILLed, and its exit walk needs that I/O.
 * (t_fuse_read.c has the reads that block in the file system,
 * t_isolation.c what one user's stuck file system does to another user.)
 *
 *  - Reads (files "f", "g"): READ is never answered.  Ours has a worker of
 *    the child's user take the fault and gives up on that list at the
 *    exit's deadline (module/uaccess.c, io_wait_ms, 10 s): the child is
 *    reaped, and the hung-task detector, set to 5 s, reports nothing (the
 *    walk sleeps in short steps and holds no lock meanwhile).
 *    The control, the same head as the legacy list: measured on Debian's
 *    6.12.95, the kernel's walk stays in D state for good (futex_cleanup
 *    -> get_user -> filemap_fault -> folio_wait_bit_common, TASK_KILLABLE,
 *    but get_signal() took SIGKILL off the dying thread's own pending set).
 *
 *  - Writes (files "w", "x"): READ is answered, WRITE never.  The child
 *    writes its lock into a shared writable mapping of the file and a
 *    holder process it forked starts writeback (sync_file_range()): the
 *    page is clean and write-protected, and until the WRITE is answered a
 *    store to it waits, uninterruptibly, in fuse_page_mkwrite() ->
 *    fuse_wait_on_page_writeback().  The child closed its descriptor
 *    before writing, and the server opens files with FOPEN_NOFLUSH
 *    (5.16 on): otherwise the exit's close of the file would wait for that
 *    WRITE in fuse_flush(), whatever the walk did.  The walk's
 *    compare-exchange needs that write fault.  Ours hands it to a worker
 *    (module/fault_work.c) and waits for it only until the deadline: the
 *    child is reaped, the word given up (io_timeouts), the module pinned
 *    while the worker waits (faults_pinned).  The control in the same
 *    case, the legacy list, stays in D state until the case aborts the
 *    connection.
 *
 *  - The deadline is wall time from the walk's start (file "s"): a walk of
 *    walk_limit - 1 present entries that takes longer than io_wait_ms,
 *    then an entry on a page that needs a READ: the present ones are all
 *    recovered, the last is given up without a READ even being asked for.
 *    io_wait_ms is set from a measurement of the walk on this machine (a
 *    third of it), so the walk outlasts it.
 *
 * Needs /dev/fuse (CONFIG_FUSE_FS=y on Debian's 6.12 and 7.2; on 5.10 and
 * 6.1 fuse.ko, which scripts/fetch-kernel takes from the image package and
 * the VM loads at boot): skipped without it.
 * RL2_TEST_FILTER runs a subset (cmocka_set_test_filter()).
 */
#include <dirent.h>
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
#include <linux/fuse.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "fusesrv.h"
#include "helpers.h"

#define MAP_LEN		4096	/* what a case maps of a file */
#define PARAM_IO_WAIT	"/sys/module/robust_list2/parameters/io_wait_ms"
#define HUNG_TIMEOUT	"/proc/sys/kernel/hung_task_timeout_secs"

/* One file per use: a page left locked or under writeback stays so. */
static struct fs_srv srv = {
	.fd = -1,
	.mnt = "/tmp/rl2-fuse",
	.file = {
		{ "f", FS_NO_READ }, { "g", FS_NO_READ },
		{ "w", FS_NO_WRITE }, { "x", FS_NO_WRITE },
		{ "s", FS_SLOW },
	},
};
#define MNT	"/tmp/rl2-fuse"

/* What file "s" holds: one list entry, served after a delay. */
struct slow_page {
	uint64_t next;		/* the head, as a native pointer */
	uint32_t tid;		/* the word at TH_OFF64 */
	int delay_ms;
};

static void slow_fill(struct fs_srv *s, char *page, size_t len)
{
	struct slow_page *sp = s->slow_arg;

	th_sleep_ms(sp->delay_ms);
	memcpy(page, &sp->next, sizeof(void *));
	memcpy(page + TH_OFF64, &sp->tid, sizeof(sp->tid));
}

static char saved_io_wait[32];

/* A fresh mount for each case; every case skips without /dev/fuse. */
static int srv_start(void **state)
{
	saved_io_wait[0] = 0;
	srv.slow = NULL;
	if (fs_start(&srv))
		fs_stop(&srv);
	return 0;
}

static void srv_release(void)
{
	fs_stop(&srv);
}

/* The write cases' file holders (struct kid), killed with the server gone. */
static pid_t holders[8];

static void kill_holders(void)
{
	for (unsigned int i = 0; i < sizeof(holders) / sizeof(holders[0]); i++)
		if (holders[i] > 0) {
			kill(holders[i], SIGKILL);
			holders[i] = 0;
		}
}

/* Release the server first: a child stuck in its I/O can only die then. */
static int srv_stop(void **state)
{
	srv_release();
	kill_holders();
	th_kill_kids();
	th_write_file(HUNG_TIMEOUT, "120");
	if (saved_io_wait[0])
		th_write_file(PARAM_IO_WAIT, saved_io_wait);
	return 0;
}

/* The state letter of /proc/<pid>/stat ('D': uninterruptible), or '?'. */
static char proc_state(pid_t pid)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (th_read_file(path, buf, sizeof(buf)) <= 0 || !(p = strrchr(buf, ')')))
		return '?';
	return p[1] == ' ' ? p[2] : '?';
}

/* Where each thread of a child that did not die is, for the failure's record. */
static void print_stacks(pid_t pid)
{
	char path[320], buf[2048];
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stack", pid, d->d_name);
		if (th_read_file(path, buf, sizeof(buf)) > 0)
			print_message("# thread %s of %d:\n%s", d->d_name, pid, buf);
	}
	closedir(dir);
}

static long module_refcnt(void)
{
	return th_read_long("/sys/module/robust_list2/refcnt", -1);
}

/* The module's io_wait_ms as text, or "absent" (a module without it). */
static const char *io_wait_ms_now(void)
{
	static char buf[32];
	char *nl;

	if (th_read_file(PARAM_IO_WAIT, buf, sizeof(buf)) <= 0)
		return "absent";
	nl = strchr(buf, '\n');
	if (nl)
		*nl = 0;
	return buf;
}

/* Poll until the module's refcount is @want, at most @ms; the last value. */
static long refcnt_settles(long want, int ms)
{
	long deadline = th_now_ms() + ms, n;

	while ((n = module_refcnt()) != want && th_now_ms() < deadline)
		th_sleep_ms(20);
	return n;
}

static void read_stats(struct robust_list2_stats *st)
{
	memset(st, 0xcc, sizeof(*st));
	assert_int_equal(0, robust_list2_stats(st));
}

struct kid {
	uint32_t ready;
	int32_t err;
	int32_t holder;		/* the write case: who keeps the file open */
	uint32_t sync, synced;	/* kid -> holder: write it back; holder: done */
	bool legacy;
	bool write;		/* the write case: files "w", "x" */
};

static int register_list(struct kid *k, struct robust_list_head *head)
{
	if (k->legacy)
		return syscall(SYS_set_robust_list, head, sizeof(*head)) ? errno : 0;
	return set_robust_list2(head, 0, TH_NATIVE, 0) ? errno : 0;
}

/*
 * The write case's file holder: it keeps the file open and starts its
 * writeback once the kid has written its lock, so that the kid itself has
 * no descriptor of the file when it dies.  Every close of the file waits in
 * fuse_flush() for a WRITE that is never answered, whatever the walk did;
 * FOPEN_NOFLUSH (FUSE 7.35, Linux 5.16) spares newer kernels that, not
 * 5.10.  The case kills the holder once the server is gone.
 */
static void holder_main(struct kid *k, int fd)
{
	th_wait_flag(&k->sync, 1, TH_TIMEOUT_MS);
	/*
	 * Write the page back: the server never answers that WRITE, so the
	 * page stays clean and write-protected, and the next store to it
	 * waits in fuse_page_mkwrite() until the WRITE is answered.
	 */
	if (sync_file_range(fd, 0, MAP_LEN, SYNC_FILE_RANGE_WRITE))
		k->err = errno;
	th_set_flag(&k->synced, 1);
	for (int i = 0; i < 600; i++)
		th_sleep_ms(100);
	_exit(0);
}

static int kid_main(void *p)
{
	struct kid *k = p;
	const char *file = k->write ? (k->legacy ? MNT "/x" : MNT "/w") :
				      (k->legacy ? MNT "/g" : MNT "/f");
	int fd = open(file, k->write ? O_RDWR : O_RDONLY);
	char *page;

	if (fd < 0)
		return 2;
	page = mmap(NULL, MAP_LEN, k->write ? PROT_READ | PROT_WRITE : PROT_READ,
		    MAP_SHARED, fd, 0);
	if (page == MAP_FAILED)
		return 3;
	if (k->write) {
		/* head and lock on the page (its READ is answered) */
		struct robust_list_head *head = (void *)page;
		struct th_lock64 *l = (void *)(page + 64);
		pid_t h = fork();

		if (h == 0)
			holder_main(k, fd);
		if (h < 0)
			return 4;
		k->holder = h;
		close(fd);	/* the page is clean: nothing to flush yet */
		th_list64_init(head, TH_OFF64);
		l->futex = th_gettid();
		th_list64_add(head, l, false);
		k->err = register_list(k, head);
		th_set_flag(&k->sync, 1);
		if (!th_wait_flag(&k->synced, 1, TH_TIMEOUT_MS) && !k->err)
			k->err = ETIMEDOUT;
	} else {
		/* registration reads nothing; the exit walk is the first access */
		k->err = register_list(k, (void *)page);
	}
	th_set_flag(&k->ready, 1);
	for (int i = 0; i < 600; i++)
		th_sleep_ms(100);
	return 1;
}

static struct kid *kill_kid(bool legacy, bool write, pid_t *pid)
{
	struct kid *k = th_shared_alloc(sizeof(*k), false);
	int writes = srv.writes;

	assert_non_null(k);
	k->legacy = legacy;
	k->write = write;
	*pid = th_spawn_kid(kid_main, k);
	assert_true(*pid > 0);
	assert_true(th_wait_flag(&k->ready, 1, TH_TIMEOUT_MS));
	for (unsigned int i = 0; k->holder > 0 && i < sizeof(holders) / sizeof(holders[0]); i++)
		if (!holders[i]) {
			holders[i] = k->holder;
			break;
		}
	assert_int_equal(0, k->err);
	/* the server has the WRITE: the page is write-protected now */
	for (int i = 0; write && i < 500 && srv.writes == writes; i++)
		th_sleep_ms(10);
	if (write)
		assert_true(srv.writes > writes);
	assert_int_equal(0, kill(*pid, SIGKILL));
	return k;
}

static int kmsg_has(int fd, const char *needle)
{
	char rec[2048];
	ssize_t n;
	int found = 0;

	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = 0;
		if (strstr(rec, needle))
			found = 1;
	}
	return found;
}

/*
 * The 64-bit program runs the two never-answered cases with the default
 * budget (10 s); the 32-bit one -- its own walk and fault paths, the same
 * budget code -- with 2 s, restored by srv_stop(): 16 s less per kernel.
 */
static void compat_short_budget(void)
{
	if (sizeof(long) == 8)
		return;
	if (th_read_file(PARAM_IO_WAIT, saved_io_wait, sizeof(saved_io_wait)) <= 0) {
		saved_io_wait[0] = 0;
		fail_msg("no %s", PARAM_IO_WAIT);
	}
	assert_int_equal(0, th_write_file(PARAM_IO_WAIT, "2000"));
}

/*
 * The native kernel walks the slots as it walks the legacy list: it
 * faults the page in, in the dying thread, and waits for the READ
 * (kernel-series/README.md, differences).  So the slot list behaves as
 * the control below does: still in D state 3 s after SIGKILL, reaped once
 * the connection is aborted.
 */
static void native_slot_list_waits_like_legacy(void)
{
	int status, reads = srv.reads;
	struct kid *k;
	pid_t pid;

	k = kill_kid(false, false, &pid);
	status = th_poll_kid(pid, 3000);
	print_message("# native kernel: the slot list's walk %s 3 s after SIGKILL\n",
		      status < 0 ? "still waits for the READ" : "ended");
	assert_int_equal(-1, status);
	assert_int_equal('D', proc_state(pid));
	assert_true(srv.reads > reads);
	srv_release();
	assert_int_equal(128 + SIGKILL, th_poll_kid(pid, 10000));
	th_free(k, sizeof(*k));
}

static void test_slot_list_on_unreadable_file_dies(void **state)
{
	int kmsg, status, reads = srv.reads;
	struct kid *k;
	long t0, ms;
	pid_t pid;

	if (srv.fd < 0)
		skip();
	if (th_native()) {
		native_slot_list_waits_like_legacy();
		return;
	}
	compat_short_budget();
	assert_int_equal(0, th_write_file(HUNG_TIMEOUT, "5"));
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(kmsg >= 0);
	lseek(kmsg, 0, SEEK_END);

	t0 = th_now_ms();
	k = kill_kid(false, false, &pid);
	/* 10 s of I/O wait, then the rest of the exit; past 5 s had it hung */
	status = th_poll_kid(pid, 20000);
	ms = th_now_ms() - t0;
	print_message("# robust_list2 list on an unreadable FUSE file: kill -> waitpid %ld ms "
		      "(io_wait_ms %s), %d READ requests left unanswered\n", ms,
		      io_wait_ms_now(), srv.reads - reads);
	assert_int_equal(128 + SIGKILL, status);
	assert_true(srv.reads > reads);		/* the walk did try to read it */
	assert_false(kmsg_has(kmsg, "blocked for more than"));
	close(kmsg);
	th_free(k, sizeof(*k));
}

static void test_legacy_list_control(void **state)
{
	int status, reads = srv.reads;
	struct kid *k;
	long t0;
	pid_t pid;

	if (srv.fd < 0)
		skip();
	k = kill_kid(true, false, &pid);
	t0 = th_now_ms();
	status = th_poll_kid(pid, 3000);
	if (status == 128 + SIGKILL)
		print_message("# control: the kernel's walk of the legacy list: reaped in %ld ms\n",
			      th_now_ms() - t0);
	else
		print_message("# control: the kernel's walk of the legacy list: still in D state "
			      "3 s after SIGKILL (the kernel's own limitation)\n");
	assert_true(srv.reads > reads);
	/* abort the connection: the READ fails, a stuck walk ends */
	srv_release();
	if (status != 128 + SIGKILL)
		status = th_poll_kid(pid, 10000);
	assert_int_equal(128 + SIGKILL, status);
	th_free(k, sizeof(*k));
}

/*
 * The write fault never completes.  Ours: reaped within the I/O budget,
 * the word given up and counted, the module pinned by the worker still in
 * fuse_page_mkwrite() until the connection goes.  The control, the same
 * lock on the legacy list: the kernel's walk in D state until then.
 */
static void test_slot_word_whose_write_fault_never_completes(void **state)
{
	struct robust_list2_stats st0, st1;
	struct kid *k, *kc;
	int status, writes;
	long t0, ms, r0, r;
	pid_t pid, cpid;
	char cstate;

	if (srv.fd < 0)
		skip();
	TH_NATIVE_DIFFERS("no deadline: the walk waits for the write fault as the legacy one does");
	compat_short_budget();
	read_stats(&st0);	/* opens the device: our own file is in r0 */
	r0 = module_refcnt();
	assert_true(r0 >= 0);

	writes = srv.writes;
	t0 = th_now_ms();
	k = kill_kid(false, true, &pid);
	status = th_poll_kid(pid, 20000);
	ms = th_now_ms() - t0;
	if (status == 128 + SIGKILL) {
		print_message("# robust_list2 word whose write fault never completes: kill -> "
			      "waitpid %ld ms (io_wait_ms %s), %d WRITE requests left "
			      "unanswered\n", ms, io_wait_ms_now(), srv.writes - writes);
	} else {
		print_message("# robust_list2 word whose write fault never completes: state %c "
			      "%ld ms after SIGKILL (io_wait_ms %s)\n", proc_state(pid), ms,
			      io_wait_ms_now());
		print_stacks(pid);
	}
	assert_int_equal(128 + SIGKILL, status);
	read_stats(&st1);
	print_message("# io_timeouts +%llu, faults +%llu, recovered +%llu\n",
		      (unsigned long long)(st1.io_timeouts - st0.io_timeouts),
		      (unsigned long long)(st1.faults - st0.faults),
		      (unsigned long long)(st1.recovered - st0.recovered));
	assert_int_equal(1, st1.io_timeouts - st0.io_timeouts);
	assert_int_equal(0, st1.recovered - st0.recovered);
	/* the worker runs on alone, pinning the dead child's memory */
	assert_int_equal(1, st1.faults_in_flight);
	assert_int_equal(1, st1.faults_pinned);
	/* the child's file and record are gone; the waiting worker pins us */
	r = refcnt_settles(r0 + 1, 3000);
	print_message("# module refcount %ld with the worker waiting (%ld before)\n", r, r0);
	assert_int_equal(r0 + 1, r);

	kc = kill_kid(true, true, &cpid);
	t0 = th_now_ms();
	status = th_poll_kid(cpid, 3000);
	cstate = proc_state(cpid);
	if (status == 128 + SIGKILL)
		print_message("# control: the kernel's walk of the legacy list: reaped in %ld ms\n",
			      th_now_ms() - t0);
	else
		print_message("# control: the kernel's walk of the legacy list: state %c 3 s after "
			      "SIGKILL (the kernel's own limitation)\n", cstate);
	/* the control proves the case: the kernel's own walk is held there */
	assert_int_equal(-1, status);
	assert_int_equal('D', cstate);

	/* abort the connection: the WRITEs fail, fuse_page_mkwrite() returns */
	srv_release();
	kill_holders();
	status = th_poll_kid(cpid, 10000);
	assert_int_equal(128 + SIGKILL, status);
	r = refcnt_settles(r0, 5000);
	print_message("# module refcount %ld once the worker finished\n", r);
	assert_int_equal(r0, r);
	read_stats(&st1);
	assert_int_equal(0, st1.faults_in_flight);
	assert_int_equal(0, st1.faults_pinned);
	th_free(k, sizeof(*k));
	th_free(kc, sizeof(*kc));
}

enum bmode { B_EMPTY, B_LIST, B_LIST_SLOW };

struct bkid {
	uint32_t ready;
	int32_t err;
	enum bmode mode;
	uint32_t n;		/* present entries */
	struct slow_page slow;	/* out, for the server */
};

/*
 * @n present locks held (words = TID), in private memory the child wrote;
 * B_EMPTY registers an empty list beside the same memory (the cost of the
 * exit without the walk), B_LIST_SLOW adds a last entry on file "s".
 */
static int bkid_main(void *p)
{
	struct bkid *k = p;
	struct robust_list_head *head = malloc(sizeof(*head));
	struct th_lock64 *l = mmap(NULL, (size_t)k->n * sizeof(*l), PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct robust_list *last = &head->list;
	uint32_t tid = th_gettid();

	if (!head || l == MAP_FAILED)
		return 2;
	th_list64_init(head, TH_OFF64);
	for (uint32_t i = 0; i < k->n; i++) {
		l[i].futex = tid;
		last->next = &l[i].list;
		last = &l[i].list;
	}
	if (k->mode == B_LIST_SLOW) {
		int fd = open(MNT "/s", O_RDONLY);
		void *x;

		if (fd < 0)
			return 3;
		/* never touched here: the walk's read of it is its first READ */
		x = mmap(NULL, MAP_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		if (x == MAP_FAILED)
			return 4;
		last->next = x;		/* x's own next (the head) is the server's */
		k->slow.next = (uintptr_t)head;
		k->slow.tid = tid;
	} else {
		last->next = &head->list;
	}
	if (k->mode == B_EMPTY)
		head->list.next = &head->list;
	k->err = set_robust_list2(head, 0, TH_NATIVE, 0) ? errno : 0;
	th_set_flag(&k->ready, 1);
	for (int i = 0; i < 600; i++)
		th_sleep_ms(100);
	return 1;
}

/* kill -> waitpid of a bkid, in ms. */
static long run_bkid(enum bmode mode, uint32_t n, int delay_ms)
{
	struct bkid *k = th_shared_alloc(sizeof(*k), false);
	int status;
	long t0, ms;
	pid_t pid;

	assert_non_null(k);
	k->mode = mode;
	k->n = n;
	k->slow.delay_ms = delay_ms;
	pid = th_spawn_kid(bkid_main, k);
	assert_true(pid > 0);
	assert_true(th_wait_flag(&k->ready, 1, 60000));
	assert_int_equal(0, k->err);
	srv.slow_arg = &k->slow;
	srv.slow = slow_fill;
	t0 = th_now_ms();
	assert_int_equal(0, kill(pid, SIGKILL));
	status = th_poll_kid(pid, 60000);
	ms = th_now_ms() - t0;
	srv.slow = NULL;
	assert_int_equal(128 + SIGKILL, status);
	th_free(k, sizeof(*k));
	return ms;
}

static void test_deadline_is_wall_time(void **state)
{
	struct robust_list2_stats st0, st1;
	struct robust_list2_info info;
	long t_empty, t_walk, walk, budget, ms;
	char val[32];
	uint32_t n;

	if (srv.fd < 0)
		skip();
	TH_MODULE_ONLY("the module's io_wait_ms deadline");
	if (th_read_file(PARAM_IO_WAIT, saved_io_wait, sizeof(saved_io_wait)) <= 0) {
		saved_io_wait[0] = 0;
		fail_msg("no %s", PARAM_IO_WAIT);
	}
	memset(&info, 0xcc, sizeof(info));
	assert_int_equal(0, robust_list2_info(&info));
	n = (info.walk_limit < (1u << 20) ? info.walk_limit : (1u << 20)) - 1;

	/* what the walk of n present entries costs here, in time */
	t_empty = run_bkid(B_EMPTY, n, 0);
	t_walk = run_bkid(B_LIST, n, 0);
	walk = t_walk - t_empty;
	budget = walk / 3;
	print_message("# exit with %u present locks: %ld ms, without them %ld ms: "
		      "io_wait_ms for the case %ld\n", n, t_walk, t_empty, budget);
	if (budget < 20) {	/* 5 jiffies at HZ=250 */
		print_message("# the walk is too fast here to outlast a measurable deadline\n");
		skip();
	}
	snprintf(val, sizeof(val), "%ld", budget);
	assert_int_equal(0, th_write_file(PARAM_IO_WAIT, val));

	/* the same walk, then one entry whose page needs a READ: past the deadline */
	read_stats(&st0);
	ms = run_bkid(B_LIST_SLOW, n, 10);
	read_stats(&st1);
	print_message("# then an entry needing a READ: kill -> waitpid %ld ms, recovered %llu "
		      "of %u, io_timeouts +%llu, READs of it %d\n", ms,
		      (unsigned long long)(st1.recovered - st0.recovered), n + 1,
		      (unsigned long long)(st1.io_timeouts - st0.io_timeouts), srv.slow_reads);
	/* every present word recovered; the last given up, not even read */
	assert_int_equal(n, st1.recovered - st0.recovered);
	assert_true(st1.io_timeouts - st0.io_timeouts >= 1);
	assert_int_equal(0, srv.slow_reads);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_slot_list_on_unreadable_file_dies,
						srv_start, srv_stop),
		cmocka_unit_test_setup_teardown(test_legacy_list_control, srv_start, srv_stop),
		cmocka_unit_test_setup_teardown(test_slot_word_whose_write_fault_never_completes,
						srv_start, srv_stop),
		cmocka_unit_test_setup_teardown(test_deadline_is_wall_time, srv_start, srv_stop),
	};

	if (getenv("RL2_TEST_FILTER"))		/* e.g. RL2_TEST_FILTER='*write*' */
		cmocka_set_test_filter(getenv("RL2_TEST_FILTER"));
	return cmocka_run_group_tests_name("fuse", tests, NULL, NULL);
}
