// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded ioctl fuzzer for /dev/robust_list2 (mode 0666: anyone can
 * call it).  Every command number of our type and a few others, every
 * _IOC_SIZE and direction, random and structured argument blocks (valid
 * structs with one field broken, random flags and pads), and argument
 * pointers that are NULL, unmapped, read-only, kernel, vsyscall or
 * misaligned.  Each answer must be a success or one of the documented
 * errnos; the harness fails the run on any oops or warning.
 *
 * The fuzzing runs in forked children (their slots, windows and unlocks
 * only ever touch their own memory) with a fixed seed that is printed, so
 * a failure reproduces: RL2_FUZZ_SEED=<seed> RL2_FUZZ_ITERS=<n>.
 * The 32-bit build (t_fuzz.m32) fuzzes the compat_ioctl path.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "helpers.h"

#define PAGE		4096
#define DEFAULT_ITERS	20000
#define CHILDREN	4

static uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64*: fast, reproducible from the printed seed */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static uint64_t pick(const uint64_t *v, size_t n)
{
	return v[rnd() % n];
}

struct arena {
	char *rw;		/* 4 pages of read-write scratch */
	char *ro;		/* a read-only page */
	char *none;		/* a PROT_NONE page */
	char *gone;		/* an unmapped page */
};

static const unsigned long cmds[] = {
	ROBUST_LIST2_IOC_INFO, ROBUST_LIST2_IOC_SET, ROBUST_LIST2_IOC_GET,
	ROBUST_LIST2_IOC_STATS, ROBUST_LIST2_IOC_CREATE, ROBUST_LIST2_IOC_UNLOCK,
	ROBUST_LIST2_IOC_SET_WINDOW, ROBUST_LIST2_IOC_SET_BASED, ROBUST_LIST2_IOC_GET_BASED,
};

/* A command number: a real one, or one with its size, dir or nr changed. */
static unsigned long fuzz_cmd(void)
{
	unsigned long c = cmds[rnd() % (sizeof(cmds) / sizeof(cmds[0]))];

	switch (rnd() % 6) {
	case 0:
		return _IOC(_IOC_DIR(c), _IOC_TYPE(c), _IOC_NR(c), rnd() % 257);
	case 1:
		return _IOC(rnd() % 4, _IOC_TYPE(c), _IOC_NR(c), _IOC_SIZE(c));
	case 2:
		return _IOC(_IOC_DIR(c), _IOC_TYPE(c), rnd() % 0x20, _IOC_SIZE(c));
	case 3:
		return _IOC(rnd() % 4, rnd() % 256, rnd() % 256, rnd() % 257);
	default:
		return c;
	}
}

/* A user address a field may hold. */
static uint64_t fuzz_addr(struct arena *a)
{
	const uint64_t odd[] = {
		0, 1, 4, 8, 0xfff, 0xfffffffcULL, 0x100000000ULL, 0xffffffffff600000ULL,
		0xffff888000000000ULL, 0x7ffffffff000ULL, ~0ULL, 0x8000000000000000ULL,
	};

	switch (rnd() % 5) {
	case 0:
		return (uintptr_t)a->rw + (rnd() % (4 * PAGE - 8));
	case 1:
		return (uintptr_t)a->ro + (rnd() % PAGE);
	case 2:
		return (uintptr_t)(rnd() & 1 ? a->none : a->gone) + (rnd() % PAGE);
	case 3:
		return pick(odd, sizeof(odd) / sizeof(odd[0]));
	default:
		return rnd();
	}
}

/* Fill the argument block: random bytes, or a plausible struct, mutated. */
static void fuzz_block(struct arena *a, uint64_t *blk, size_t words)
{
	for (size_t i = 0; i < words; i++)
		blk[i] = rnd();
	if (rnd() % 2)
		return;
	/* structured: small values, addresses where addresses go */
	blk[0] = fuzz_addr(a);
	blk[1] = rnd() % 3 ? fuzz_addr(a) : rnd() % 16;
	blk[2] = (rnd() % 10) | ((uint64_t)(rnd() % 4) << 32);
	blk[3] = rnd() % 4 ? 0 : rnd();
	for (size_t i = 4; i < words; i++)
		blk[i] = rnd() % 4 ? 0 : rnd();
}

static bool allowed_errno(int e)
{
	switch (e) {
	case EINVAL: case EFAULT: case ENOTTY: case EPERM: case ESRCH:
	case EOPNOTSUPP: case ENOSPC: case EBUSY: case EOVERFLOW:
	case EAGAIN: case ENOMEM:
		return true;
	}
	return false;
}

static int fuzz_child(void *arg)
{
	uint64_t seed = *(uint64_t *)arg;
	long iters = getenv("RL2_FUZZ_ITERS") ? atol(getenv("RL2_FUZZ_ITERS")) : DEFAULT_ITERS;
	int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);
	struct arena a;
	uint64_t blk[64];

	if (fd < 0)
		return 2;
	rng = seed ? seed : 1;
	a.rw = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	a.ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	a.none = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	a.gone = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a.rw == MAP_FAILED || a.ro == MAP_FAILED || a.none == MAP_FAILED || a.gone == MAP_FAILED)
		return 3;
	munmap(a.gone, PAGE);

	for (long i = 0; i < iters; i++) {
		unsigned long cmd = fuzz_cmd();
		void *argp;
		long ret;

		fuzz_block(&a, blk, sizeof(blk) / sizeof(blk[0]));
		switch (rnd() % 8) {
		case 0:
			argp = (void *)(uintptr_t)fuzz_addr(&a);
			break;
		case 1:		/* the block at an odd offset */
			memcpy(a.rw + 1, blk, 256);
			argp = a.rw + 1;
			break;
		case 2:		/* the block ending right before a hole */
			argp = a.rw + 4 * PAGE - (rnd() % 64);
			break;
		default:
			argp = blk;
			break;
		}
		ret = ioctl(fd, cmd, argp);
		if (ret < 0 && !allowed_errno(errno)) {
			fprintf(stderr, "# seed %#llx iteration %ld: ioctl(%#lx) -> errno %d\n",
				(unsigned long long)seed, i, cmd, errno);
			return 1;
		}
	}
	return 0;
}

static void test_fuzz_every_command(void **state)
{
	uint64_t base = getenv("RL2_FUZZ_SEED") ? strtoull(getenv("RL2_FUZZ_SEED"), NULL, 0)
						: 0x524c32667a7aULL;
	struct robust_list2_stats before, after;
	uint64_t seeds[CHILDREN];
	pid_t pid[CHILDREN];

	print_message("# fuzz seed %#llx, %d children x %s iterations\n",
		      (unsigned long long)base, CHILDREN,
		      getenv("RL2_FUZZ_ITERS") ?: "20000");
	assert_int_equal(0, robust_list2_stats(&before));
	for (int c = 0; c < CHILDREN; c++) {
		seeds[c] = base + c;
		pid[c] = th_spawn_child(fuzz_child, &seeds[c]);
	}
	for (int c = 0; c < CHILDREN; c++)
		assert_int_equal(0, th_wait_child_ms(pid[c], 120000));

	/* every registration the fuzzers made died with them */
	assert_int_equal(0, robust_list2_stats(&after));
	assert_int_equal(before.tasks, after.tasks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz_every_command),
	};

	TH_MODULE_ONLY_SUITE("fuzzes the ioctls of /dev/robust_list2");
	return cmocka_run_group_tests_name("fuzz", tests, NULL, NULL);
}
