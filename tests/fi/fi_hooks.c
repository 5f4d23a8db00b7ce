// SPDX-License-Identifier: GPL-2.0
/*
 * Paths no stock kernel takes on demand, through the fault-injection
 * build of the module (module/fault_inject.c, scripts/build-module
 * --fault-inject), in a VM of their own (tests/host/t_vm_fault_inject.sh):
 *
 *  - an ftrace ops that cannot be unregistered (as after ftrace_kill())
 *    makes rmmod wait, with one pr_crit line, instead of freeing what the
 *    ops points at; exits on the machine go on meanwhile, and the unload
 *    finishes once unregistration works again;
 *  - the unlock ioctl does not give up on a contended word after a fixed
 *    number of lost compare-exchanges, and a fatal signal still ends it.
 *
 * Leaves the module loaded with no injection armed, so the harness can
 * unload it and scan the kernel log as after any run.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "helpers.h"

#define PARAM(name)	"/sys/module/robust_list2/parameters/" name

static const char *ko_path;

/* Wait until the refcount reads @want, at most @ms; returns the last read. */
static int wait_refcnt(int want, int ms)
{
	int n = th_module_refcnt();

	for (int i = 0; i < ms / 50 && n != want; i++) {
		usleep(50 * 1000);
		n = th_module_refcnt();
	}
	return n;
}

/* Kernel log records from @fd (opened at the end of the log) containing @needle. */
static int kmsg_count(int fd, const char *needle)
{
	char rec[1024];
	ssize_t r;
	int n = 0;

	while ((r = read(fd, rec, sizeof(rec) - 1)) > 0) {
		rec[r] = 0;
		if (strstr(rec, needle))
			n++;
	}
	return n;
}

/*
 * ROBUST_LIST2_IOC_UNLOCK on a descriptor of our own, closed after: the
 * library would keep one open for the process, and an open file pins
 * the module.
 */
static long raw_unlock(uint32_t *word, uint32_t tid, void *pop)
{
	struct robust_list2_unlock a = {
		.uaddr = (uintptr_t)word, .pop = (uintptr_t)pop,
		.tid = tid, .nr_wake = 1,
	};
	int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);
	long ret;
	int err;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, ROBUST_LIST2_IOC_UNLOCK, &a);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

static int setup(void **state)
{
	ko_path = getenv("RL2_KO") ?: "/lib/robust_list2/robust_list2.ko";
	if (access(PARAM("fi_unregister_errno"), W_OK)) {
		fprintf(stderr, "# not the fault-injection build of the module\n");
		return -1;
	}
	return 0;
}

/* A child thread with one registered, held lock, that exits holding it. */
struct holder {
	struct robust_list_head head;
	struct th_lock64 lock;
	uint32_t ready, go, unlock_ret, unlock_errno;
	int unlock;		/* call the unlock ioctl instead of exiting */
};

static int holder_child(void *p)
{
	struct holder *h = p;
	struct robust_list2_set a = { .cmd = FUTEX_ROBUST_LIST_CMD_SET_64 };
	int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);
	long r;

	if (fd < 0)
		return 10;
	th_list64_init(&h->head, TH_OFF64);
	h->lock.futex = th_gettid();
	th_list64_add(&h->head, &h->lock, false);
	a.head = (uintptr_t)&h->head;
	if (ioctl(fd, ROBUST_LIST2_IOC_SET, &a))
		return 11;
	close(fd);			/* the record alone pins the module */
	if (h->unlock) {
		/* as a user-space unlock does: pending first, then release */
		h->head.list_op_pending = &h->lock.list;
		th_set_flag(&h->ready, 1);
		r = raw_unlock(&h->lock.futex, th_gettid(),
			       &h->head.list_op_pending);
		h->unlock_ret = (uint32_t)r;
		h->unlock_errno = errno;
		return 12;		/* only if the ioctl returned */
	}
	th_set_flag(&h->ready, 1);
	th_wait_flag(&h->go, 1, 10000);
	return 0;			/* exits holding the lock */
}

