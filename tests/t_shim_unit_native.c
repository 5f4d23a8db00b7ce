// SPDX-License-Identifier: GPL-2.0
/*
 * Host-only unit tests of the library's native backend (libshim/native.c):
 * a library built with NATIVE= calls set_robust_list2()/get_robust_list2()
 * as system calls where the kernel has them, and goes to /dev/robust_list2
 * only when the answer is ENOSYS.  Against the fake kernel of
 * lib/shim_fake.c, whose syscall() answers from a script (the fake headers
 * of lib/native-fake/ give made-up system call numbers).
 *
 * What is checked: the probe (LIST_LIMIT) decides once; a kernel without
 * the calls (ENOSYS), or one where the numbers mean another call (any other
 * answer), sends every call to the device; with the calls there, every
 * answer but ENOSYS is final -- EINVAL, EPERM, ESRCH, EFAULT, ENOSPC,
 * EOPNOTSUPP, ENOMEM never reach the device; what each call passes.
 *
 * Built twice: t_shim_unit_native, and .m32 against the -m32 build.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "robust_list2.h"
#include "shim_fake.h"
#include "native-fake/fake_nr.h"

/* The series' slot count, which the probe's LIST_LIMIT answers. */
#define SLOTS 8

static void test_no_syscalls_means_device(void **state)
{
	struct robust_list_head head;

	/* the probe gets ENOSYS (the fake's default): device from then on */
	assert_int_equal(0, set_robust_list2(&head, 1, FUTEX_ROBUST_LIST_CMD_SET_64, 0));
	assert_int_equal(1, fake.nr_syscall);
	assert_int_equal(FAKE_NR_SET_ROBUST_LIST2, fake.syscall_nr);
	assert_int_equal(FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, fake.syscall_arg[2]);
	assert_int_equal(1, fake.nr_ioctl);
	assert_int_equal(ROBUST_LIST2_IOC_SET, fake.ioctl_req);
	/* asked once: the next calls go straight to the device */
	assert_int_equal(0, get_robust_list2(0, &(void *){ NULL }, 1, 0));
	fake_ioctl_returns(2);
	assert_int_equal(2, robust_list2_create(&head, FUTEX_ROBUST_LIST_CMD_SET_64));
	assert_int_equal(1, fake.nr_syscall);
	assert_int_equal(3, fake.nr_ioctl);
	assert_int_equal(ROBUST_LIST2_BACKEND_DEVICE, robust_list2_backend());
}

static void test_numbers_of_another_call_mean_device(void **state)
{
	struct robust_list_head head;

	/*
	 * On 6.13 and later the placeholder numbers are setxattrat() and
	 * getxattrat(): whatever they answer to the probe but a slot count,
	 * the library does not use them.
	 */
	fake_syscall_returns(-*(int *)*state);
	assert_int_equal(0, set_robust_list2(&head, 2, FUTEX_ROBUST_LIST_CMD_SET_64, 0));
	assert_int_equal(1, fake.nr_syscall);
	assert_int_equal(1, fake.nr_ioctl);
	assert_int_equal(ROBUST_LIST2_BACKEND_DEVICE, robust_list2_backend());
}

static void test_no_backend_at_all(void **state)
{
	fake_open_fails(ENOENT);
	errno = 0;
	assert_int_equal(-1, robust_list2_backend());
	assert_int_equal(ENOSYS, errno);
}

static void test_backend_syscall(void **state)
{
	fake_syscall_returns(SLOTS);
	assert_int_equal(ROBUST_LIST2_BACKEND_SYSCALL, robust_list2_backend());
	assert_int_equal(0, fake.nr_open);	/* the device is not even opened */
}

