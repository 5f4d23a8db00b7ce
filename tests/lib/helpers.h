/* SPDX-License-Identifier: GPL-2.0 */
/*
 * th_*: helpers shared by the robust_list2 test suites.
 *
 * Rules they enforce: a task that dies always dies in a forked child (never
 * in the cmocka runner), every wait is bounded, and the memory the dying
 * task's lists live in is MAP_SHARED so the parent can inspect what the
 * kernel wrote after the child is gone.
 */
#ifndef TH_HELPERS_H
#define TH_HELPERS_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <sys/types.h>
#include <pthread.h>
#include <linux/futex.h>

#include "robust_list2.h"

#define TH_TIMEOUT_MS	10000	/* upper bound for any wait in a test */

/*
 * The suites also run as 32-bit (-m32) programs, through compat_ioctl.
 * A process's native struct robust_list_head is registered with SET_64 in
 * a 64-bit process and SET_32 in a 32-bit one (same layout as
 * robust_list_head32 there); its list_op_pending is 8 or 4 bytes.
 */
#define TH_LP64		(sizeof(void *) == 8)
#define TH_NATIVE	(TH_LP64 ? FUTEX_ROBUST_LIST_CMD_SET_64 : FUTEX_ROBUST_LIST_CMD_SET_32)
#define TH_POP_NATIVE	(TH_LP64 ? 0 : ROBUST_LIST2_UNLOCK_POP32)

#ifndef MAP_32BIT
#define MAP_32BIT	0	/* a 32-bit process maps below 4 GiB anyway */
#endif

/* A lock on a 64-bit list and on a 32-bit list. */
struct th_lock64 {
	struct robust_list list;
	uint32_t futex;
	uint32_t pad;
};

struct th_lock32 {
	struct robust_list32 list;
	uint32_t futex;
};

#define TH_OFF64	((long)offsetof(struct th_lock64, futex))
#define TH_OFF32	((int32_t)offsetof(struct th_lock32, futex))

pid_t th_gettid(void);

/* fork(); the child runs fn(arg) and _exit()s with its return value. */
pid_t th_spawn_child(int (*fn)(void *), void *arg);

/* CLOCK_MONOTONIC in milliseconds, and a sleep of @ms. */
long th_now_ms(void);
void th_sleep_ms(int ms);

/* Write @s to @path (sysfs, procfs, cgroupfs); 0 or -errno. */
int th_write_file(const char *path, const char *s);
/* Read up to @len - 1 bytes of @path, NUL-terminated; bytes read or -errno. */
ssize_t th_read_file(const char *path, char *buf, size_t len);
/* The number at the start of @path, or @dflt if it cannot be read. */
long th_read_long(const char *path, long dflt);
/*
 * How many tasks of process @pid (of every process if 0) have a file
 * /proc/PID/task/TID/@file (stat, stack, ...) that @match accepts.
 */
int th_count_tasks(pid_t pid, const char *file, bool (*match)(const char *text));

/*
 * Wait at most timeout_ms for @pid.  Returns its exit code, 128 + signal
 * if it was killed, or -1 on timeout (the child is then SIGKILLed).
 */
int th_wait_child_ms(pid_t pid, int timeout_ms);
static inline int th_wait_child(pid_t pid)
{
	return th_wait_child_ms(pid, TH_TIMEOUT_MS);
}

/*
 * Children noted until reaped (at most 16 at a time), so that a test that
 * fails half-way (cmocka longjmps out of it) leaves nothing behind for the
 * next one: th_kids_teardown(), a cmocka teardown, kills and reaps what is
 * left.  th_spawn_kid() flushes stdio first, th_reap_kid() is
 * th_wait_child_ms() and forgets @pid.
 */
pid_t th_spawn_kid(int (*fn)(void *), void *arg);
int th_reap_kid(pid_t pid, int timeout_ms);
/*
 * Like th_reap_kid(), but never kills: @pid's status if it ended within
 * @timeout_ms (0: one look), else -1 and it stays ours.
 */
int th_poll_kid(pid_t pid, int timeout_ms);
void th_kill_kids(void);
int th_kids_teardown(void **state);

/* Become @uid (and gid) for good, and stay dumpable: ptrace-read needs both. */
int th_become(uid_t uid);

/* In a cmocka test: skip unless root (the VM runs the suites as root). */
#define TH_NEED_ROOT()							\
	do {								\
		if (geteuid() != 0) {					\
			print_message("# needs root (the VM runs it as root)\n"); \
			skip();						\
		}							\
	} while (0)

