// SPDX-License-Identifier: GPL-2.0
/*
 * A wake the walk owes keeps the exit's deadline (docs/isolation.md, "The
 * deadline"; found by make fuzz).  A dying thread whose pending entry is
 * a lock it had released (word 0, state A of handle_futex_death()) owes
 * one waiter a wake, and the kernel's FUTEX_WAKE looks the word's page up
 * writable first: on a MAP_SHARED FUSE page whose writeback waits for a
 * WRITE the server never answers, that lookup's write fault waited in
 * fuse_page_mkwrite() for good, and the exit with it.
 *
 *  - The control: the holder H dies with the pending entry on a prompt
 *    page; a waiter of the test process asleep on the word (its own
 *    mapping of the file, shared futex ops) is woken, the word still 0.
 *  - The case: the same once the page's WRITE is held (fs_hold_write()):
 *    H is reaped within io_wait_ms (1000 here) + 1 s, and the module
 *    counts one access given up at the deadline.  Before the fix H stayed
 *    in D state until the connection was aborted.
 *
 * Root, /dev/fuse and the module are needed (the VM has them): skipped
 * otherwise.  64-bit only (tests/Makefile).  RL2_TEST_FILTER runs a subset.
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
#define PAGE_NO		1	/* of file "w" */

static struct fs_srv srv = {
	.fd = -1,
	.mnt = "/tmp/rl2-pending-wake",
	.file = { { "w", FS_NO_WRITE } },
};

static char saved_io_wait[32];

static int setup(void **state)
{
	saved_io_wait[0] = 0;
	if (geteuid() || !th_have_device())
		return 0;
	if (th_read_file(PARAM_IO_WAIT, saved_io_wait, sizeof(saved_io_wait)) <= 0)
		saved_io_wait[0] = 0;
	srv.answer_writes = true;	/* until fs_hold_write() */
	if (fs_start(&srv))
		fs_stop(&srv);
	return 0;
}

static int teardown(void **state)
{
	fs_stop(&srv);
	th_kill_kids();
	if (saved_io_wait[0])
		th_write_file(PARAM_IO_WAIT, saved_io_wait);
	return 0;
}

static uint32_t *map_w(void)
{
	size_t pg = th_page_size();
	char path[128];
	int fd = open(fs_path(&srv, "w", path, sizeof(path)), O_RDWR);
	void *p;

	if (fd < 0)
		return NULL;
	p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)PAGE_NO * pg);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

struct holder {
	uint32_t ready;
	int32_t err;
};

/* H: an empty list whose pending entry's word is word 0 of the page, 0. */
static int holder_main(void *p)
{
	struct holder *h = p;
	struct robust_list_head *head = malloc(sizeof(*head));
	struct robust_list *node = malloc(sizeof(*node));
	uint32_t *w = map_w();

	if (!head || !node || !w)
		return 2;
	w[0] = 0;			/* released: the wake is all it owes */
	head->list.next = &head->list;
	head->futex_offset = (long)((char *)w - (char *)node);
	head->list_op_pending = node;
	if (set_robust_list2(head, 0, TH_NATIVE, 0))
		return 3;
	th_set_flag(&h->ready, 1);
	for (;;)
		pause();
	return 1;
}

static pid_t start_holder(void)
{
	struct holder *h = th_shared_alloc(sizeof(*h), false);
	pid_t pid;

	TH_NEED_ROOT();
	if (srv.fd < 0)
		skip();		/* no /dev/fuse, or no module */
	assert_int_equal(0, th_write_file(PARAM_IO_WAIT, "1000"));
	assert_non_null(h);
	pid = th_spawn_kid(holder_main, h);
	assert_true(pid > 0);
	if (!th_wait_flag(&h->ready, 1, TH_TIMEOUT_MS))
		fail_msg("the holder did not register: status %d", th_poll_kid(pid, 0));
	return pid;
}

static void test_owed_wake_is_delivered(void **state)
{
	pid_t pid = start_holder();
	uint32_t *w = map_w();
	struct th_waiter wt;
	long t0;

	assert_non_null(w);
	wt = (struct th_waiter){ .uaddr = w, .val = 0, .timeout_ms = 10000 };
	assert_int_equal(0, th_waiter_start(&wt));
	assert_int_equal(0, th_wait_futex_sleeper(getpid(), wt.tid, w));
	t0 = th_now_ms();
	assert_int_equal(0, kill(pid, SIGKILL));
	assert_int_equal(128 + SIGKILL, th_reap_kid(pid, 10000));
	assert_int_equal(0, th_waiter_join(&wt));
	print_message("# pending entry on a prompt page: waiter woken %ld ms after the kill "
		      "(result %d), word 0x%x\n", th_now_ms() - t0, wt.result, *w);
	assert_int_equal(0, wt.result);
	assert_int_equal(0, *w);
	munmap(w, th_page_size());
}

static void test_owed_wake_keeps_the_deadline(void **state)
{
	pid_t pid = start_holder();
	struct robust_list2_stats st0, st;
	long t0, ms;
	int ret;

	assert_int_equal(0, fs_hold_write(&srv, "w", PAGE_NO, robust_list2_fd()));
	assert_int_equal(0, robust_list2_stats(&st0));
	t0 = th_now_ms();
	assert_int_equal(0, kill(pid, SIGKILL));
	ret = th_poll_kid(pid, IO_WAIT_MS + 10000);
	ms = th_now_ms() - t0;
	assert_int_equal(0, robust_list2_stats(&st));
	print_message("# pending entry on a page under a WRITE never answered: reaped %ld ms "
		      "after the kill (status %d; io_wait_ms %d), %llu access(es) given up\n",
		      ms, ret, IO_WAIT_MS,
		      (unsigned long long)(st.io_timeouts - st0.io_timeouts));
	assert_int_equal(128 + SIGKILL, ret);
	assert_true(ms <= IO_WAIT_MS + SLACK_MS);
	assert_int_equal(1, st.io_timeouts - st0.io_timeouts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_owed_wake_is_delivered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owed_wake_keeps_the_deadline, setup,
						teardown),
	};

	TH_MODULE_ONLY_SUITE("the exit deadline is the module's");
	if (getenv("RL2_TEST_FILTER"))
		cmocka_set_test_filter(getenv("RL2_TEST_FILTER"));
	return cmocka_run_group_tests_name("pending_wake", tests, NULL, NULL);
}
