// SPDX-License-Identifier: GPL-2.0
/*
 * Module unload: refused while any thread has a slot (or the device is
 * open), clean otherwise — also while unrelated threads are exiting — and
 * the module reloads and works again.  Leaves the module loaded.
 *
 * The parent never opens the device itself (a cached descriptor would pin
 * the module): children use raw open/ioctl/close.  The module image is
 * $RL2_KO, by default where the harness puts it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
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

static const char *ko_path;

static bool module_loaded(void)
{
	struct stat st;

	return stat("/sys/module/robust_list2", &st) == 0;
}

static int setup(void **state)
{
	ko_path = getenv("RL2_KO") ?: "/lib/robust_list2/robust_list2.ko";
	if (access(ko_path, R_OK) || !module_loaded()) {
		fprintf(stderr, "# need the loaded module and its image at %s\n", ko_path);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	return module_loaded() || th_module_load(ko_path) == 0 ? 0 : -1;
}

struct holder {
	uint32_t ready;
	uint32_t go;
	struct robust_list_head head;
	struct th_lock64 lock;
};

/* Register a slot through a descriptor that is closed right after. */
static int child_register_then_close(void *p)
{
	struct holder *h = p;
	struct robust_list2_set a = { .cmd = TH_NATIVE };
	int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return 1;
	th_list64_init(&h->head, TH_OFF64);
	h->lock.futex = th_gettid();
	th_list64_add(&h->head, &h->lock, false);
	a.head = (uintptr_t)&h->head;
	if (ioctl(fd, ROBUST_LIST2_IOC_SET, &a))
		return 2;
	close(fd);
	__atomic_store_n(&h->ready, 1, __ATOMIC_RELEASE);
	th_futex_wake(&h->ready, 1, false);
	for (int i = 0; i < 100 && !__atomic_load_n(&h->go, __ATOMIC_ACQUIRE); i++)
		th_futex_wait(&h->go, 0, 100, false);
	return 0;
}

static void test_unload_refused_while_a_slot_is_registered(void **state)
{
	struct holder *h = th_shared_alloc(4096, false);
	pid_t pid = th_spawn_child(child_register_then_close, h);

	for (int i = 0; i < 100 && !__atomic_load_n(&h->ready, __ATOMIC_ACQUIRE); i++)
		th_futex_wait(&h->ready, 0, 100, false);
	assert_int_equal(1, h->ready);

	/* no descriptor is open any more: only the registration pins us */
	assert_int_equal(-1, th_module_unload());
	assert_int_equal(EWOULDBLOCK, errno);
	assert_true(module_loaded());

	__atomic_store_n(&h->go, 1, __ATOMIC_RELEASE);
	th_futex_wake(&h->go, 1, false);
	assert_int_equal(0, th_wait_child(pid));
	/* its exit walked the list (the module was still there to do it) */
	assert_int_equal(FUTEX_OWNER_DIED, h->lock.futex);

	/* and released the module */
	assert_int_equal(0, th_module_unload());
	assert_false(module_loaded());
	assert_int_equal(0, th_module_load(ko_path));
	th_free(h, 4096);
}

/*
 * The module's ftrace ops lives from load to unload and holds no reference
 * on the module: the refcount counts open files and threads with a slot,
 * and drops to 0 the moment the last of them is gone, so rmmod succeeds
 * right after (a module that removed its ops a second after its last user
 * held a reference on itself meanwhile).
 */
