// SPDX-License-Identifier: GPL-2.0
/*
 * Host-only unit tests of librobust_list2's descriptor: opened lazily and
 * once (ENOSYS while the device is absent, open errors passed through, a
 * late open after modprobe working), cached, reopened once when the
 * program closed or reused it, a lost open race closing only its own
 * descriptor, and the try-unlock window sent once right after every open
 * (its failure ignored).  Against the fake kernel of lib/shim_fake.c.
 *
 * Built twice: t_shim_unit_fd, and t_shim_unit_fd.m32 with -m32 against
 * the -m32 library.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "robust_list2.h"
#include "shim_fake.h"

static void test_absent_device_is_enosys_then_late_open_works(void **state)
{
	int err = *(int *)*state;

	fake_open_fails(err);
	errno = 0;
	expect_errno(ENOSYS, set64());
	assert_int_equal(1, fake.nr_open);
	assert_int_equal(0, fake.nr_ioctl);
	assert_int_equal(0, fake.nr_window);

	/* modprobe robust_list2: the next call opens and works. */
	assert_int_equal(0, set64());
	assert_int_equal(2, fake.nr_open);
	assert_int_equal(1, fake.nr_ioctl);
	assert_int_equal(FAKE_FD, fake.ioctl_fd[0]);
	assert_int_equal(1, fake.window_on_fd[FAKE_FD]);
	assert_int_equal(0, fake.before_window);
	assert_int_equal(FAKE_FD, robust_list2_fd());
	assert_int_equal(2, fake.nr_open);
	assert_int_equal(1, fake.nr_window);
}

static void test_absent_device_every_call_is_enosys(void **state)
{
	struct robust_list2_info info;
	struct robust_list2_stats st;
	struct robust_list_head list;
	void *head = SENTINEL;
	uint64_t head64 = HEAD64_SENTINEL;
	unsigned int type = TYPE_SENTINEL;
	uint32_t word = 42;

	for (int i = 0; i < 8; i++)
		fake_open_fails(ENOENT);
	expect_errno(ENOSYS, set64());
	expect_errno(ENOSYS, get_robust_list2(0, &head, 0, 0));
	expect_errno(ENOSYS, robust_list2_slot(0, 0, &head64, &type));
	expect_errno(ENOSYS, robust_list2_info(&info));
	expect_errno(ENOSYS, robust_list2_stats(&st));
	expect_errno(ENOSYS, robust_list2_fd());
	expect_errno(ENOSYS, robust_list2_create(&list, FUTEX_ROBUST_LIST_CMD_SET_64));
	expect_errno(ENOSYS, robust_list2_unlock(&word, 42, NULL, 0));
	assert_ptr_equal(SENTINEL, head);
	assert_int_equal(HEAD64_SENTINEL, head64);
	assert_int_equal(TYPE_SENTINEL, type);
	assert_int_equal(42, word);
	assert_int_equal(8, fake.nr_open);
	assert_int_equal(0, fake.nr_ioctl);
	assert_int_equal(0, fake.nr_window);
}

static void test_open_errno_passes_through(void **state)
{
	int err = *(int *)*state;

	fake_open_fails(err);
	expect_errno(err, set64());
	assert_int_equal(0, fake.nr_ioctl);
	/* Nothing was cached: the next call tries again. */
	assert_int_equal(0, set64());
	assert_int_equal(2, fake.nr_open);
}

static void test_device_opened_once_and_cached(void **state)
{
	struct robust_list2_info info;
	void *head;

	assert_int_equal(0, set64());
	assert_int_equal(0, get_robust_list2(0, &head, 0, 0));
	assert_int_equal(0, robust_list2_info(&info));
	assert_int_equal(FAKE_FD, robust_list2_fd());

	assert_int_equal(1, fake.nr_open);
	assert_string_equal(ROBUST_LIST2_DEVICE, fake.open_path);
	assert_int_equal(O_RDWR, fake.open_flags & O_ACCMODE);
	assert_int_equal(O_CLOEXEC, fake.open_flags & O_CLOEXEC);
	assert_int_equal(3, fake.nr_ioctl);
	for (int i = 0; i < 3; i++)
		assert_int_equal(FAKE_FD, fake.ioctl_fd[i]);
	assert_int_equal(0, fake.nr_close);
	assert_int_equal(1, fake.nr_window);
	assert_int_equal(1, fake.window_on_fd[FAKE_FD]);
	assert_int_equal(0, fake.before_window);
}

/* The program closed our descriptor (a daemon closing every fd). */
static void test_closed_descriptor_is_reopened(void **state)
{
	assert_int_equal(FAKE_FD, robust_list2_fd());
	fake.file[FAKE_FD] = FAKE_CLOSED;

	assert_int_equal(0, set64());
	assert_int_equal(2, fake.nr_open);
	assert_int_equal(2, fake.nr_ioctl);
	assert_int_equal(FAKE_FD, fake.ioctl_fd[0]);
	assert_int_equal(FAKE_FD + 1, fake.ioctl_fd[1]);
	assert_int_equal(FAKE_FD + 1, robust_list2_fd());
	assert_int_equal(0, fake.nr_close);
	/* The new open file gets its own window before the retried request. */
	assert_int_equal(2, fake.nr_window);
	assert_int_equal(1, fake.window_on_fd[FAKE_FD + 1]);
	assert_int_equal(0, fake.before_window);
}