static void test_set_passes_arguments(void **state)
{
	struct robust_list_head head;

	fake_syscall_returns(SLOTS);
	fake_syscall_returns(0);
	assert_int_equal(0, set_robust_list2(&head, 7, FUTEX_ROBUST_LIST_CMD_SET_32, 0xa5));
	assert_int_equal(2, fake.nr_syscall);
	assert_int_equal(FAKE_NR_SET_ROBUST_LIST2, fake.syscall_nr);
	assert_int_equal((long)(uintptr_t)&head, fake.syscall_arg[0]);
	assert_int_equal(7, fake.syscall_arg[1]);
	assert_int_equal(FUTEX_ROBUST_LIST_CMD_SET_32, fake.syscall_arg[2]);
	assert_int_equal(0xa5, fake.syscall_arg[3]);
	assert_int_equal(0, fake.nr_open);
	assert_int_equal(0, fake.nr_ioctl);
}

static void test_get_passes_arguments(void **state)
{
	void *got = SENTINEL;

	fake_syscall_returns(SLOTS);
	fake_syscall_returns(0);
	assert_int_equal(0, get_robust_list2(4321, &got, 5, 0));
	assert_int_equal(FAKE_NR_GET_ROBUST_LIST2, fake.syscall_nr);
	assert_int_equal(4321, fake.syscall_arg[0]);
	assert_int_equal((long)(uintptr_t)&got, fake.syscall_arg[1]);
	assert_int_equal(5, fake.syscall_arg[2]);
	assert_int_equal(0, fake.syscall_arg[3]);
	assert_int_equal(0, fake.nr_ioctl);
}

static void test_create_maps_commands(void **state)
{
	struct robust_list_head head;

	fake_syscall_returns(SLOTS);
	fake_syscall_returns(3);
	assert_int_equal(3, robust_list2_create(&head, FUTEX_ROBUST_LIST_CMD_SET_64));
	assert_int_equal(FAKE_NR_SET_ROBUST_LIST2, fake.syscall_nr);
	assert_int_equal((long)(uintptr_t)&head, fake.syscall_arg[0]);
	assert_int_equal(0, fake.syscall_arg[1]);
	assert_int_equal(FAKE_CMD_CREATE_64, fake.syscall_arg[2]);
	fake_syscall_returns(5);
	assert_int_equal(5, robust_list2_create(&head, FUTEX_ROBUST_LIST_CMD_SET_32));
	assert_int_equal(FAKE_CMD_CREATE_32, fake.syscall_arg[2]);
	/* only the two SET commands have a CREATE: no call for the others */
	expect_errno(EINVAL, robust_list2_create(&head, FUTEX_ROBUST_LIST_CMD_LIST_LIMIT));
	expect_errno(EINVAL, robust_list2_create(&head, FAKE_CMD_CREATE_64));
	assert_int_equal(3, fake.nr_syscall);
	assert_int_equal(0, fake.nr_ioctl);
}

/* With the calls there, every error but ENOSYS is the answer. */
static void test_errors_are_final(void **state)
{
	int err = *(int *)*state;
	struct robust_list_head head;
	void *got = SENTINEL;

	fake_syscall_returns(SLOTS);
	fake_syscall_returns(-err);
	expect_errno(err, set_robust_list2(&head, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0));
	fake_syscall_returns(-err);
	expect_errno(err, get_robust_list2(1, &got, 0, 0));
	assert_ptr_equal(SENTINEL, got);
	fake_syscall_returns(-err);
	expect_errno(err, robust_list2_create(&head, FUTEX_ROBUST_LIST_CMD_SET_32));
	assert_int_equal(4, fake.nr_syscall);
	assert_int_equal(0, fake.nr_open);
	assert_int_equal(0, fake.nr_ioctl);
}