/*
 * mmap() below 4 GiB, for 32-bit lists: MAP_32BIT on x86-64; where there is
 * none (arm64) an address hint with MAP_FIXED_NOREPLACE, as an emulator such
 * as FEX places a 32-bit guest's memory.  MAP_FAILED (errno set) if none.
 */
void *th_mmap_low(size_t size, int prot, int flags, int fd, off_t off);

/*
 * The page size: 4 KiB on x86 and most arm64 kernels, 16 KiB on Debian's
 * arm64-16k (a case that needs "the next page" or a page-aligned
 * madvise()/munmap() uses this, never 4096).
 */
size_t th_page_size(void);

/* Shared anonymous memory; below 4 GiB when @low (for 32-bit lists). */
void *th_shared_alloc(size_t size, bool low);
void th_free(void *p, size_t size);

/* Raw futex calls; wait returns 0, or -errno (-ETIMEDOUT, -EAGAIN). */
int th_futex_wait(uint32_t *uaddr, uint32_t val, int timeout_ms, bool private);
int th_futex_wake(uint32_t *uaddr, int nr, bool private);

/*
 * A flag word in shared memory: th_set_flag() stores and wakes, and
 * th_wait_flag() sleeps on it until it reads @want (true) or @timeout_ms
 * passed (false).
 */
bool th_wait_flag(uint32_t *flag, uint32_t want, int timeout_ms);
void th_set_flag(uint32_t *flag, uint32_t v);

/*
 * Wait until thread @tid (of process @pid) sleeps in futex() on @uaddr:
 * polls /proc/<pid>/task/<tid>/syscall, so no sleep-and-hope.  Returns
 * 0, or -1 after TH_TIMEOUT_MS.
 */
int th_wait_futex_sleeper(pid_t pid, pid_t tid, const void *uaddr);
/* One look: 1 if asleep in futex() on @uaddr, 0 if not, -1 if no such thread. */
int th_sleeping_in_futex(pid_t pid, pid_t tid, const void *uaddr);

/* Build lists.  Heads point to themselves when empty. */
void th_list64_init(struct robust_list_head *head, long off);
void th_list64_add(struct robust_list_head *head, struct th_lock64 *l, bool pi);
void th_list32_init(struct robust_list_head32 *head, int32_t off);
void th_list32_add(struct robust_list_head32 *head, struct th_lock32 *l, bool pi);

/* 32-bit value of a pointer known to be below 4 GiB. */
static inline uint32_t th_p32(const void *p)
{
	return (uint32_t)(uintptr_t)p;
}

/* Waiter threads: block on a futex word, report whether they were woken. */
struct th_waiter {
	uint32_t *uaddr;
	uint32_t val;
	bool private;
	int timeout_ms;
	pid_t tid;		/* out: set before waiting */
	int result;		/* out: th_futex_wait() result */
	volatile int started;
	pthread_t thread;
};

int th_waiter_start(struct th_waiter *w);
int th_waiter_join(struct th_waiter *w);

/* Is the module's device there?  Used by fixtures to skip cleanly. */
bool th_have_device(void);

/*
 * The module itself, for the suites that unload and load it (root): unload
 * without waiting (delete_module(O_NONBLOCK): -1 with EWOULDBLOCK while in
 * use); load the image at @ko (finit_module(), no parameters); the
 * refcount of /sys/module/robust_list2/refcnt, or -1.  Both calls return
 * 0, or -1 with errno set.
 */
int th_module_unload(void);
int th_module_load(const char *ko);
int th_module_refcnt(void);

/*
 * Does the library answer with the kernel's own system calls (a library
 * built with NATIVE= on a kernel with kernel-series/: make check-native),
 * where no module is loaded?  Asked once per process, without opening the
 * device.
 */
bool th_native(void);

/*
 * On the native kernel: skip a case about the module itself (its device,
 * ioctls, counters, unload), or one where the kernel series behaves
 * otherwise on purpose, saying why (kernel-series/README.md has both
 * tables).  TH_MODULE_ONLY_SUITE() ends a whole program with exit 77.
 */
#define TH_MODULE_ONLY(why)						\
	do {								\
		if (th_native()) {					\
			print_message("# module only: %s\n", why);	\
			skip();						\
		}							\
	} while (0)
#define TH_NATIVE_DIFFERS(why)						\
	do {								\
		if (th_native()) {					\
			print_message("# differs on the native kernel: %s\n", why); \
			skip();						\
		}							\
	} while (0)
#define TH_MODULE_ONLY_SUITE(why)					\
	do {								\
		if (th_native()) {					\
			printf("# module only: %s\n", why);		\
			return 77;					\
		}							\
	} while (0)

#endif /* TH_HELPERS_H */
