// SPDX-License-Identifier: GPL-2.0
/*
 * make fuzz: the executor, built as a static 64-bit and a static 32-bit
 * program (the 32-bit one calls the device through compat_ioctl).  The
 * libFuzzer controller (rl2fz.c) writes a program into the shared arena
 * (rl2fz.h) and starts this with the arena's memfd as descriptor 3:
 *
 *   rl2fz-exec          fill the futex words (with the owner's TID), apply
 *                       the page protections, register the lists, run the
 *                       ops from the owner and up to 3 other threads at
 *                       once, record every thread's slots (GET_BASED), say
 *                       ready, and die as told once the controller says go
 *   rl2fz-exec --wait   one thread per waiter, each in FUTEX_WAIT on its
 *                       word (shared futex op, bounded), its outcome noted
 *   rl2fz-exec --exit   what the owner execs: exit at once
 *
 * Every answer of the device must be a success or a documented errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/robust_list2.h>

#include "rl2fz.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static struct rl2fz_ctl *ctl = (struct rl2fz_ctl *)RL2FZ_ARENA;
static int dev = -1;

static long sys_futex(void *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

static uint32_t gettid_(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static int documented(int e)
{
	switch (e) {
	case EINVAL: case EFAULT: case ENOTTY: case EPERM: case ESRCH:
	case EOPNOTSUPP: case ENOSPC: case EBUSY: case EOVERFLOW:
	case EAGAIN: case ENOMEM: case EINTR:
		return 1;
	}
	return 0;
}

static const unsigned long cmds[] = {
	ROBUST_LIST2_IOC_INFO, ROBUST_LIST2_IOC_SET, ROBUST_LIST2_IOC_GET,
	ROBUST_LIST2_IOC_STATS, ROBUST_LIST2_IOC_CREATE, ROBUST_LIST2_IOC_UNLOCK,
	ROBUST_LIST2_IOC_SET_WINDOW, ROBUST_LIST2_IOC_SET_BASED,
	ROBUST_LIST2_IOC_GET_BASED,
};

static void run_op(unsigned int i)
{
	struct rl2fz_op *op = &ctl->ops[i];
	uint64_t buf[16] = { 0 };
	unsigned char *p = (unsigned char *)buf;
	unsigned long cmd, arg;
	unsigned int f;
	long ret;

	for (f = 0; f < RL2FZ_FIELDS && op->size[f]; f++) {
		uint64_t v = op->val[f];

		if (op->kind[f] == RL2FZ_F_TID)
			v = ctl->tids[v % RL2FZ_THREADS];
		if (op->size[f] == 8) {
			memcpy(p, &v, 8);
		} else {
			uint32_t v32 = (uint32_t)v;

			memcpy(p, &v32, 4);
		}
		p += op->size[f];
	}
	cmd = op->nr < 9 ? cmds[op->nr] : op->raw_cmd;
	switch (op->arg) {
	case RL2FZ_ARG_BUF: arg = (unsigned long)buf; break;
	case RL2FZ_ARG_NULL: arg = 0; break;
	case RL2FZ_ARG_PAGE6: arg = RL2FZ_ARENA + 6 * RL2FZ_PAGE; break;
	case RL2FZ_ARG_KERNEL: arg = (unsigned long)(sizeof(long) == 8 ? 0xffffffff81000000ULL : 0xc1000000ULL); break;
	default: arg = (unsigned long)op->arg_raw; break;
	}
	ret = ioctl(dev, cmd, arg);
	op->ret = (int32_t)ret;
	op->err = ret < 0 ? errno : 0;
	if (ret < 0 && !documented(errno) && !ctl->bad_op) {
		ctl->bad_errno = errno;
		ctl->bad_op = i + 1;
	}
}

/* Thread @t's ops, then its slots as the device sees them. */
static void run_thread(unsigned int t)
{
	unsigned int i;

	for (i = 0; i < ctl->nops; i++)
		if (ctl->ops[i].thread == t)
			run_op(i);
	for (i = 0; i < RL2FZ_SLOTS; i++) {
		struct robust_list2_get_based g = { .pid = 0, .index = i };
		struct rl2fz_slot *s = &ctl->slots[t][i];

		if (ioctl(dev, ROBUST_LIST2_IOC_GET_BASED, &g)) {
			s->err = errno;
			continue;
		}
		s->head = g.head;
		s->base = g.base;
		s->type = g.type;
	}
	__atomic_add_fetch(&ctl->done, 1, __ATOMIC_SEQ_CST);
}

static void wait_go(void)
{
	struct timespec ts = { .tv_sec = 1 };
	int n;

	for (n = 0; n < 60 && !__atomic_load_n(&ctl->go, __ATOMIC_SEQ_CST); n++)
		sys_futex(&ctl->go, FUTEX_WAIT, 0, &ts);
}

static volatile uint32_t start_gate;