static int rmmod_child(void *p)
{
	return th_module_unload() ? errno : 0;
}

static int exit_child(void *p)
{
	return 0;
}

static void test_failed_unregister_makes_rmmod_wait(void **state)
{
	int kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	char st[32] = "";
	int status;
	pid_t pid;

	assert_true(kmsg >= 0);
	lseek(kmsg, 0, SEEK_END);
	assert_int_equal(0, wait_refcnt(0, 3000));

	/* as after ftrace_kill(): every unregistration fails with -ENODEV */
	assert_int_equal(0, th_write_file(PARAM("fi_unregister_errno"), "19"));
	pid = th_spawn_child(rmmod_child, NULL);
	th_sleep_ms(2500);
	/* rmmod is still waiting, the module going, and said so once */
	assert_int_equal(0, waitpid(pid, &status, WNOHANG));
	assert_true(th_read_file("/sys/module/robust_list2/initstate", st, sizeof(st)) > 0);
	assert_string_equal("going\n", st);
	assert_int_equal(1, kmsg_count(kmsg, "robust_list2: cannot remove its ftrace ops (-19)"));
	/* the device is gone, and exits still pass through the ops unharmed */
	assert_int_equal(-1, access(ROBUST_LIST2_DEVICE, F_OK));
	for (int i = 0; i < 20; i++)
		assert_int_equal(0, th_wait_child(th_spawn_child(exit_child, NULL)));

	/* once unregistration works again, the unload finishes */
	assert_int_equal(0, th_write_file(PARAM("fi_unregister_errno"), "0"));
	assert_int_equal(0, th_wait_child_ms(pid, 5000));
	assert_int_equal(-1, access("/sys/module/robust_list2", F_OK));
	assert_int_equal(0, th_module_load(ko_path));
	close(kmsg);
}

static void test_unlock_does_not_give_up_on_a_contended_word(void **state)
{
	uint32_t word = th_gettid();
	uint64_t pop = (uintptr_t)&word;
	char left[32];

	/* far more lost compare-exchanges than the old bound of 1024 */
	assert_int_equal(0, th_write_file(PARAM("fi_unlock_races"), "5000"));
	assert_int_equal(0, raw_unlock(&word, th_gettid(), &pop));
	assert_int_equal(0, word);
	assert_int_equal(0, pop);
	assert_true(th_read_file(PARAM("fi_unlock_races"), left, sizeof(left)) > 0);
	assert_int_equal(0, atoi(left));	/* every one was retried */
}

static void test_unlock_that_never_wins_ends_with_sigkill(void **state)
{
	struct holder *h = th_shared_alloc(4096, false);
	long t0;
	pid_t pid;
	int st;

	h->unlock = 1;
	assert_int_equal(0, th_write_file(PARAM("fi_unlock_races"), "4294967295"));
	pid = th_spawn_child(holder_child, h);
	assert_true(th_wait_flag(&h->ready, 1, 10000));
	th_sleep_ms(300);
	/* still inside the ioctl, retrying */
	assert_int_equal(0, waitpid(pid, &st, WNOHANG));
	t0 = th_now_ms();
	assert_int_equal(0, kill(pid, SIGKILL));
	assert_int_equal(pid, waitpid(pid, &st, 0));
	print_message("# SIGKILL -> waitpid %ld ms\n", th_now_ms() - t0);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_true(th_now_ms() - t0 < 5000);
	assert_int_equal(0, th_write_file(PARAM("fi_unlock_races"), "0"));
	/* it died holding the lock, pending: its exit walk recovered it */
	assert_int_equal(FUTEX_OWNER_DIED, h->lock.futex);
	th_free(h, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unlock_does_not_give_up_on_a_contended_word),
		cmocka_unit_test(test_unlock_that_never_wins_ends_with_sigkill),
		cmocka_unit_test(test_failed_unregister_makes_rmmod_wait),
	};

	/* the host counts TAP lines (vm-run passes no environment) */
	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests_name("fault_inject", tests, setup, NULL);
}
