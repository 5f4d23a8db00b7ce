// SPDX-License-Identifier: GPL-2.0
/*
 * A robust list whose head lives on a file that can never be read: a
 * minimal FUSE server, written here against /dev/fuse, answers INIT,
 * LOOKUP, GETATTR and OPEN, takes READ requests and never answers them.
 * A child maps the file, registers the head and is SIGKILLed; its exit walk
 * faults on the head.
 *
 * Ours: the walk starts the read without waiting for it in the fault, and
 * gives up on that list after its I/O deadline (module/uaccess.c,
 * RL2_EXIT_IO_WAIT, 10 s): the child is reaped, and the hung-task detector,
 * set to 5 s, reports nothing (the walk sleeps in short steps and holds no
 * lock meanwhile).
 *
 * The control, last: the same head as the child's legacy list, walked by
 * the kernel itself.  Measured on Debian's 6.12.95: that walk stays in D
 * state for good (futex_cleanup -> get_user -> filemap_fault ->
 * folio_wait_bit_common, TASK_KILLABLE, but get_signal() took SIGKILL off
 * the dying thread's own pending set).  The case reports what the kernel
 * did within 3 s, then aborts the FUSE connection, which fails the READ,
 * and the child must then be reaped.
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
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "helpers.h"

#define MNT		"/tmp/rl2-fuse"
#define FILE_INO	2	/* "f", and "g" = FILE_INO + 1: one file per case */
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
			struct fuse_entry_out o = { .generation = 1 };

			/* its page stays locked by the unanswered READ: a fresh file each */
			if (strcmp(body, "f") && strcmp(body, "g")) {
				reply(in->unique, -ENOENT, NULL, 0);
				break;
			}
			o.nodeid = FILE_INO + (*(char *)body == 'g');
			fill_attr(&o.attr, o.nodeid);
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

/*
 * Abort the connection through the FUSE control filesystem (its number is
 * the mount's device minor): every request fails, stuck waiters run, and
 * the server's read() ends with ENODEV.
 */
static void srv_abort(void)
{
	struct stat st;
	char path[64];

	if (!srv.mounted || stat(MNT, &st))
		return;
	mkdir("/sys/fs/fuse/connections", 0755);
	mount("fusectl", "/sys/fs/fuse/connections", "fusectl", 0, NULL);	/* may be there */
	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/abort", minor(st.st_dev));
	if (th_write_file(path, "1"))
		fprintf(stderr, "# %s: %s\n", path, strerror(errno));
}

static int srv_stop(void **state)
{
	srv_abort();
	if (srv.mounted)
		umount2(MNT, MNT_DETACH);
	srv.mounted = false;
	if (srv.fd >= 0) {
		pthread_join(srv.thread, NULL);
		close(srv.fd);
	}
	srv.fd = -1;
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
	int fd = open(k->legacy ? MNT "/g" : MNT "/f", O_RDONLY);
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

static struct kid *kill_kid(bool legacy, pid_t *pid)
{
	struct kid *k = th_shared_alloc(sizeof(*k), false);

	assert_non_null(k);
	k->legacy = legacy;
	*pid = th_spawn_child(kid_main, k);
	for (int i = 0; i < 100 && !__atomic_load_n(&k->ready, __ATOMIC_ACQUIRE); i++)
		th_futex_wait(&k->ready, 0, 100, false);
	assert_int_equal(1, k->ready);
	assert_int_equal(0, k->err);
	assert_int_equal(0, kill(*pid, SIGKILL));
	return k;
}

static void test_slot_list_on_unreadable_file_dies(void **state)
{
	int kmsg, status, reads = srv.reads;
	struct kid *k;
	long t0, ms;
	pid_t pid;

	if (srv.fd < 0)
		skip();
	assert_int_equal(0, th_write_file("/proc/sys/kernel/hung_task_timeout_secs", "5"));
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(kmsg >= 0);
	lseek(kmsg, 0, SEEK_END);

	t0 = th_now_ms();
	k = kill_kid(false, &pid);
	/* 10 s of I/O wait, then the rest of the exit; past 5 s had it hung */
	status = th_wait_child_ms(pid, 20000);
	ms = th_now_ms() - t0;
	print_message("# robust_list2 list on an unreadable FUSE file: kill -> waitpid %ld ms, "
		      "%d READ requests left unanswered\n", ms, srv.reads - reads);
	assert_int_equal(128 + SIGKILL, status);
	assert_true(srv.reads > reads);		/* the walk did try to read it */
	assert_false(kmsg_has(kmsg, "blocked for more than"));
	assert_int_equal(0, th_write_file("/proc/sys/kernel/hung_task_timeout_secs", "120"));
	close(kmsg);
	th_free(k, sizeof(*k));
}

/* waitpid() for at most @ms without killing (th_wait_child_ms() would wait on). */
static int poll_child(pid_t pid, int ms)
{
	long deadline = th_now_ms() + ms;
	int st;

	do {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
		th_sleep_ms(10);
	} while (th_now_ms() < deadline);
	return -1;
}

static void test_legacy_list_control(void **state)
{
	int status, reads = srv.reads;
	struct kid *k;
	long t0;
	pid_t pid;

	if (srv.fd < 0)
		skip();
	k = kill_kid(true, &pid);
	t0 = th_now_ms();
	status = poll_child(pid, 3000);
	if (status == 128 + SIGKILL)
		print_message("# control: the kernel's walk of the legacy list: reaped in %ld ms\n",
			      th_now_ms() - t0);
	else
		print_message("# control: the kernel's walk of the legacy list: still in D state "
			      "3 s after SIGKILL (the kernel's own limitation)\n");
	assert_true(srv.reads > reads);
	/* abort the connection: the READ fails, a stuck walk ends */
	srv_stop(state);
	if (status != 128 + SIGKILL)
		status = poll_child(pid, 10000);
	assert_int_equal(128 + SIGKILL, status);
	th_free(k, sizeof(*k));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_list_on_unreadable_file_dies),
		cmocka_unit_test(test_legacy_list_control),
	};

	return cmocka_run_group_tests_name("fuse", tests, srv_start, srv_stop);
}
