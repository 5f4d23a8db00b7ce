// SPDX-License-Identifier: GPL-2.0
/*
 * register: what a thread pays to register a list, against the calls it
 * would otherwise make, then where the time goes (rows without a target).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "bench.h"

static struct robust_list_head reg_head = { .list = { &reg_head.list } };

static uint64_t b_set_native(void *ctx, long k)
{
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		syscall(SYS_set_robust_list, &reg_head, sizeof(reg_head));
	return now_ns() - t;
}

static uint64_t b_set_rl2(void *ctx, long k)
{
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		set_robust_list2(&reg_head, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0);
	return now_ns() - t;
}

static uint64_t b_get_native(void *ctx, long k)
{
	struct robust_list_head *h;
	size_t len;
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		syscall(SYS_get_robust_list, 0, &h, &len);
	return now_ns() - t;
}

static uint64_t b_get_rl2(void *ctx, long k)
{
	void *h;
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		get_robust_list2(0, &h, 0, 0);
	return now_ns() - t;
}

/* The same SET without the library: what the kernel path alone costs. */
static uint64_t b_set_ioctl(void *ctx, long k)
{
	int fd = robust_list2_fd();
	struct robust_list2_set a = {
		.head = (uintptr_t)&reg_head,
		.cmd = ROBUST_LIST2_CMD_SET_64,
	};
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		ioctl(fd, ROBUST_LIST2_IOC_SET, &a);
	return now_ns() - t;
}

/* An ioctl the module does not know: the vfs ioctl path, no handler work. */
static uint64_t b_ioctl_floor(void *ctx, long k)
{
	int fd = robust_list2_fd();
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		ioctl(fd, _IO(ROBUST_LIST2_IOC_TYPE, 0x1f));
	return now_ns() - t;
}

static uint64_t b_null_syscall(void *ctx, long k)
{
	uint64_t t = now_ns();

	for (long i = 0; i < k; i++)
		syscall(SYS_getppid);
	return now_ns() - t;
}

/* Our calls against the native ones, then where the time goes (no target). */
static const struct register_row {
	const char *item;
	bench_fn ours, anchor;
	double target;
} register_rows[] = {
	{ "set_robust_list2 vs set_robust_list", b_set_rl2, b_set_native, 1.5 },
	{ "get_robust_list2 vs get_robust_list", b_get_rl2, b_get_native, 1.5 },
	{ "SET ioctl without library vs set_robust_list", b_set_ioctl, b_set_native, 0 },
	{ "unknown ioctl (vfs floor) vs set_robust_list", b_ioctl_floor, b_set_native, 0 },
	{ "getppid (null syscall) vs set_robust_list", b_null_syscall, b_set_native, 0 },
};

void bench_register(void)
{
	struct robust_list_head *saved;
	size_t len;
	struct figure f;
	void *got = NULL;

	progress("register: set/get round trips against the native syscalls");
	pin_to_cpu(0);
	syscall(SYS_get_robust_list, 0, &saved, &len);
	if (set_robust_list2(&reg_head, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0) ||
	    get_robust_list2(0, &got, 0, 0) || got != &reg_head)
		die("set_robust_list2/get_robust_list2 do not work: %s", strerror(errno));

	for (size_t i = 0; i < ARRAY_SIZE(register_rows); i++) {
		const struct register_row *r = &register_rows[i];

		figure_init(&f, "register", r->item, 0, "ns/call", r->target);
		run_pair(&f, r->ours, NULL, r->anchor, NULL);
		emit(&f);
	}

	set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0);
	syscall(SYS_set_robust_list, saved, len);
	pin_to_cpu(-1);
}
