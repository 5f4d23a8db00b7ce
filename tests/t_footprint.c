// SPDX-License-Identifier: GPL-2.0
/*
 * What the module may do to the rest of the machine: nothing but its exit
 * and exec hook, installed at load and removed at unload
 * (module/exit_hook.c).  No user action changes kernel text or takes a
 * lock other devices share, so:
 *
 *  - opening and closing /dev/robust_list2 never stalls the open() of
 *    another misc device.  misc_open() calls every driver's open with the
 *    misc core's global lock held; a module that installs ftrace ops on
 *    open (and removes them a second after the last close) made other
 *    misc opens wait for its text patching and grace periods: up to 862 ms
 *    on 6.12 under TCG;
 *  - root's `sysctl kernel.ftrace_enabled=0` gets the same answer (EBUSY:
 *    our ops is FTRACE_OPS_FL_PERMANENT) whether or not an unprivileged
 *    process holds the device open.
 *
 * The parent never opens the device through the library: it uses raw
 * descriptors and closes them, so "nobody holds it" is true.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "helpers.h"

#define MISC_MAJOR	10
#define FTRACE_ENABLED	"/proc/sys/kernel/ftrace_enabled"

#if __SIZEOF_LONG__ == 8	/* main() says why */
/* Far below a grace period and a text patch, far above an open() under TCG. */
#define STALL_LIMIT_MS	250

/* Misc devices every Debian kernel of the matrix has built in, in the VM. */
static const char *const other_misc[] = {
	"/dev/cpu_dma_latency", "/dev/fuse", "/dev/vga_arbiter", "/dev/hpet",
	"/dev/rfkill", "/dev/snapshot", NULL,
};

static const char *find_other_misc(void)
{
	struct stat st;

	for (int i = 0; other_misc[i]; i++)
		if (!stat(other_misc[i], &st) && S_ISCHR(st.st_mode) &&
		    major(st.st_rdev) == MISC_MAJOR)
			return other_misc[i];
	return NULL;
}

static struct {
	const char *path;
	volatile int stop;
	long worst_ms;		/* slowest open() of the other device */
	long opens;
	int err;
} prober;

static void *probe_other(void *p)
{
	while (!__atomic_load_n(&prober.stop, __ATOMIC_ACQUIRE)) {
		long t0 = th_now_ms();
		int fd = open(prober.path, O_RDONLY | O_CLOEXEC);
		long dt = th_now_ms() - t0;

		if (fd < 0) {
			prober.err = errno;
			break;
		}
		close(fd);
		if (dt > prober.worst_ms)
			prober.worst_ms = dt;
		prober.opens++;
		usleep(2000);
	}
	return NULL;
}

static void test_open_never_stalls_other_misc_devices(void **state)
{
	long worst_ours = 0;
	pthread_t t;

	prober.path = find_other_misc();
	if (!prober.path) {
		fprintf(stderr, "# no other misc device in this VM\n");
		skip();
	}
	assert_int_equal(0, pthread_create(&t, NULL, probe_other, NULL));
	/*
	 * Open and close ours with pauses around one second, where a module
	 * that removed its hooks a second after the last user was removing
	 * them when the next open came.
	 */
	for (int i = 0; i < 8; i++) {
		long t0 = th_now_ms();
		int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);
		long dt = th_now_ms() - t0;

		assert_true(fd >= 0);
		close(fd);
		if (dt > worst_ours)
			worst_ours = dt;
		th_sleep_ms(850 + 60 * i);
	}
	__atomic_store_n(&prober.stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(0, pthread_join(t, NULL));
	fprintf(stderr, "# %ld opens of %s, slowest %ld ms; slowest open of ours %ld ms\n",
		prober.opens, prober.path, prober.worst_ms, worst_ours);
	assert_int_equal(0, prober.err);
	assert_true(prober.opens > 100);
	assert_in_range(prober.worst_ms, 0, STALL_LIMIT_MS);
}
#endif

/* Try to turn ftrace off; 0 or -errno.  Turned back on if it worked. */
static int try_ftrace_off(void)
{
	int ret = th_write_file(FTRACE_ENABLED, "0");

	if (!ret)
		assert_int_equal(0, th_write_file(FTRACE_ENABLED, "1"));
	return ret;
}

struct holder {
	uint32_t ready, done;
	int err;
};

/* An unprivileged process that holds the device open until told. */
static int hold_device(void *p)
{
	struct holder *h = p;
	int fd;

	if (th_become(65534))
		return 10;
	fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);
	h->err = fd < 0 ? errno : 0;
	th_set_flag(&h->ready, 1);
	th_wait_flag(&h->done, 1, TH_TIMEOUT_MS);
	if (fd >= 0)
		close(fd);
	return 0;
}

static void test_ftrace_enabled_answer_does_not_depend_on_users(void **state)
{
	struct holder *h = th_shared_alloc(4096, false);
	int nobody, held;
	pid_t pid;

	if (access(FTRACE_ENABLED, W_OK)) {
		fprintf(stderr, "# no %s\n", FTRACE_ENABLED);
		skip();
	}
	/* past any idle delay a module might have after its last user */
	th_sleep_ms(1500);
	nobody = try_ftrace_off();

	pid = th_spawn_child(hold_device, h);
	assert_true(th_wait_flag(&h->ready, 1, TH_TIMEOUT_MS));
	held = try_ftrace_off();
	th_set_flag(&h->done, 1);
	assert_int_equal(0, th_wait_child(pid));

	fprintf(stderr, "# ftrace_enabled=0: nobody holds the device: %s; a user holds it: %s\n",
		strerror(-nobody), strerror(-held));
	assert_int_equal(0, h->err);		/* the user could open it */
	assert_int_equal(-EBUSY, nobody);	/* the documented answer */
	assert_int_equal(nobody, held);
	assert_int_equal(1, th_read_long(FTRACE_ENABLED, -1));
	th_free(h, 4096);
}

static int setup(void **state)
{
	return th_have_device() ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/*
		 * Nothing in the stall test depends on the caller's ABI, and
		 * it sleeps 10 s: only the 64-bit program runs it.
		 */
#if __SIZEOF_LONG__ == 8
		cmocka_unit_test(test_open_never_stalls_other_misc_devices),
#endif
		cmocka_unit_test(test_ftrace_enabled_answer_does_not_depend_on_users),
	};

	TH_MODULE_ONLY_SUITE("what loading robust_list2.ko costs the machine (its "
	                     "ftrace hook, its device)");
	return cmocka_run_group_tests_name("footprint", tests, setup, NULL);
}
