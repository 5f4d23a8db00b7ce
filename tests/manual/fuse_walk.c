// SPDX-License-Identifier: GPL-2.0
/*
 * NOT part of the suite (tests/manual/): it shows a hang the kernel itself
 * has.  Measured on Debian's 6.12.95 (2026-12-04): the *control* case, the
 * kernel's own walk of a legacy list, stays in D state forever:
 *   futex_exit_release -> futex_cleanup -> __get_user_8 -> filemap_fault
 *   -> folio_wait_bit_common (TASK_KILLABLE)
 * A dying thread's killable waits are not interrupted: get_signal() took
 * SIGKILL off the thread's own pending set, and __fatal_signal_pending()
 * looks only there.  So reading list entries "as the kernel does" (a plain
 * get_user()) inherits the hang; a bounded wait needs a fault that does not
 * wait for I/O (FAULT_FLAG_RETRY_NOWAIT) and a budget.  Build and run by
 * hand: cc -I../../uapi -I../../libshim/include -I../lib ... then
 * scripts/vm-run --kernel 6.12 -- <binary>.
 *
 * A robust list whose head lives on a file that can never be read: a
 * minimal FUSE server, written here against /dev/fuse, answers INIT,
 * LOOKUP, GETATTR and OPEN, takes READ requests and never answers them.
 * A child maps the file, registers the head (in one of our slots, or as
 * its legacy list: the control, walked by the kernel itself) and is
 * SIGKILLed.  Its exit walk faults on the head: a fault that cannot be
 * interrupted would wait for that READ forever, in D state with mmap_lock
 * held.  The list pointers must be read as the kernel reads them
 * (killable), so the child is reaped at once, and the hung-task detector,
 * set to 5 s, reports nothing.
 *
 * Needs /dev/fuse (CONFIG_FUSE_FS=y on Debian's 6.12; a module on 6.1,
 * which the VM does not carry): skipped without it.
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
#include <linux/fuse.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "helpers.h"

#define MNT		"/tmp/rl2-fuse"
#define FILE_INO	2
#define FILE_SIZE	4096

static struct {
	int fd;			/* /dev/fuse */
	pthread_t thread;
	bool mounted;
	volatile int reads;	/* READ requests taken and never answered */
} srv = { .fd = -1 };

static void fill_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0644;
	a->nlink = 1;
	a->size = ino == FUSE_ROOT_ID ? 0 : FILE_SIZE;
	a->blocks = a->size / 512;
	a->blksize = 4096;
}

static void reply(uint64_t unique, int error, const void *arg, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header *h = (void *)buf;

	h->len = sizeof(*h) + (error ? 0 : len);
	h->error = error;
	h->unique = unique;
	if (!error && len)
		memcpy(buf + sizeof(*h), arg, len);
	if (write(srv.fd, buf, h->len) < 0 && errno != ENOENT)
		fprintf(stderr, "# fuse reply: %s\n", strerror(errno));
}

static void *serve(void *arg)
{
	static char buf[FUSE_MIN_READ_BUFFER + 65536];

	for (;;) {
		struct fuse_in_header *in = (void *)buf;
		void *body = buf + sizeof(*in);
		ssize_t n = read(srv.fd, buf, sizeof(buf));

		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*in))
			return NULL;	/* ENODEV: aborted, unmounted */
		switch (in->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *ii = body;
			struct fuse_init_out o = {
				.major = FUSE_KERNEL_VERSION,
				.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ?
					 ii->minor : FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = ii->max_readahead,
				/* page faults read ahead in the background */
				.flags = FUSE_ASYNC_READ,
				.max_background = 16,
				.congestion_threshold = 12,
				.max_write = 4096,
				.time_gran = 1,
			};

			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out o = { .nodeid = FILE_INO, .generation = 1 };

			if (strcmp(body, "f")) {
				reply(in->unique, -ENOENT, NULL, 0);
				break;
			}
			fill_attr(&o.attr, FILE_INO);
			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out o = { 0 };

			fill_attr(&o.attr, in->nodeid);
			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_OPEN: {
			struct fuse_open_out o = { .fh = 1 };

			reply(in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ:
			srv.reads++;	/* never answered */
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;		/* no reply expected */
		case FUSE_FLUSH:
		case FUSE_RELEASE:
			reply(in->unique, 0, NULL, 0);
			break;
		default:
			reply(in->unique, -ENOSYS, NULL, 0);
			break;
		}
	}
}

