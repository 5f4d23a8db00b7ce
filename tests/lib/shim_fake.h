/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fake kernel of the host-only library tests (t_shim_unit_*): no
 * module and no device.
 *
 * The library archive is linked with ld --wrap=open,ioctl,fstat,close (the
 * symbols `nm -u robust_list2.o` lists), so its calls land in the __wrap_*
 * functions of shim_fake.c: a small fake kernel with a descriptor table
 * (each descriptor is our device, another file, or closed, and
 * ioctl()/fstat() answer as the kernel would for each), scripted errors
 * for the next open() and device ioctl() calls, and a record of what the
 * library passed (fake).
 *
 * The library caches its descriptor in a static, so every test starts from
 * a known state: the setup fixture fake_reset() drives the library back to
 * "no descriptor" through its public API, and the tests may run in any
 * order.
 *
 * ROBUST_LIST2_IOC_SET_WINDOW, which the library sends by itself once after
 * every successful open, is recorded apart (fake.nr_window, fake.window)
 * and neither counted in fake.nr_ioctl nor fed from the scripted results,
 * so the other tests see only the requests their calls make.
 */
#ifndef TH_SHIM_FAKE_H
#define TH_SHIM_FAKE_H

#include <stdint.h>
#include <sys/types.h>

#include "robust_list2.h"

#define FAKE_NR_FDS	64
#define FAKE_FD		40		/* first descriptor open() hands out */
#define FAKE_INO	4242
#define FAKE_QUEUE	8
#define SENTINEL	((void *)(uintptr_t)0xdeadbeefdeadbeefULL)
#define HEAD64_SENTINEL	0xdeadbeefdeadbeefULL
#define TYPE_SENTINEL	0xccccccccU

enum fake_file { FAKE_CLOSED, FAKE_DEVICE, FAKE_OTHER };

struct shim_fake {
	enum fake_file file[FAKE_NR_FDS];
	int next_fd;
	/* Scripted results, used in order; once used up, calls succeed. */
	int open_err[FAKE_QUEUE];
	unsigned int open_queued, open_used;
	long ioctl_ret[FAKE_QUEUE];	/* value, or -errno */
	unsigned int ioctl_queued, ioctl_used;
	void (*open_hook)(void);	/* runs once inside the next open() */
	void *get_head;			/* what a successful GET stores */
	uint64_t get_head64;		/* ... and answers in its head field */
	unsigned int get_type;		/* ... and in its type field */
	/* What the library did. */
	unsigned int nr_open, nr_ioctl, nr_close;
	char open_path[64];
	int open_flags;
	int ioctl_fd[FAKE_QUEUE];	/* descriptors of the first ioctls */
	unsigned long ioctl_req;	/* the last ioctl's request */
	void *ioctl_arg;		/* ... and argument pointer */
	union {
		struct robust_list2_set set;
		struct robust_list2_get get;
		struct robust_list2_unlock unlock;
	} arg;				/* ... and a copy of its struct */
	int close_fd;			/* the last descriptor closed */
	/* ROBUST_LIST2_IOC_SET_WINDOW, kept apart from the other requests. */
	int window_err;			/* its answer when non-zero (errno) */
	unsigned int nr_window;		/* how many the library sent */
	unsigned int window_on_fd[FAKE_NR_FDS];	/* ... per descriptor */
	struct robust_list2_window window;	/* the last one's struct */
	unsigned int before_window;	/* requests on a device fd without one */
	/*
	 * syscall(), which only the native backend calls (t_shim_unit_native,
	 * linked with --wrap=syscall too): scripted results in order, then
	 * ENOSYS, a kernel without the system calls.
	 */
	long syscall_ret[FAKE_QUEUE];	/* value, or -errno */
	unsigned int syscall_queued, syscall_used;
	unsigned int nr_syscall;
	long syscall_nr;		/* the last one's number ... */
	long syscall_arg[4];		/* ... and its four arguments */
};

extern struct shim_fake fake;

/* The next open() fails with @err; the next device ioctl() returns @ret. */
void fake_open_fails(int err);
void fake_ioctl_returns(long ret);
/* The next syscall() returns @ret (a value, or -errno). */
void fake_syscall_returns(long ret);
/* Setup fixture: no descriptor cached, fake emptied. */
int fake_reset(void **state);

/* Scribble over the stack the library's argument structs will occupy. */
void __attribute__((noinline)) dirty_stack(void);
/* @ret is -1 and errno @err. */
void expect_errno(int err, long ret);
/* set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0) */
long set64(void);

/* The try-unlock windows (libshim/try_unlock_*.S), hidden in the .so. */
extern const char rl2__window64_start[], rl2__window64_end[];
extern const char rl2__window32_start[], rl2__window32_end[];

/* One case per errno, named after it: fn(EXXX). */
#define T(fn)		cmocka_unit_test_setup(fn, fake_reset)
#define TE(fn, err)	{ #fn "(" #err ")", fn, fake_reset, NULL, &(int){ err } }
/* And per width of the pending field: fn(64), fn(32). */
#define TW(fn, width)	TE(fn, width)

#endif /* TH_SHIM_FAKE_H */
