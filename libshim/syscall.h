/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The library's single seam to the kernel (liburing's arch/.../syscall.h
 * idea): nothing else calls open() on the device, ioctl() or syscall().
 * These return a value >= 0 or -errno; the public functions convert once
 * at the edge.  rl2__syscall4() is used by the native backend only
 * (native.c), so the default build never calls syscall().
 */
#ifndef RL2_SYSCALL_H
#define RL2_SYSCALL_H

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/ioctl.h>

static inline int rl2__open(const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);

	return fd < 0 ? -errno : fd;
}

static inline long rl2__ioctl(int fd, unsigned long req, void *arg)
{
	long ret = ioctl(fd, req, arg);

	return ret < 0 ? -errno : ret;
}

static inline long rl2__syscall4(long nr, long a, long b, long c, long d)
{
	long ret = syscall(nr, a, b, c, d);

	return ret < 0 ? -errno : ret;
}

#endif /* RL2_SYSCALL_H */