/* ... and ENOSYS from a call, after a probe that found them, falls back. */
static void test_enosys_from_a_call_falls_back(void **state)
{
	struct robust_list_head head;
	void *got = SENTINEL;

	fake_syscall_returns(SLOTS);
	fake_syscall_returns(-ENOSYS);
	assert_int_equal(0, set_robust_list2(&head, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0));
	assert_int_equal(1, fake.nr_ioctl);
	assert_int_equal(ROBUST_LIST2_IOC_SET, fake.ioctl_req);
	fake_syscall_returns(-ENOSYS);
	fake.get_head = &head;
	assert_int_equal(0, get_robust_list2(0, &got, 0, 0));
	assert_int_equal(ROBUST_LIST2_IOC_GET, fake.ioctl_req);
	assert_ptr_equal(&head, got);
	fake_syscall_returns(-ENOSYS);
	fake_ioctl_returns(6);
	assert_int_equal(6, robust_list2_create(&head, FUTEX_ROBUST_LIST_CMD_SET_64));
	assert_int_equal(ROBUST_LIST2_IOC_CREATE, fake.ioctl_req);
	assert_int_equal(3, fake.nr_ioctl);
}

static void test_info_from_the_kernel(void **state)
{
	struct robust_list2_info info;

	memset(&info, 0xcc, sizeof(info));
	fake_syscall_returns(SLOTS);
	fake_syscall_returns(SLOTS);
	assert_int_equal(0, robust_list2_info(&info));
	assert_int_equal(FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, fake.syscall_arg[2]);
	assert_int_equal(0, info.abi_version);
	assert_int_equal(SLOTS, info.nr_slots);
	assert_int_equal(FAKE_WALK_LIMIT, info.walk_limit);
	assert_int_equal(sizeof(void *) == 8, !!(info.features & ROBUST_LIST2_F_LIST64));
	assert_true(info.features & ROBUST_LIST2_F_LIST32);
	assert_true(info.features & ROBUST_LIST2_F_CREATE);
	assert_false(info.features & (ROBUST_LIST2_F_UNLOCK | ROBUST_LIST2_F_BASED |
				      ROBUST_LIST2_F_UNLOCK_WINDOW));
	for (unsigned int i = 0; i < sizeof(info.reserved) / sizeof(info.reserved[0]); i++)
		assert_int_equal(0, info.reserved[i]);
	assert_int_equal(0, fake.nr_ioctl);
	fake_syscall_returns(SLOTS);
	expect_errno(EFAULT, robust_list2_info(NULL));
}

/* What the kernel does not have still goes to the device. */
static void test_device_only_calls(void **state)
{
	struct robust_list2_stats st;
	uint32_t word = 0;

	fake_syscall_returns(SLOTS);
	assert_int_equal(ROBUST_LIST2_BACKEND_SYSCALL, robust_list2_backend());
	assert_int_equal(0, robust_list2_stats(&st));
	assert_int_equal(ROBUST_LIST2_IOC_STATS, fake.ioctl_req);
	assert_int_equal(0, robust_list2_unlock(&word, 1, NULL, 0));
	assert_int_equal(ROBUST_LIST2_IOC_UNLOCK, fake.ioctl_req);
	assert_int_equal(0, robust_list2_set_based(0x1000, 0x10000, 0, FUTEX_ROBUST_LIST_CMD_SET_32));
	assert_int_equal(ROBUST_LIST2_IOC_SET_BASED, fake.ioctl_req);
	assert_int_equal(1, fake.nr_syscall);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_no_syscalls_means_device),
		TE(test_numbers_of_another_call_mean_device, EBADF),
		TE(test_numbers_of_another_call_mean_device, EFAULT),
		TE(test_numbers_of_another_call_mean_device, EINVAL),
		T(test_no_backend_at_all),
		T(test_backend_syscall),
		T(test_set_passes_arguments),
		T(test_get_passes_arguments),
		T(test_create_maps_commands),
		TE(test_errors_are_final, EINVAL),
		TE(test_errors_are_final, EPERM),
		TE(test_errors_are_final, ESRCH),
		TE(test_errors_are_final, EFAULT),
		TE(test_errors_are_final, ENOSPC),
		TE(test_errors_are_final, EOPNOTSUPP),
		TE(test_errors_are_final, ENOMEM),
		TE(test_errors_are_final, EINTR),
		T(test_enosys_from_a_call_falls_back),
		T(test_info_from_the_kernel),
		T(test_device_only_calls),
	};

	return cmocka_run_group_tests_name("shim_unit_native", tests, NULL, NULL);
}