static void test_refcount_counts_users_only(void **state)
{
	struct holder *h = th_shared_alloc(4096, false);
	pid_t pid;
	int fd;

	assert_int_equal(0, th_module_unload());
	assert_int_equal(0, th_module_load(ko_path));
	assert_int_equal(0, th_module_refcnt());

	pid = th_spawn_child(child_register_then_close, h);
	for (int i = 0; i < 100 && !__atomic_load_n(&h->ready, __ATOMIC_ACQUIRE); i++)
		th_futex_wait(&h->ready, 0, 100, false);
	assert_int_equal(1, h->ready);
	assert_int_equal(1, th_module_refcnt());	/* the child's record */
	/* opened after the fork: the child does not share this file */
	fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(2, th_module_refcnt());	/* and the file */
	close(fd);
	assert_int_equal(1, th_module_refcnt());
	__atomic_store_n(&h->go, 1, __ATOMIC_RELEASE);
	th_futex_wake(&h->go, 1, false);
	assert_int_equal(0, th_wait_child(pid));
	assert_int_equal(FUTEX_OWNER_DIED, h->lock.futex);
	assert_int_equal(0, th_module_refcnt());
	assert_int_equal(0, th_module_unload());	/* at once */
	assert_int_equal(0, th_module_load(ko_path));
	th_free(h, 4096);
}

static void test_unload_refused_while_device_open(void **state)
{
	int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(-1, th_module_unload());
	assert_int_equal(EWOULDBLOCK, errno);
	close(fd);
}

static int child_expect_enosys(void *p)
{
	void *head = NULL;

	if (set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, 0) != -1 || errno != ENOSYS)
		return 1;
	if (get_robust_list2(0, &head, 0, 0) != -1 || errno != ENOSYS)
		return 2;
	return 0;
}

static int child_expect_works(void *p)
{
	return set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, 0) == 8 ? 0 : 1;
}

static void test_enosys_without_module_then_reload(void **state)
{
	assert_int_equal(0, th_module_unload());
	assert_int_equal(-1, access(ROBUST_LIST2_DEVICE, F_OK));
	assert_int_equal(0, th_wait_child(th_spawn_child(child_expect_enosys, NULL)));
	assert_int_equal(0, th_module_load(ko_path));
	assert_int_equal(0, access(ROBUST_LIST2_DEVICE, R_OK | W_OK));
	assert_int_equal(0, th_wait_child(th_spawn_child(child_expect_works, NULL)));
}

/* Kernel log records written since @fd was opened at the end of the log. */
static int kmsg_lines_matching(int fd, const char *needle, char *last, size_t len)
{
	char rec[1024];
	int n = 0;
	ssize_t r;

	while ((r = read(fd, rec, sizeof(rec) - 1)) > 0) {
		rec[r] = 0;
		if (strstr(rec, needle)) {
			n++;
			snprintf(last, len, "%s", rec);
		}
	}
	return n;
}

static void test_refuses_to_load_with_one_clear_line(void **state)
{
	const char *sysctl = "/proc/sys/kernel/ftrace_enabled";
	char line[1024] = "";
	int kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	assert_true(kmsg >= 0);
	assert_int_equal(0, th_module_unload());
	lseek(kmsg, 0, SEEK_END);
	assert_int_equal(0, th_write_file(sysctl, "0"));

	assert_int_equal(-1, th_module_load(ko_path));
	assert_int_equal(EBUSY, errno);
	assert_false(module_loaded());
	/* exactly one line from us, and it names the cause */
	assert_int_equal(1, kmsg_lines_matching(kmsg, "robust_list2:", line, sizeof(line)));
	assert_non_null(strstr(line, "ftrace_enabled=0"));

	assert_int_equal(0, th_write_file(sysctl, "1"));
	assert_int_equal(0, th_module_load(ko_path));
	close(kmsg);
}

/* Threads and processes that never touch the module, exiting in a loop. */
static void *short_thread(void *p)
{
	return p;
}

static int churn(void *p)
{
	volatile uint32_t *stop = p;

	while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
		pthread_t t[4];
		pid_t pid;

		for (int i = 0; i < 4; i++)
			if (pthread_create(&t[i], NULL, short_thread, NULL))
				return 1;
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
	return 0;
}