static int srv_start(void **state)
{
	char opts[128];

	srv.fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (srv.fd < 0)
		return 0;	/* the cases skip */
	mkdir(MNT, 0755);
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", srv.fd);
	if (mount("rl2fuse", MNT, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		fprintf(stderr, "# mount fuse: %s\n", strerror(errno));
		close(srv.fd);
		srv.fd = -1;
		return 0;
	}
	srv.mounted = true;
	return pthread_create(&srv.thread, NULL, serve, NULL) ? -1 : 0;
}

/* Closing /dev/fuse aborts the connection: a stuck READ fails, its waiter runs. */
static int srv_stop(void **state)
{
	if (srv.mounted)
		umount2(MNT, MNT_DETACH);
	if (srv.fd >= 0) {
		close(srv.fd);
		pthread_join(srv.thread, NULL);
	}
	rmdir(MNT);
	return 0;
}

struct kid {
	uint32_t ready;
	int32_t err;
	bool legacy;
};

static int kid_main(void *p)
{
	struct kid *k = p;
	int fd = open(MNT "/f", O_RDONLY);
	void *head;

	if (fd < 0)
		return 2;
	head = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (head == MAP_FAILED)
		return 3;
	/* registration reads nothing; the exit walk is the first access */
	if (k->legacy)
		k->err = syscall(SYS_set_robust_list, head, sizeof(struct robust_list_head)) ?
			 errno : 0;
	else
		k->err = set_robust_list2(head, 0, TH_NATIVE, 0) ? errno : 0;
	__atomic_store_n(&k->ready, 1, __ATOMIC_RELEASE);
	th_futex_wake(&k->ready, 1, false);
	for (int i = 0; i < 600; i++)
		th_sleep_ms(100);
	return 1;
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

static void run_kid(bool legacy)
{
	struct kid *k;
	int kmsg, status;
	long t0, ms;
	pid_t pid;

	if (srv.fd < 0)
		skip();
	assert_int_equal(0, th_write_file("/proc/sys/kernel/hung_task_timeout_secs", "5"));
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(kmsg >= 0);
	lseek(kmsg, 0, SEEK_END);

	k = th_shared_alloc(sizeof(*k), false);
	assert_non_null(k);
	k->legacy = legacy;
	pid = th_spawn_child(kid_main, k);
	for (int i = 0; i < 100 && !__atomic_load_n(&k->ready, __ATOMIC_ACQUIRE); i++)
		th_futex_wait(&k->ready, 0, 100, false);
	assert_int_equal(1, k->ready);
	assert_int_equal(0, k->err);

	t0 = th_now_ms();
	assert_int_equal(0, kill(pid, SIGKILL));
	/* 8 s: past the 5 s hung-task timeout, had the walk hung */
	status = th_wait_child_ms(pid, 8000);
	ms = th_now_ms() - t0;
	print_message("# %s list on an unreadable FUSE file: kill -> waitpid %ld ms, "
		      "%d READ requests left unanswered\n",
		      legacy ? "legacy" : "robust_list2", ms, srv.reads);
	assert_int_equal(128 + SIGKILL, status);
	assert_false(kmsg_has(kmsg, "blocked for more than"));
	close(kmsg);
	th_free(k, sizeof(*k));
}

static void test_legacy_list_on_unreadable_file_dies(void **state)
{
	run_kid(true);		/* the control: the kernel's own walk */
}

static void test_slot_list_on_unreadable_file_dies(void **state)
{
	run_kid(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legacy_list_on_unreadable_file_dies),
		cmocka_unit_test(test_slot_list_on_unreadable_file_dies),
	};

	return cmocka_run_group_tests_name("fuse_walk", tests, srv_start, srv_stop);
}