static void *other(void *a)
{
	unsigned int t = (unsigned int)(uintptr_t)a;

	ctl->tids[t] = gettid_();
	while (!start_gate)
		sched_yield();
	run_thread(t);
	wait_go();
	syscall(SYS_exit, 0);
	return NULL;
}

static void protect(void)
{
	unsigned int pg;

	for (pg = RL2FZ_PROT_FIRST; pg < RL2FZ_PAGES; pg++) {
		void *a = (void *)(RL2FZ_ARENA + pg * RL2FZ_PAGE);

		switch (ctl->prot[pg]) {
		case RL2FZ_PROT_RO: mprotect(a, RL2FZ_PAGE, PROT_READ); break;
		case RL2FZ_PROT_NONE: mprotect(a, RL2FZ_PAGE, PROT_NONE); break;
		case RL2FZ_PROT_DONTNEED: madvise(a, RL2FZ_PAGE, MADV_DONTNEED); break;
		}
	}
}

static void do_register(const struct rl2fz_reg *r)
{
	unsigned int cmd = r->is32 ? ROBUST_LIST2_CMD_SET_32 : ROBUST_LIST2_CMD_SET_64;

	if (r->how == 2) {
		struct robust_list2_set_based a = {
			.head = r->head, .base = r->base, .index = r->slot, .cmd = cmd,
		};

		ioctl(dev, ROBUST_LIST2_IOC_SET_BASED, &a);
	} else {
		struct robust_list2_set a = {
			.head = r->head, .index = r->how == 1 ? 0 : r->slot, .cmd = cmd,
		};

		ioctl(dev, r->how == 1 ? ROBUST_LIST2_IOC_CREATE : ROBUST_LIST2_IOC_SET, &a);
	}
}

static int executor(char *argv0)
{
	uint32_t tid = gettid_();
	pthread_t th[RL2FZ_THREADS];
	unsigned int i;
	struct timespec ts = { .tv_sec = 1 };

	ctl->tids[0] = tid;
	for (i = 0; i < ctl->nfill && i < RL2FZ_FILLS; i++) {
		struct rl2fz_fill *f = &ctl->fill[i];

		*(uint32_t *)(RL2FZ_ARENA + f->off) = f->val | (f->self ? tid : 0);
	}
	dev = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return 2;
	for (i = 0; i < ctl->nreg; i++)
		do_register(&ctl->reg[i]);
	protect();
	for (i = 1; i < ctl->nthreads; i++)
		if (pthread_create(&th[i], NULL, other, (void *)(uintptr_t)i))
			return 3;
	for (i = 1; i < ctl->nthreads; i++)
		while (!__atomic_load_n(&ctl->tids[i], __ATOMIC_SEQ_CST))
			sched_yield();
	start_gate = 1;
	run_thread(0);
	while (__atomic_load_n(&ctl->done, __ATOMIC_SEQ_CST) < ctl->nthreads)
		sched_yield();
	__atomic_store_n(&ctl->ready, 1, __ATOMIC_SEQ_CST);
	wait_go();
	switch (ctl->death) {
	case RL2FZ_DIE_EXIT:
		syscall(SYS_exit, 0);
		break;
	case RL2FZ_DIE_EXEC: {
		char *args[] = { argv0, "--exit", NULL };

		execv("/proc/self/exe", args);
		break;
	}
	case RL2FZ_DIE_KILL:	/* the controller kills us */
		for (;;)
			nanosleep(&ts, NULL);
	}
	_exit(0);
}

static void *waiter(void *a)
{
	struct rl2fz_wait *w = a;
	struct timespec ts = { .tv_sec = 60 };
	long r;

	w->tid = gettid_();
	__atomic_store_n(&w->state, RL2FZ_W_WAITING, __ATOMIC_SEQ_CST);
	r = sys_futex((void *)(RL2FZ_ARENA + w->off), FUTEX_WAIT, w->val, &ts);
	w->state = !r ? RL2FZ_W_WOKEN : errno == EAGAIN ? RL2FZ_W_CHANGED :
		   errno == ETIMEDOUT ? RL2FZ_W_TIMEOUT : RL2FZ_W_OTHER;
	return NULL;
}

static int waiters(void)
{
	pthread_t th[RL2FZ_WAITERS];
	unsigned int i;

	for (i = 0; i < ctl->nwait; i++)
		if (pthread_create(&th[i], NULL, waiter, &ctl->wait[i]))
			return 3;
	for (i = 0; i < ctl->nwait; i++)
		pthread_join(th[i], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	void *a;

	if (argc > 1 && !strcmp(argv[1], "--exit"))
		return 0;
	a = mmap((void *)RL2FZ_ARENA, RL2FZ_PAGES * RL2FZ_PAGE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, RL2FZ_FD, 0);
	if (a != (void *)RL2FZ_ARENA) {
		perror("rl2fz-exec: mmap");
		return 2;
	}
	if (argc > 1 && !strcmp(argv[1], "--wait"))
		return waiters();
	return executor(argv[0]);
}
