// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * librobust_list2: set_robust_list2()/get_robust_list2() on top of the
 * /dev/robust_list2 ioctls, with the errno conventions of a glibc system
 * call wrapper.
 *
 * The device descriptor is opened on first use and cached for the whole
 * process (O_CLOEXEC, so an exec'd image starts clean).  It is cached only
 * once an open succeeded: a program started before `modprobe robust_list2`
 * gets ENOSYS until the module appears, then works.  Because every ioctl
 * acts on the calling thread, the descriptor a forked child inherits is as
 * good as its own.  If the program closed our descriptor behind our back
 * (a daemon closing every fd), the number may now name another file: we
 * remember the device number and inode and reopen when the kernel answers
 * EBADF or ENOTTY and the descriptor no longer is ours.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/stat.h>

#include "robust_list2.h"
#include "native.h"
#include "syscall.h"

#ifndef ROBUST_LIST2_LIB_VERSION
#define ROBUST_LIST2_LIB_VERSION "unknown"
#endif

/* The try-unlock windows (try_unlock_*.S); see robust_list2_try_unlock64(). */
extern const char rl2__window64_start[] __attribute__((visibility("hidden")));
extern const char rl2__window64_end[] __attribute__((visibility("hidden")));
extern const char rl2__window32_start[] __attribute__((visibility("hidden")));
extern const char rl2__window32_end[] __attribute__((visibility("hidden")));

static int rl2_fd = -1;
static dev_t rl2_rdev;
static ino_t rl2_ino;
static int rl2_fd_plain = -1;	/* a descriptor without a window: see rl2__set() */

/*
 * Tell the module where our try-unlock code is, once per open file.  An
 * older module (ENOTTY) just does not finish interrupted try-unlocks.
 */
static void rl2__set_window(int fd)
{
	struct robust_list2_window w = {
		.start64 = (uintptr_t)rl2__window64_start,
		.end64 = (uintptr_t)rl2__window64_end,
		.start32 = (uintptr_t)rl2__window32_start,
		.end32 = (uintptr_t)rl2__window32_end,
	};

	(void)rl2__ioctl(fd, ROBUST_LIST2_IOC_SET_WINDOW, &w);
}

static int rl2__open_device(void)
{
	struct stat st;
	int fd, expected = -1;

	fd = rl2__open(ROBUST_LIST2_DEVICE);
	if (fd < 0) {
		switch (-fd) {
		case EMFILE:
		case ENFILE:
		case ENOMEM:
		case EINTR:
			return fd;
		default:
			/* No usable device: answer as a kernel without the calls. */
			return -ENOSYS;
		}
	}
	if (fstat(fd, &st) == 0) {
		rl2_rdev = st.st_rdev;
		rl2_ino = st.st_ino;
	}
	rl2__set_window(fd);
	if (!__atomic_compare_exchange_n(&rl2_fd, &expected, fd, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		close(fd);		/* another thread won the race */
		fd = expected;
	}
	return fd;
}

static int rl2__device(void)
{
	int fd = __atomic_load_n(&rl2_fd, __ATOMIC_ACQUIRE);

	return fd >= 0 ? fd : rl2__open_device();
}

/* Is the cached descriptor still our device? */
static int rl2__fd_is_ours(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) &&
	       st.st_rdev == rl2_rdev && st.st_ino == rl2_ino;
}

static long rl2__call(unsigned long req, void *arg)
{
	int fd = rl2__device();
	long ret;

	if (fd < 0)
		return fd;
	ret = rl2__ioctl(fd, req, arg);
	if ((ret == -EBADF || ret == -ENOTTY) && !rl2__fd_is_ours(fd)) {
		int expected = fd;

		__atomic_compare_exchange_n(&rl2_fd, &expected, -1, 0,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
		fd = rl2__device();
		if (fd < 0)
			return fd;
		ret = rl2__ioctl(fd, req, arg);
	}
	return ret;
}

static long rl2__ret(long ret)
{
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

/*
 * A set (SET, CREATE, SET_BASED) that the module refused with ETOOMANYREFS:
 * the thread's slots were set through as many other copies of this
 * library (other windows) as it has slots, and the module drops no
 * window a slot may rely on.  The slot is set through a second descriptor
 * without a window, so the call works as the proposal's system call
 * would; only this copy's out-of-line try-unlock is then not finished for
 * a thread that dies inside it (on x86 the module still knows it by its
 * bytes).
 */
static long rl2__set(unsigned long req, void *arg)
{
	long ret = rl2__call(req, arg);
	int fd, expected = -1;

	if (ret != -ETOOMANYREFS)
		return ret;
	fd = __atomic_load_n(&rl2_fd_plain, __ATOMIC_ACQUIRE);
	if (fd < 0) {
		fd = rl2__open(ROBUST_LIST2_DEVICE);
		if (fd < 0)
			return ret;
		if (!__atomic_compare_exchange_n(&rl2_fd_plain, &expected, fd, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			close(fd);
			fd = expected;
		}
	}
	return rl2__ioctl(fd, req, arg);
}

/*
 * set_robust_list2(), get_robust_list2(), robust_list2_create() and
 * robust_list2_info() first ask the kernel's own system calls, in a build
 * for a kernel that has them (native.h: stubs answering -ENOSYS
 * otherwise), and go to the device only when the answer is ENOSYS.
 */
long set_robust_list2(struct robust_list_head *head, unsigned int index,
		      unsigned int cmd, unsigned int flags)
{
	struct robust_list2_set a = {
		.head = (uintptr_t)head,
		.index = index,
		.cmd = cmd,
		.flags = flags,
	};
	long ret = rl2__native_set(head, index, cmd, flags);

	if (ret != -ENOSYS)
		return rl2__ret(ret);
	return rl2__ret(rl2__set(ROBUST_LIST2_IOC_SET, &a));
}

long get_robust_list2(int pid, void **head_ptr, unsigned int index,
		      unsigned int flags)
{
	struct robust_list2_get a = {
		.head_ptr = (uintptr_t)head_ptr,
		.pid = pid,
		.index = index,
		.flags = flags,
	};
	long ret = rl2__native_get(pid, head_ptr, index, flags);

	if (ret != -ENOSYS)
		return rl2__ret(ret);
	ret = rl2__call(ROBUST_LIST2_IOC_GET, &a);
	return rl2__ret(ret < 0 ? ret : 0);
}

/*
 * The same GET as get_robust_list2(), for callers that also need the kind:
 * the module answers head and type in the struct, from one look at the
 * slot.  It still stores the head at head_ptr, as a pointer of our width,
 * so that must be real memory; the caller sees only the struct's copy.
 */
int robust_list2_slot(int pid, unsigned int index, uint64_t *head,
		      unsigned int *type)
{
	void *stored;
	struct robust_list2_get a = {
		.head_ptr = (uintptr_t)&stored,
		.pid = pid,
		.index = index,
	};
	long ret = rl2__call(ROBUST_LIST2_IOC_GET, &a);

	if (ret < 0)
		return (int)rl2__ret(ret);
	if (head)
		*head = a.head;
	if (type)
		*type = a.type;
	return 0;
}

int robust_list2_set_based(uint64_t head, uint64_t base, unsigned int index,
			   unsigned int cmd)
{
	struct robust_list2_set_based a = {
		.head = head,
		.base = base,
		.index = index,
		.cmd = cmd,
	};

	return (int)rl2__ret(rl2__set(ROBUST_LIST2_IOC_SET_BASED, &a));
}

int robust_list2_get_based(int pid, unsigned int index, uint64_t *head,
			   uint64_t *base, unsigned int *type)
{
	struct robust_list2_get_based a = {
		.pid = pid,
		.index = index,
	};
	long ret = rl2__call(ROBUST_LIST2_IOC_GET_BASED, &a);

	if (ret < 0)
		return (int)rl2__ret(ret);
	if (head)
		*head = a.head;
	if (base)
		*base = a.base;
	if (type)
		*type = a.type;
	return 0;
}

long robust_list2_create(struct robust_list_head *head, unsigned int cmd)
{
	struct robust_list2_set a = {
		.head = (uintptr_t)head,
		.cmd = cmd,
	};
	long ret = rl2__native_create(head, cmd);

	if (ret != -ENOSYS)
		return rl2__ret(ret);
	return rl2__ret(rl2__set(ROBUST_LIST2_IOC_CREATE, &a));
}

long robust_list2_unlock(uint32_t *lock, uint32_t tid, void *pop,
			 unsigned int flags)
{
	struct robust_list2_unlock a = {
		.uaddr = (uintptr_t)lock,
		.pop = (uintptr_t)pop,
		.tid = tid,
		.flags = flags,
		.nr_wake = 1,
	};

	return rl2__ret(rl2__call(ROBUST_LIST2_IOC_UNLOCK, &a));
}

int robust_list2_info(struct robust_list2_info *info)
{
	long ret = rl2__native_info(info);

	if (ret != -ENOSYS)
		return (int)rl2__ret(ret);
	return (int)rl2__ret(rl2__call(ROBUST_LIST2_IOC_INFO, info));
}

int robust_list2_stats(struct robust_list2_stats *st)
{
	return (int)rl2__ret(rl2__call(ROBUST_LIST2_IOC_STATS, st));
}

int robust_list2_faults(struct robust_list2_faults *f)
{
	return (int)rl2__ret(rl2__call(ROBUST_LIST2_IOC_FAULTS, f));
}

int robust_list2_fd(void)
{
	return (int)rl2__ret(rl2__device());
}

int robust_list2_backend(void)
{
	int fd;

	if (rl2__native_present())
		return ROBUST_LIST2_BACKEND_SYSCALL;
	fd = rl2__device();
	return fd < 0 ? (int)rl2__ret(fd) : ROBUST_LIST2_BACKEND_DEVICE;
}

const char *robust_list2_version(void)
{
	return ROBUST_LIST2_LIB_VERSION;
}
