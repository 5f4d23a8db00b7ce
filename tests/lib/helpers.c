// SPDX-License-Identifier: GPL-2.0
/*
 * th_*: helpers shared by the robust_list2 test suites; see helpers.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "helpers.h"

pid_t th_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

pid_t th_spawn_child(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid == 0) {
		/*
		 * cmocka catches SIGSEGV and friends to report them; a child
		 * must die of them for real.
		 */
		static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };

		for (unsigned int i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		_exit(fn(arg));
	}
	return pid;
}

long th_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

void th_sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Write @s to @path in one write(); 0 or -errno (-EIO for a short write). */
int th_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = n < 0 ? -errno : (size_t)n != strlen(s) ? -EIO : 0;
	close(fd);
	return err;
}

/* Read up to @len - 1 bytes of @path, NUL-terminated; bytes read or -errno. */
ssize_t th_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = 0;
	close(fd);
	return n;
}

long th_read_long(const char *path, long dflt)
{
	char buf[64];

	if (th_read_file(path, buf, sizeof(buf)) <= 0)
		return dflt;
	return strtol(buf, NULL, 10);
}

int th_wait_child_ms(pid_t pid, int timeout_ms)
{
	long deadline = th_now_ms() + timeout_ms;
	int status;

	if (pid < 0)
		return -1;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -1;
		if (th_now_ms() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fprintf(stderr, "# child %d timed out after %d ms\n", pid, timeout_ms);
			return -1;
		}
		th_sleep_ms(1);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return -1;
}

/*
 * Every child a test forks is noted until reaped, so that a test that
 * fails half-way (cmocka longjmps out of it) leaves nothing behind for
 * the next one: its teardown kills and reaps what is left.
 */
static pid_t kids[16];

pid_t th_spawn_kid(int (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(stdout);		/* a child must not inherit half a line of TAP */
	fflush(stderr);
	pid = th_spawn_child(fn, arg);

	for (unsigned int i = 0; pid > 0 && i < sizeof(kids) / sizeof(kids[0]); i++)
		if (!kids[i]) {
			kids[i] = pid;
			break;
		}
	return pid;
}

int th_poll_kid(pid_t pid, int timeout_ms)
{
	long deadline = th_now_ms() + timeout_ms;
	int st;

	do {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			th_reap_kid(pid, 0);	/* forget it */
			return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
		}
		if (timeout_ms)
			th_sleep_ms(5);
	} while (th_now_ms() < deadline);
	return -1;
}

/* th_wait_child_ms(), and @pid is no longer ours to clean up. */
int th_reap_kid(pid_t pid, int timeout_ms)
{
	int status = th_wait_child_ms(pid, timeout_ms);

	for (unsigned int i = 0; i < sizeof(kids) / sizeof(kids[0]); i++)
		if (kids[i] == pid)
			kids[i] = 0;
	return status;
}

void th_kill_kids(void)
{
	for (unsigned int i = 0; i < sizeof(kids) / sizeof(kids[0]); i++)
		if (kids[i]) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
			kids[i] = 0;
		}
}

int th_kids_teardown(void **state)
{
	th_kill_kids();
	return 0;
}

void *th_mmap_low(size_t size, int prot, int flags, int fd, off_t off)
{
#if defined(__x86_64__)
	return mmap(NULL, size, prot, flags | MAP_32BIT, fd, off);
#elif UINTPTR_MAX == 0xffffffffu
	return mmap(NULL, size, prot, flags, fd, off);
#else
	/* Tried upwards from 1 GiB: below it sit the program and its heap. */
	static uintptr_t next = 1UL << 30;
	size_t step = (size + (1UL << 20) - 1) & ~((1UL << 20) - 1);
	int i;

	for (i = 0; i < 2048; i++) {
		uintptr_t hint = __atomic_fetch_add(&next, step, __ATOMIC_RELAXED);
		void *p;

		if (hint + size > (1ULL << 32)) {
			__atomic_store_n(&next, 1UL << 30, __ATOMIC_RELAXED);
			continue;
		}
		p = mmap((void *)hint, size, prot, flags | MAP_FIXED_NOREPLACE, fd, off);
		if (p != MAP_FAILED || errno != EEXIST)
			return p;
	}
	errno = ENOMEM;
	return MAP_FAILED;
#endif
}

size_t th_page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

void *th_shared_alloc(size_t size, bool low)
{
	int flags = MAP_SHARED | MAP_ANONYMOUS;
	void *p;

	if (low)
		p = th_mmap_low(size, PROT_READ | PROT_WRITE, flags, -1, 0);
	else
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (low && (uint64_t)(uintptr_t)p + size > (1ULL << 32)) {
		munmap(p, size);
		return NULL;
	}
	memset(p, 0, size);
	return p;
}

void th_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

int th_futex_wait(uint32_t *uaddr, uint32_t val, int timeout_ms, bool private)
{
	struct timespec ts = {
		.tv_sec = timeout_ms / 1000,
		.tv_nsec = (timeout_ms % 1000) * 1000000L,
	};
	int op = FUTEX_WAIT | (private ? FUTEX_PRIVATE_FLAG : 0);

	if (syscall(SYS_futex, uaddr, op, val, &ts, NULL, 0))
		return -errno;
	return 0;
}

int th_futex_wake(uint32_t *uaddr, int nr, bool private)
{
	int op = FUTEX_WAKE | (private ? FUTEX_PRIVATE_FLAG : 0);
	long r = syscall(SYS_futex, uaddr, op, nr, NULL, NULL, 0);

	return r < 0 ? -errno : (int)r;
}

