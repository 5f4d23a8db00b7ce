/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The library's single seam to the kernel (liburing's arch/.../syscall.h
 * idea): nothing else calls open() on the device or ioctl().  These return
 * a value >= 0 or -errno; the public functions convert once at the edge.
 */
#ifndef RL2_SYSCALL_H
#define RL2_SYSCALL_H

#include <errno.h>
#include <fcntl.h>
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

#endif /* RL2_SYSCALL_H */
