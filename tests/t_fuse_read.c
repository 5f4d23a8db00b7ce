// SPDX-License-Identifier: GPL-2.0
/*
 * The exit's deadline holds for reads that block in the file system
 * (docs/isolation.md, "The deadline").  FOLL_NOWAIT does not stop a
 * synchronous read: where readahead does not run -- the server's INIT
 * said max_readahead 0, the mapping is MADV_RANDOM, or the server does
 * not set FUSE_ASYNC_READ -- a fault on a page that is not cached waits in
 * fuse_do_readpage() -> request_wait_answer() for the READ.  Measured on
 * the code before workers took reads: a holder whose lock word sat on
 * such a page stayed in D state past 5 s, in 5 of these 6 configurations.
 *
 * Each holder (a forked child) has one list of two entries: the first
 * word on a page of FUSE file "u" that is never read (READ never
 * answered), the second on a present page of a memfd, with a waiter of
 * the test process asleep on it.  The holders of a case, MAP_SHARED and
 * MAP_PRIVATE, are SIGKILLed together: each must be reaped within
 * io_wait_ms (1000 here) + 1 s, and each present word recovered and its
 * waiter woken.  The fourth case's readahead-on holder is the control
 * (it was reaped in time before, too).
 *
 * Root and /dev/fuse are needed (the VM has them): skipped otherwise.
 * 64-bit only (tests/Makefile).  RL2_TEST_FILTER runs a subset.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "fusesrv.h"
#include "helpers.h"

#define PARAM_IO_WAIT	"/sys/module/robust_list2/parameters/io_wait_ms"
#define IO_WAIT_MS	1000
#define SLACK_MS	1000
#define MAX_HOLDERS	3

static struct fs_srv srv = {
	.fd = -1,
	.mnt = "/tmp/rl2-fuse-read",
	.file = { { "u", FS_NO_READ } },
};

static char saved_io_wait[32];
static int memfd = -1;
static uint32_t *present;	/* the memfd's pages, one per holder */

struct holder {
	uint32_t ready;
	int32_t err;
	int k;			/* its present page; "u" page k + 1 */
	bool private;		/* MAP_PRIVATE, else MAP_SHARED */
	bool random;		/* MADV_RANDOM */
	const char *what;
};