/* Bounded wait for a flag word set by a child. */
bool th_wait_flag(uint32_t *flag, uint32_t want, int timeout_ms)
{
	long deadline = th_now_ms() + timeout_ms;

	while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != want) {
		if (th_now_ms() > deadline)
			return false;
		th_futex_wait(flag, __atomic_load_n(flag, __ATOMIC_ACQUIRE), 100, false);
	}
	return true;
}

void th_set_flag(uint32_t *flag, uint32_t v)
{
	__atomic_store_n(flag, v, __ATOMIC_RELEASE);
	th_futex_wake(flag, INT_MAX, false);
}

int th_sleeping_in_futex(pid_t pid, pid_t tid, const void *uaddr)
{
	char path[64], buf[256];
	unsigned long nr, a0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return sscanf(buf, "%lu 0x%lx", &nr, &a0) == 2 && nr == SYS_futex &&
	       a0 == (unsigned long)(uintptr_t)uaddr;
}

int th_wait_futex_sleeper(pid_t pid, pid_t tid, const void *uaddr)
{
	long deadline = th_now_ms() + TH_TIMEOUT_MS;

	while (th_now_ms() < deadline) {
		int asleep = th_sleeping_in_futex(pid, tid, uaddr);

		if (asleep < 0)
			return -1;
		if (asleep)
			return 0;
		th_sleep_ms(1);
	}
	fprintf(stderr, "# thread %d never slept on futex %p\n", tid, uaddr);
	return -1;
}

void th_list64_init(struct robust_list_head *head, long off)
{
	head->list.next = &head->list;
	head->futex_offset = off;
	head->list_op_pending = NULL;
}

/* Append, as glibc does: new entries go right after the head. */
void th_list64_add(struct robust_list_head *head, struct th_lock64 *l, bool pi)
{
	l->list.next = head->list.next;
	head->list.next = (struct robust_list *)((uintptr_t)&l->list | (pi ? 1 : 0));
}

void th_list32_init(struct robust_list_head32 *head, int32_t off)
{
	head->list.next = th_p32(&head->list);
	head->futex_offset = off;
	head->list_op_pending = 0;
}

void th_list32_add(struct robust_list_head32 *head, struct th_lock32 *l, bool pi)
{
	l->list.next = head->list.next;
	head->list.next = th_p32(&l->list) | (pi ? 1 : 0);
}

static void *th_waiter_main(void *arg)
{
	struct th_waiter *w = arg;

	w->tid = th_gettid();
	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	w->result = th_futex_wait(w->uaddr, w->val, w->timeout_ms, w->private);
	return NULL;
}

int th_waiter_start(struct th_waiter *w)
{
	long deadline = th_now_ms() + TH_TIMEOUT_MS;

	w->started = 0;
	w->result = 1;
	if (!w->timeout_ms)
		w->timeout_ms = 3000;
	if (pthread_create(&w->thread, NULL, th_waiter_main, w))
		return -1;
	while (!__atomic_load_n(&w->started, __ATOMIC_ACQUIRE)) {
		if (th_now_ms() > deadline)
			return -1;
		th_sleep_ms(1);
	}
	return th_wait_futex_sleeper(getpid(), w->tid, w->uaddr);
}

int th_waiter_join(struct th_waiter *w)
{
	pthread_join(w->thread, NULL);
	return w->result;
}

/* Become @uid (and gid) for good, and stay dumpable: ptrace-read needs both. */
int th_become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -1;
	/* changing euid made us non-dumpable (commit_creds); a same-uid reader must be let in */
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

bool th_have_device(void)
{
	return access(ROBUST_LIST2_DEVICE, R_OK | W_OK) == 0;
}

int th_module_unload(void)
{
	return syscall(SYS_delete_module, "robust_list2", O_NONBLOCK) ? -1 : 0;
}

int th_module_load(const char *ko)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC);
	long ret;
	int err;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, "", 0);
	err = errno;
	close(fd);
	errno = err;
	return ret ? -1 : 0;
}

static int count_in(const char *pid, const char *file, bool (*match)(const char *text))
{
	char path[600], buf[4096];
	struct dirent *t;
	DIR *td;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	td = opendir(path);
	if (!td)
		return 0;
	while ((t = readdir(td))) {
		if (t->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task/%s/%s", pid, t->d_name, file);
		if (th_read_file(path, buf, sizeof(buf)) > 0 && match(buf))
			n++;
	}
	closedir(td);
	return n;
}

int th_count_tasks(pid_t pid, const char *file, bool (*match)(const char *text))
{
	char name[24];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	if (pid) {
		snprintf(name, sizeof(name), "%d", (int)pid);
		return count_in(name, file, match);
	}
	dir = opendir("/proc");
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] >= '1' && d->d_name[0] <= '9')
			n += count_in(d->d_name, file, match);
	closedir(dir);
	return n;
}

int th_module_refcnt(void)
{
	char buf[32];

	if (th_read_file("/sys/module/robust_list2/refcnt", buf, sizeof(buf)) <= 0)
		return -1;
	return atoi(buf);
}

/*
 * Where the device is there, never ask the library: robust_list2_backend()
 * would open the device and keep it open, which holds the module (t_unload
 * must be able to unload it).  Without it, the library's probe is a system
 * call and opens nothing.
 */
bool th_native(void)
{
	static int native = -1;

	if (native < 0)
		native = !th_have_device() &&
			 robust_list2_backend() == ROBUST_LIST2_BACKEND_SYSCALL;
	return native;
}