static void test_unload_reload_while_threads_exit(void **state)
{
	uint32_t *stop = th_shared_alloc(4096, false);
	pid_t churner = th_spawn_child(churn, stop);

	for (int i = 0; i < 4; i++) {
		assert_int_equal(0, th_module_unload());
		assert_int_equal(0, th_module_load(ko_path));
	}
	__atomic_store_n(stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(0, th_wait_child(churner));
	th_free(stop, 4096);
}

/*
 * rmmod in a loop while threads that hold registered locks exit and
 * others fork and exit: every attempt is refused (in use) or succeeds
 * cleanly, a successful one is followed by a reload, and every lock of a
 * thread that registered is recovered by its exit walk.
 */
struct reg_churn {
	volatile int stop;
	uint32_t registered, recovered, unrecovered;
	uint32_t bad_word;	/* of the first unrecovered lock */
};

static void *reg_thread(void *p)
{
	/* threads of one batch have consecutive TIDs: distinct lock slots */
	struct th_lock64 *l = (void *)((char *)p + 2048 + (th_gettid() % 64) * 16);
	/*
	 * Not on the stack: the thread exits after this function returned, and
	 * glibc's exit path reuses that stack (on arm64 it overwrote the head).
	 */
	static __thread struct robust_list_head h;
	struct robust_list2_set a = { .cmd = TH_NATIVE };
	int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return NULL;		/* unloaded right now */
	th_list64_init(&h, TH_OFF64);
	l->futex = th_gettid();
	th_list64_add(&h, l, false);
	a.head = (uintptr_t)&h;
	if (ioctl(fd, ROBUST_LIST2_IOC_SET, &a) == 0)
		return (void *)l;	/* exit holding it, device closed */
	close(fd);
	return NULL;
}

static int reg_churn_child(void *p)
{
	struct reg_churn *c = p;

	while (!__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
		pthread_t t[8];
		void *ret;

		for (int i = 0; i < 8; i++)
			if (pthread_create(&t[i], NULL, reg_thread, c))
				return 1;
		for (int i = 0; i < 8; i++) {
			struct th_lock64 *l;

			pthread_join(t[i], &ret);
			l = ret;
			if (!l)
				continue;
			c->registered++;
			if (l->futex == FUTEX_OWNER_DIED)
				c->recovered++;
			else if (!c->unrecovered++)
				c->bad_word = l->futex;
		}
	}
	return 0;
}

static void test_rmmod_loop_while_registered_threads_exit(void **state)
{
	struct reg_churn *c = th_shared_alloc(4096, false);
	uint32_t *stop = th_shared_alloc(4096, false);
	pid_t churner = th_spawn_child(reg_churn_child, c);
	pid_t bystander = th_spawn_child(churn, stop);
	int unloaded = 0, refused = 0;

	for (int i = 0; i < 40; i++) {
		if (th_module_unload() == 0) {
			unloaded++;
			assert_int_equal(0, th_module_load(ko_path));
		} else {
			assert_true(errno == EWOULDBLOCK || errno == EBUSY);
			refused++;
		}
	}
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(0, th_wait_child_ms(churner, 60000));
	assert_int_equal(0, th_wait_child(bystander));
	print_message("# rmmod: %d unloaded, %d refused; %u registered threads, all recovered: %s\n",
		      unloaded, refused, c->registered, c->unrecovered ? "no" : "yes");
	if (c->unrecovered)
		print_message("# the first unrecovered lock word: %#x\n", c->bad_word);
	assert_true(module_loaded());
	assert_true(c->registered > 0);
	assert_int_equal(0, c->unrecovered);
	th_free(c, 4096);
	th_free(stop, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refcount_counts_users_only),
		cmocka_unit_test(test_unload_refused_while_device_open),
		cmocka_unit_test(test_unload_refused_while_a_slot_is_registered),
		cmocka_unit_test(test_enosys_without_module_then_reload),
		cmocka_unit_test(test_refuses_to_load_with_one_clear_line),
		cmocka_unit_test(test_unload_reload_while_threads_exit),
		cmocka_unit_test(test_rmmod_loop_while_registered_threads_exit),
	};

	TH_MODULE_ONLY_SUITE("loading and unloading robust_list2.ko");
	return cmocka_run_group_tests_name("unload", tests, setup, teardown);
}
