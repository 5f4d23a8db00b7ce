// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own futex_exit_release() body must run after our exit walk,
 * whatever the fault-injection build is told.  It is what hands a PI
 * futex a dead thread held to its waiter (exit_pi_state_list()); skipping
 * it leaves the waiter asleep for good and pi_state->owner pointing at a
 * freed task.
 *
 * A module that resumed the body through a second ftrace redirect of a
 * stub skipped it (with a WARN) when that redirect was missing, which
 * fi_no_redirect=futex_exit_release arranged.  Ours resumes it by a
 * return from its thunk, which nothing can leave out: with the same knob
 * set, a registered child takes a PI futex, the parent's thread waits for
 * it in FUTEX_LOCK_PI, the child exits holding it, and the waiter must get
 * the lock with FUTEX_OWNER_DIED within 10 s.  The host
 * (tests/host/t_vm_fault_inject.sh) boots this VM as any other,
 * panic_on_warn=1 and the kernel log scanned: exit 0 only if the waiter
 * got the lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "helpers.h"

struct shared {
	struct robust_list_head head;
	struct th_lock64 lock;		/* the PI futex word: lock.futex */
	uint32_t ready, go;
};

static struct shared *sh;

static int child(void *p)
{
	struct robust_list2_set a = { .cmd = FUTEX_ROBUST_LIST_CMD_SET_64 };
	int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);
	uint32_t zero = 0;

	if (fd < 0)
		return 10;
	th_list64_init(&sh->head, TH_OFF64);
	th_list64_add(&sh->head, &sh->lock, true);
	a.head = (uintptr_t)&sh->head;
	if (ioctl(fd, ROBUST_LIST2_IOC_SET, &a))
		return 11;
	/* a PI lock taken without the kernel, as glibc takes an uncontended one */
	if (!__atomic_compare_exchange_n(&sh->lock.futex, &zero, th_gettid(), false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 12;
	th_set_flag(&sh->ready, 1);
	th_wait_flag(&sh->go, 1, TH_TIMEOUT_MS);
	return 0;		/* exits holding it: our walk, then the body */
}

static struct {
	pid_t tid;
	long ret;
	int err;
} waiter;

static void *lock_pi(void *p)
{
	struct timespec ts;

	waiter.tid = th_gettid();
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;		/* FUTEX_LOCK_PI: absolute, CLOCK_REALTIME */
	waiter.ret = syscall(SYS_futex, &sh->lock.futex, FUTEX_LOCK_PI, 0, &ts, NULL, 0);
	waiter.err = errno;
	return NULL;
}

int main(void)
{
	pthread_t t;
	uint32_t word;
	pid_t pid;
	int ret;

	sh = th_shared_alloc(4096, false);
	if (th_write_file("/sys/module/robust_list2/parameters/fi_no_redirect",
			  "futex_exit_release")) {
		fprintf(stderr, "not the fault-injection build of the module\n");
		return 2;
	}
	pid = th_spawn_child(child, NULL);
	if (!th_wait_flag(&sh->ready, 1, TH_TIMEOUT_MS)) {
		printf("fi_stub: the child never took the lock (%d)\n", th_wait_child(pid));
		return 1;
	}
	if (pthread_create(&t, NULL, lock_pi, NULL))
		return 2;
	while (!__atomic_load_n(&waiter.tid, __ATOMIC_ACQUIRE))
		th_sleep_ms(1);
	if (th_wait_futex_sleeper(getpid(), waiter.tid, &sh->lock.futex))
		return 1;
	th_set_flag(&sh->go, 1);
	ret = th_wait_child(pid);
	pthread_join(t, NULL);
	word = __atomic_load_n(&sh->lock.futex, __ATOMIC_ACQUIRE);
	if (ret || waiter.ret || (word & FUTEX_TID_MASK) != (uint32_t)waiter.tid ||
	    !(word & FUTEX_OWNER_DIED)) {
		printf("fi_stub: child exit %d, FUTEX_LOCK_PI %ld (%s), word 0x%08x: the PI waiter was not handed the lock\n",
		       ret, waiter.ret, waiter.ret ? strerror(waiter.err) : "ok", word);
		return 1;
	}
	printf("fi_stub: the PI waiter took the lock the dead child held (word 0x%08x) with fi_no_redirect=futex_exit_release\n",
	       word);
	return 0;
}
