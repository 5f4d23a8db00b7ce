// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * The native backend (native.h): set_robust_list2()/get_robust_list2() as
 * the system calls of kernel-series/, built only by make lib NATIVE=<kernel>
 * against that kernel's exported headers, which give the system call
 * numbers and the commands.
 *
 * Those numbers are placeholders: the next free ones of 6.12, which belong
 * to other calls from 6.13 on.  So the library asks the kernel once, with
 * FUTEX_ROBUST_LIST_CMD_LIST_LIMIT (harmless whatever the number means),
 * whether the calls are there: a slot count means yes; ENOSYS (a kernel
 * without them) or any other answer (a kernel where the number is another
 * call) means no, and every call then goes to /dev/robust_list2.  Once the
 * calls are there, their answers are final, errors included: only ENOSYS
 * would send a call to the device.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <asm/unistd.h>
#include <linux/futex.h>
#include <linux/robust_list2.h>

#include "native.h"
#include "syscall.h"

#if !defined(__NR_set_robust_list2) || !defined(__NR_get_robust_list2) || \
	!defined(FUTEX_ROBUST_LIST_CMD_CREATE_64) || !defined(FUTEX_ROBUST_LIST2_WALK_LIMIT)
#error "NATIVE: these kernel headers have no set_robust_list2() (make headers_install of kernel-series/)"
#endif

static int rl2_native = -1;	/* not asked yet; then 0 or 1 */

int rl2__native_present(void)
{
	int present = __atomic_load_n(&rl2_native, __ATOMIC_RELAXED);

	if (present < 0) {
		long n = rl2__syscall4(__NR_set_robust_list2, 0, 0,
				       FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, 0);

		present = n > 0;
		__atomic_store_n(&rl2_native, present, __ATOMIC_RELAXED);
	}
	return present;
}

void rl2__native_reset(void)
{
	__atomic_store_n(&rl2_native, -1, __ATOMIC_RELAXED);
}

long rl2__native_set(void *head, unsigned int index, unsigned int cmd,
		     unsigned int flags)
{
	if (!rl2__native_present())
		return -ENOSYS;
	return rl2__syscall4(__NR_set_robust_list2, (long)(uintptr_t)head, index,
			     cmd, flags);
}

long rl2__native_get(int pid, void **head_ptr, unsigned int index,
		     unsigned int flags)
{
	if (!rl2__native_present())
		return -ENOSYS;
	return rl2__syscall4(__NR_get_robust_list2, pid, (long)(uintptr_t)head_ptr,
			     index, flags);
}

long rl2__native_create(void *head, unsigned int cmd)
{
	if (!rl2__native_present())
		return -ENOSYS;
	switch (cmd) {
	case FUTEX_ROBUST_LIST_CMD_SET_64:
		cmd = FUTEX_ROBUST_LIST_CMD_CREATE_64;
		break;
	case FUTEX_ROBUST_LIST_CMD_SET_32:
		cmd = FUTEX_ROBUST_LIST_CMD_CREATE_32;
		break;
	default:
		return -EINVAL;		/* as the device answers */
	}
	return rl2__syscall4(__NR_set_robust_list2, (long)(uintptr_t)head, 0, cmd, 0);
}

/*
 * robust_list2_info() from what the kernel offers: its slot count, the walk
 * budget of its headers, and the features of kernel-series/.  abi_version
 * is the device's ioctl ABI: 0, there is none.
 */
long rl2__native_info(struct robust_list2_info *info)
{
	struct robust_list2_info i = {
		.walk_limit = FUTEX_ROBUST_LIST2_WALK_LIMIT,
		.features = ROBUST_LIST2_F_LIST32 | ROBUST_LIST2_F_CYCLE_SAFE |
			    ROBUST_LIST2_F_PRIVATE_WAKE | ROBUST_LIST2_F_EXEC_WALK |
			    ROBUST_LIST2_F_CREATE,
	};
	long n;

	if (!rl2__native_present())
		return -ENOSYS;
	n = rl2__syscall4(__NR_set_robust_list2, 0, 0,
			  FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, 0);
	if (n < 0)
		return n;
	if (!info)
		return -EFAULT;
	i.nr_slots = (uint32_t)n;
	if (sizeof(void *) == 8)
		i.features |= ROBUST_LIST2_F_LIST64;
	memcpy(info, &i, sizeof(i));
	return 0;
}
