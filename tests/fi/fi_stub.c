// SPDX-License-Identifier: GPL-2.0
/*
 * A kcall stub without its redirect must fail loudly, never silently skip
 * the kernel function it stands for.  With the fault-injection build
 * (module/fault_inject.c), the futex_exit_release() stub is left
 * unredirected; a registered thread then exits.  The expected outcome is
 * the stub's WARN.  The host (tests/host/t_vm_fault_inject.sh) boots this
 * VM with panic_on_warn=0, so that this program can read the WARN back
 * from the kernel log and say so; the harness then reports the kernel log
 * dirty, as it must.  Exit 0 only if the WARN is there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
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

/* The first kernel log record from @fd (opened at the end) containing @needle. */
static bool kmsg_find(int fd, const char *needle, char *rec, size_t len)
{
	ssize_t n;

	while ((n = read(fd, rec, len - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = 0;
		if (strstr(rec, needle))
			return true;
	}
	return false;
}

int main(void)
{
	int kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char rec[1024];
	int ret;

	if (kmsg < 0) {
		perror("/dev/kmsg");
		return 2;
	}
	lseek(kmsg, 0, SEEK_END);

	if (th_write_file("/sys/module/robust_list2/parameters/fi_no_redirect",
			  "futex_exit_release")) {
		fprintf(stderr, "not the fault-injection build of the module\n");
		return 2;
	}
	ret = th_wait_child(th_spawn_child(child, NULL));
	if (kmsg_find(kmsg, "robust_list2: futex_exit_release ran without its redirect",
		      rec, sizeof(rec))) {
		printf("fi_stub: the child exited (%d) with the stub's WARN: %s", ret,
		       strchr(rec, ';') ? strchr(rec, ';') + 1 : rec);
		return 0;
	}
	printf("fi_stub: the child exited (%d) and nothing failed loudly\n", ret);
	return 1;
}
