// SPDX-License-Identifier: GPL-2.0
/*
 * A kcall stub without its redirect must fail loudly, never silently skip
 * the kernel function it stands for.  With the fault-injection build
 * (module/fault_inject.c), the futex_exit_release() stub is left
 * unredirected; a registered thread then exits.  The expected outcome is
 * the stub's WARN, which panic_on_warn=1 turns into a panic: the host
 * (tests/host/t_vm_fault_inject.sh) looks for both on the console.  If
 * this program exits at all, the stub ran silently.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "helpers.h"

static struct robust_list_head head;
static struct th_lock64 lock;

static int child(void *p)
{
	struct robust_list2_set a = { .cmd = FUTEX_ROBUST_LIST_CMD_SET_64 };
	int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return 10;
	th_list64_init(&head, TH_OFF64);
	lock.futex = th_gettid();
	th_list64_add(&head, &lock, false);
	a.head = (uintptr_t)&head;
	if (ioctl(fd, ROBUST_LIST2_IOC_SET, &a))
		return 11;
	return 0;		/* exit: our hook, then the stub */
}

int main(void)
{
	int ret;

	if (th_write_file("/sys/module/robust_list2/parameters/fi_no_redirect",
			  "futex_exit_release")) {
		fprintf(stderr, "not the fault-injection build of the module\n");
		return 2;
	}
	ret = th_wait_child(th_spawn_child(child, NULL));
	printf("fi_stub: the child exited (%d) and nothing failed loudly\n", ret);
	return 1;
}