static int holder_main(void *p)
{
	struct holder *h = p;
	size_t pg = th_page_size();
	struct robust_list_head *head = malloc(sizeof(*head));
	struct robust_list *n1, *n2;
	char path[128], *z, *nodes;
	int fd;

	if (!head)
		return 2;
	/* [page of "u", never read | present page], and two pages of nodes */
	z = mmap(NULL, 2 * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	nodes = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = open(fs_path(&srv, "u", path, sizeof(path)), O_RDWR);
	if (z == MAP_FAILED || nodes == MAP_FAILED || fd < 0)
		return 3;
	if (mmap(z, pg, PROT_READ | PROT_WRITE,
		 (h->private ? MAP_PRIVATE : MAP_SHARED) | MAP_FIXED, fd,
		 (off_t)(h->k + 1) * pg) == MAP_FAILED ||
	    mmap(z + pg, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, memfd,
		 (off_t)h->k * pg) == MAP_FAILED)
		return 4;
	close(fd);
	if (h->random && madvise(z, pg, MADV_RANDOM))
		return 5;
	n1 = (void *)nodes;
	n2 = (void *)(nodes + pg);
	*(uint32_t *)(z + pg) = th_gettid();
	head->futex_offset = z - nodes;		/* n1's word: "u"; n2's: present */
	head->list_op_pending = NULL;
	head->list.next = n1;
	n1->next = n2;
	n2->next = &head->list;
	h->err = set_robust_list2(head, 0, TH_NATIVE, 0) ? errno : 0;
	th_set_flag(&h->ready, 1);
	for (int i = 0; i < 600; i++)
		th_sleep_ms(100);
	return 1;
}

static int setup(void **state)
{
	size_t pg = th_page_size();

	saved_io_wait[0] = 0;
	srv.fd = -1;
	if (geteuid() || !th_have_device())
		return 0;
	if (th_read_file(PARAM_IO_WAIT, saved_io_wait, sizeof(saved_io_wait)) <= 0)
		saved_io_wait[0] = 0;
	memfd = memfd_create("rl2-present", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, MAX_HOLDERS * pg))
		return -1;
	present = mmap(NULL, MAX_HOLDERS * pg, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (present == MAP_FAILED)
		return -1;
	if (fs_start(&srv))
		fs_stop(&srv);
	return 0;
}

static int teardown(void **state)
{
	fs_stop(&srv);		/* first: a holder stuck in a READ can die only then */
	th_kill_kids();
	if (present && present != MAP_FAILED)
		munmap(present, MAX_HOLDERS * th_page_size());
	present = NULL;
	if (memfd >= 0)
		close(memfd);
	memfd = -1;
	if (saved_io_wait[0])
		th_write_file(PARAM_IO_WAIT, saved_io_wait);
	srv.sync_read = srv.no_readahead = false;
	return 0;
}

/* Start the holders, kill them together, check each. */
static void run_holders(struct holder *spec, int n)
{
	size_t pg = th_page_size();
	struct th_waiter w[MAX_HOLDERS];
	struct holder *h[MAX_HOLDERS];
	pid_t pid[MAX_HOLDERS];
	int status[MAX_HOLDERS];
	long t0, ms[MAX_HOLDERS];
	int left = n, reads = srv.reads;

	if (srv.fd < 0)
		skip();
	assert_int_equal(0, th_write_file(PARAM_IO_WAIT, "1000"));
	for (int i = 0; i < n; i++) {
		uint32_t *pw = (uint32_t *)((char *)present + i * pg), tid;

		h[i] = th_shared_alloc(sizeof(*h[i]), false);
		assert_non_null(h[i]);
		*h[i] = spec[i];
		h[i]->k = i;
		*pw = 0;
		pid[i] = th_spawn_kid(holder_main, h[i]);
		assert_true(pid[i] > 0);
		assert_true(th_wait_flag(&h[i]->ready, 1, TH_TIMEOUT_MS));
		assert_int_equal(0, h[i]->err);
		/* the waiter: FUTEX_WAITERS set on the holder's word, then asleep */
		tid = *pw;
		w[i] = (struct th_waiter){ .uaddr = pw, .val = tid | FUTEX_WAITERS,
					   .timeout_ms = 15000 };
		assert_int_equal(tid, __sync_val_compare_and_swap(pw, tid, tid | FUTEX_WAITERS));
		assert_int_equal(0, th_waiter_start(&w[i]));
		assert_int_equal(0, th_wait_futex_sleeper(getpid(), w[i].tid, pw));
		status[i] = -1;
	}
	t0 = th_now_ms();
	for (int i = 0; i < n; i++)
		assert_int_equal(0, kill(pid[i], SIGKILL));
	while (left && th_now_ms() - t0 < IO_WAIT_MS + SLACK_MS + 5000) {
		for (int i = 0; i < n; i++) {
			if (status[i] != -1)
				continue;
			status[i] = th_poll_kid(pid[i], 0);
			if (status[i] != -1) {
				ms[i] = th_now_ms() - t0;
				left--;
			}
		}
		th_sleep_ms(5);
	}
	for (int i = 0; i < n; i++) {
		uint32_t *pw = (uint32_t *)((char *)present + i * pg);

		th_waiter_join(&w[i]);
		if (status[i] == -1)
			print_message("# %s: still alive %ld ms after SIGKILL (io_wait_ms %d)\n",
				      h[i]->what, th_now_ms() - t0, IO_WAIT_MS);
		else
			print_message("# %s: reaped %ld ms after SIGKILL (io_wait_ms %d), present "
				      "word 0x%08x, its waiter %s\n", h[i]->what, ms[i], IO_WAIT_MS,
				      *pw, w[i].result ? "not woken" : "woken");
	}
	assert_true(srv.reads > reads);		/* the walks did need those READs */
	for (int i = 0; i < n; i++) {
		uint32_t *pw = (uint32_t *)((char *)present + i * pg);

		assert_int_equal(128 + SIGKILL, status[i]);
		assert_true(ms[i] <= IO_WAIT_MS + SLACK_MS);
		assert_true(*pw & FUTEX_OWNER_DIED);
		assert_int_equal(0, w[i].result);
		th_free(h[i], sizeof(*h[i]));
	}
}

static int setup_no_readahead(void **state)
{
	srv.no_readahead = true;
	return setup(state);
}

static int setup_sync_read(void **state)
{
	srv.sync_read = true;
	return setup(state);
}

static void test_max_readahead_0(void **state)
{
	struct holder h[] = {
		{ .what = "max_readahead 0, MAP_SHARED" },
		{ .what = "max_readahead 0, MAP_PRIVATE", .private = true },
	};

	run_holders(h, 2);
}

static void test_madv_random(void **state)
{
	struct holder h[] = {
		{ .what = "MADV_RANDOM, MAP_SHARED", .random = true },
		{ .what = "MADV_RANDOM, MAP_PRIVATE", .random = true, .private = true },
		{ .what = "readahead on, MAP_SHARED (the control)" },
	};

	run_holders(h, 3);
}

static void test_no_async_read(void **state)
{
	struct holder h[] = {
		{ .what = "no FUSE_ASYNC_READ, MAP_SHARED" },
		{ .what = "no FUSE_ASYNC_READ, MAP_PRIVATE", .private = true },
	};

	run_holders(h, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_max_readahead_0, setup_no_readahead, teardown),
		cmocka_unit_test_setup_teardown(test_madv_random, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_async_read, setup_sync_read, teardown),
	};

	TH_MODULE_ONLY_SUITE("the exit deadline is the module's");
	if (getenv("RL2_TEST_FILTER"))
		cmocka_set_test_filter(getenv("RL2_TEST_FILTER"));
	return cmocka_run_group_tests_name("fuse_read", tests, NULL, NULL);
}