/* ... and the number was reused for another file, which must stay open. */
static void test_reused_descriptor_is_reopened(void **state)
{
	assert_int_equal(FAKE_FD, robust_list2_fd());
	fake.file[FAKE_FD] = FAKE_OTHER;

	assert_int_equal(0, set64());
	assert_int_equal(2, fake.nr_open);
	assert_int_equal(FAKE_FD + 1, fake.ioctl_fd[1]);
	assert_int_equal(FAKE_FD + 1, robust_list2_fd());
	assert_int_equal(0, fake.nr_close);
	assert_int_equal(FAKE_OTHER, fake.file[FAKE_FD]);
}

/* ENOTTY from a descriptor that still is our device is the answer. */
static void test_enotty_from_our_device_is_returned(void **state)
{
	fake_ioctl_returns(-ENOTTY);
	expect_errno(ENOTTY, set64());
	assert_int_equal(1, fake.nr_open);
	assert_int_equal(1, fake.nr_ioctl);
	assert_int_equal(FAKE_FD, robust_list2_fd());
}

static void test_reopen_is_tried_once(void **state)
{
	assert_int_equal(FAKE_FD, robust_list2_fd());
	fake.file[FAKE_FD] = FAKE_CLOSED;
	fake_ioctl_returns(-EBADF);	/* the new descriptor fails too */

	expect_errno(EBADF, set64());
	assert_int_equal(2, fake.nr_open);
	assert_int_equal(2, fake.nr_ioctl);
}

static void test_failed_reopen_is_enosys(void **state)
{
	assert_int_equal(FAKE_FD, robust_list2_fd());
	fake.file[FAKE_FD] = FAKE_CLOSED;
	fake_open_fails(ENOENT);	/* and the module is gone */

	expect_errno(ENOSYS, set64());
	assert_int_equal(2, fake.nr_open);
	assert_int_equal(1, fake.nr_ioctl);
	/* Nothing stale was kept: the next call opens again. */
	assert_int_equal(0, set64());
	assert_int_equal(3, fake.nr_open);
}

static void open_from_another_thread(void)
{
	assert_int_equal(FAKE_FD, robust_list2_fd());
}

/* Two first calls race: the loser closes its own descriptor only. */
static void test_open_race_loser_closes_its_descriptor(void **state)
{
	fake.open_hook = open_from_another_thread;

	assert_int_equal(FAKE_FD, robust_list2_fd());
	assert_int_equal(2, fake.nr_open);
	assert_int_equal(1, fake.nr_close);
	assert_int_equal(FAKE_FD + 1, fake.close_fd);
	assert_int_equal(FAKE_DEVICE, fake.file[FAKE_FD]);
	assert_int_equal(0, set64());
	assert_int_equal(FAKE_FD, fake.ioctl_fd[0]);
	assert_int_equal(1, fake.window_on_fd[FAKE_FD]);
	assert_int_equal(0, fake.before_window);
}

static void test_fd_is_cached_descriptor(void **state)
{
	assert_int_equal(FAKE_FD, robust_list2_fd());
	assert_int_equal(FAKE_FD, robust_list2_fd());
	assert_int_equal(1, fake.nr_open);
	assert_int_equal(0, fake.nr_ioctl);
}

#define WINDOW_MAX	64	/* the most the module accepts */

static void check_window(uint64_t start, uint64_t end, const char *sym_start,
			 const char *sym_end, void *fn)
{
	assert_int_equal((uintptr_t)sym_start, start);
	assert_int_equal((uintptr_t)sym_end, end);
	assert_true(start != 0);
	assert_true(start < end);
	assert_true(end - start <= WINDOW_MAX);
	/* Inside the function it guards, after its compare-exchange. */
	assert_true(start > (uintptr_t)fn);
	assert_true(end <= (uintptr_t)fn + WINDOW_MAX);
}

