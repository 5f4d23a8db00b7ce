// SPDX-License-Identifier: GPL-2.0
/*
 * A thread keeps the try-unlock window of every descriptor its slots were
 * set through (module/window.c), at most ROBUST_LIST2_NR_SLOTS of them:
 * a set through a ninth window is refused with ETOOMANYREFS and changes
 * nothing, so no window a slot may rely on is forgotten (the oldest was
 * dropped before).  A descriptor whose window the thread already has, or
 * one without a window, still sets.  The library answers the refusal by
 * setting the slot through a descriptor without a window:
 * set_robust_list2() succeeds, as the proposal's system call would.
 *
 * Each case runs in a forked child (its thread's record is its own).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <cmocka.h>

#include "helpers.h"

#define NWIN	(ROBUST_LIST2_NR_SLOTS + 1)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static struct robust_list_head heads[ROBUST_LIST2_NR_SLOTS + 2];

/* A descriptor with window number @i (fake addresses, distinct per @i). */
static int open_with_window(unsigned int i)
{
	struct robust_list2_window w = {
		.start64 = 0x10000 + 0x100 * i, .end64 = 0x10000 + 0x100 * i + 16,
		.start32 = 0x20000 + 0x100 * i, .end32 = 0x20000 + 0x100 * i + 16,
	};
	int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, ROBUST_LIST2_IOC_SET_WINDOW, &w))
		return -1;
	return fd;
}

static int raw_set(int fd, unsigned int index, struct robust_list_head *head)
{
	struct robust_list2_set a = {
		.head = (uintptr_t)head, .index = index, .cmd = TH_NATIVE,
	};

	return ioctl(fd, ROBUST_LIST2_IOC_SET, &a) < 0 ? errno : 0;
}

static int head_in(unsigned int index, void **head)
{
	*head = (void *)0xdeadbeef;
	return get_robust_list2(0, head, index, 0) ? errno : 0;
}

#define CHECK(c)	do { if (!(c)) return __LINE__; } while (0)

static int ninth_window_refused(void *arg)
{
	int fd[NWIN];
	void *h;

	for (unsigned int i = 0; i < ARRAY_SIZE(heads); i++)
		th_list64_init(&heads[i], TH_OFF64);
	for (unsigned int i = 0; i < NWIN; i++)
		CHECK((fd[i] = open_with_window(i)) >= 0);
	/* eight slots through eight windows */
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		CHECK(raw_set(fd[i], i, &heads[i]) == 0);
	/* a ninth: refused, nothing changed */
	CHECK(raw_set(fd[8], 0, &heads[8]) == ETOOMANYREFS);
	CHECK(head_in(0, &h) == 0 && h == &heads[0]);
	/* a window the thread has, or none: fine */
	CHECK(raw_set(fd[3], 0, &heads[8]) == 0);
	CHECK(head_in(0, &h) == 0 && h == &heads[8]);
	/* the library: its own window is a ninth; it sets through a plain descriptor */
	CHECK(set_robust_list2(&heads[9], 1, TH_NATIVE, 0) == 0);
	CHECK(head_in(1, &h) == 0 && h == &heads[9]);
	CHECK(robust_list2_create(&heads[1], TH_NATIVE) == -1 && errno == ENOSPC);
	/* every slot emptied: the record and its windows go; the ninth sets now */
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++)
		CHECK(raw_set(fd[0], i, NULL) == 0);
	CHECK(raw_set(fd[8], 0, &heads[0]) == 0);
	CHECK(raw_set(fd[8], 0, NULL) == 0);
	return 0;
}

static void test_ninth_window_refused_never_dropped(void **state)
{
	pid_t pid;

	if (!th_have_device())
		skip();
	pid = th_spawn_child(ninth_window_refused, NULL);
	assert_true(pid > 0);
	assert_int_equal(0, th_wait_child(pid));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ninth_window_refused_never_dropped),
	};

	TH_MODULE_ONLY_SUITE("try-unlock windows are registered with the module's device");
	return cmocka_run_group_tests_name("window_limit", tests, NULL, NULL);
}