static void test_window_set_once_right_after_open(void **state)
{
	struct robust_list_head head;
	struct robust_list2_info info;
	uint32_t word = 1;
	void *got;

	dirty_stack();
	assert_int_equal(FAKE_FD, robust_list2_fd());
	assert_int_equal(1, fake.nr_window);
	assert_int_equal(1, fake.window_on_fd[FAKE_FD]);
	assert_int_equal(0, fake.nr_ioctl);

	check_window(fake.window.start64, fake.window.end64,
		     rl2__window64_start, rl2__window64_end,
		     (void *)robust_list2_try_unlock64);
	check_window(fake.window.start32, fake.window.end32,
		     rl2__window32_start, rl2__window32_end,
		     (void *)robust_list2_try_unlock32);
	assert_int_equal(0, fake.window.flags);
	assert_int_equal(0, fake.window.pad);
	for (int i = 0; i < 3; i++)
		assert_int_equal(0, fake.window.reserved[i]);

	/* Every later call uses the open file as it is. */
	assert_int_equal(0, set64());
	assert_int_equal(0, get_robust_list2(0, &got, 0, 0));
	assert_int_equal(0, robust_list2_info(&info));
	assert_int_equal(0, robust_list2_create(&head,
						FUTEX_ROBUST_LIST_CMD_SET_64));
	assert_int_equal(0, robust_list2_unlock(&word, 1, NULL, 0));
	assert_int_equal(FAKE_FD, robust_list2_fd());
	assert_int_equal(5, fake.nr_ioctl);
	assert_int_equal(1, fake.nr_window);
	assert_int_equal(0, fake.before_window);
}

/* An older module (ENOTTY), or any refusal: the library carries on. */
static void test_window_failure_is_ignored(void **state)
{
	struct robust_list_head head;
	uint32_t word = 1;

	fake.window_err = *(int *)*state;
	assert_int_equal(0, set64());
	assert_int_equal(1, fake.nr_window);
	fake_ioctl_returns(3);
	assert_int_equal(3, robust_list2_create(&head,
						FUTEX_ROBUST_LIST_CMD_SET_64));
	fake_ioctl_returns(1);
	assert_int_equal(1, robust_list2_unlock(&word, 1, NULL, 0));
	assert_int_equal(FAKE_FD, robust_list2_fd());

	/* Not taken for a stale descriptor: no reopen, no close, no retry. */
	assert_int_equal(1, fake.nr_open);
	assert_int_equal(0, fake.nr_close);
	assert_int_equal(3, fake.nr_ioctl);
	assert_int_equal(1, fake.nr_window);
}

/*
 * ETOOMANYREFS (the thread has eight other try-unlock windows): the set is
 * sent again through a second descriptor, which gets no window.  Runs last:
 * the library keeps that descriptor, which fake_reset() cannot reach.
 */
static void test_window_refusal_sets_through_a_plain_descriptor(void **state)
{
	int fd = robust_list2_fd();
	unsigned int windows = fake.nr_window;

	fake_ioctl_returns(-ETOOMANYREFS);
	assert_int_equal(0, set64());
	assert_int_equal(2, fake.nr_ioctl);
	assert_int_equal(fd, fake.ioctl_fd[0]);
	assert_true(fake.ioctl_fd[1] != fd);
	assert_int_equal(FAKE_DEVICE, fake.file[fake.ioctl_fd[1]]);
	assert_int_equal(windows, fake.nr_window);
	assert_int_equal(ROBUST_LIST2_IOC_SET, fake.ioctl_req);

	/* the retry's answer is the caller's; CREATE and SET_BASED retry too */
	fake_ioctl_returns(-ETOOMANYREFS);
	fake_ioctl_returns(-ENOSPC);
	expect_errno(ENOSPC, robust_list2_create(NULL, FUTEX_ROBUST_LIST_CMD_SET_64));
	assert_int_equal(4, fake.nr_ioctl);
	fake_ioctl_returns(-ETOOMANYREFS);
	assert_int_equal(0, robust_list2_set_based(0, 0, 0, FUTEX_ROBUST_LIST_CMD_SET_64));
	assert_int_equal(6, fake.nr_ioctl);

	/* no other error is retried */
	fake_ioctl_returns(-EINVAL);
	expect_errno(EINVAL, set64());
	assert_int_equal(7, fake.nr_ioctl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TE(test_absent_device_is_enosys_then_late_open_works, ENOENT),
		TE(test_absent_device_is_enosys_then_late_open_works, ENODEV),
		TE(test_absent_device_is_enosys_then_late_open_works, ENXIO),
		TE(test_absent_device_is_enosys_then_late_open_works, EACCES),
		T(test_absent_device_every_call_is_enosys),
		TE(test_open_errno_passes_through, EMFILE),
		TE(test_open_errno_passes_through, ENFILE),
		TE(test_open_errno_passes_through, ENOMEM),
		TE(test_open_errno_passes_through, EINTR),
		T(test_device_opened_once_and_cached),
		T(test_closed_descriptor_is_reopened),
		T(test_reused_descriptor_is_reopened),
		T(test_enotty_from_our_device_is_returned),
		T(test_reopen_is_tried_once),
		T(test_failed_reopen_is_enosys),
		T(test_open_race_loser_closes_its_descriptor),
		T(test_fd_is_cached_descriptor),
		T(test_window_set_once_right_after_open),
		TE(test_window_failure_is_ignored, ENOTTY),
		TE(test_window_failure_is_ignored, EBUSY),
		TE(test_window_failure_is_ignored, EINVAL),
		TE(test_window_failure_is_ignored, ENOMEM),
		T(test_window_refusal_sets_through_a_plain_descriptor),
	};

	return cmocka_run_group_tests_name("shim_unit_fd", tests, NULL, NULL);
}
