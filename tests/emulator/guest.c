// SPDX-License-Identifier: GPL-2.0
/*
 * The guest of `make check-emulator`: an i386 (-m32 -static) or x86_64
 * (-static) program run under qemu-i386 or qemu-x86_64 in the test VM, on
 * x86-64 and on arm64 kernels.  A child process takes a robust,
 * process-shared mutex and is SIGKILLed while the parent waits for the
 * mutex; the parent must get EOWNERDEAD, make the mutex consistent and go
 * on using it.  Under a qemu-user without robust list support the parent
 * times out instead (the control).
 *
 * Prints one verdict line, "guest: PASS ..." (exit 0) or "guest: FAIL ..."
 * (exit 1); every wait is bounded.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define WAIT_S		10	/* the parent's timedlock */
#define KILL_AFTER_MS	500	/* the parent is asleep in the lock by then */

struct shared {
	pthread_mutex_t m;
	int counter;
};

static pid_t holder;

static void *killer(void *arg)
{
	struct timespec ts = { 0, KILL_AFTER_MS * 1000000L };

	(void)arg;
	nanosleep(&ts, NULL);
	kill(holder, SIGKILL);
	return NULL;
}

static int fail(const char *what, int err)
{
	printf("guest: FAIL %s: %s\n", what, strerror(err));
	if (holder > 0)
		kill(holder, SIGKILL);
	return 1;
}

int main(void)
{
	struct shared *s;
	pthread_mutexattr_t a;
	struct timespec until;
	pthread_t t;
	void *head = NULL;
	size_t len = 0;
	int p[2], ret, status;
	char c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* What the emulator answered to libc's set_robust_list at startup. */
	if (syscall(SYS_get_robust_list, 0, &head, &len))
		printf("guest: get_robust_list: %s\n", strerror(errno));
	else
		printf("guest: get_robust_list: head %p, len %zu\n", head, len);

	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return fail("mmap", errno);
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	ret = pthread_mutex_init(&s->m, &a);
	if (ret)
		return fail("pthread_mutex_init", ret);
	if (pipe(p))
		return fail("pipe", errno);

	holder = fork();
	if (holder < 0)
		return fail("fork", errno);
	if (holder == 0) {
		if (pthread_mutex_lock(&s->m))
			_exit(2);
		s->counter = 1;
		(void)!write(p[1], "L", 1);
		pause();	/* until SIGKILL */
		_exit(3);
	}
	if (read(p[0], &c, 1) != 1)
		return fail("the holder did not lock", EIO);

	ret = pthread_create(&t, NULL, killer, NULL);
	if (ret)
		return fail("pthread_create", ret);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WAIT_S;
	ret = pthread_mutex_timedlock(&s->m, &until);
	pthread_join(t, NULL);
	if (waitpid(holder, &status, 0) != holder || !WIFSIGNALED(status) ||
	    WTERMSIG(status) != SIGKILL)
		return fail("the holder was not killed", ECHILD);
	holder = 0;
	if (ret != EOWNERDEAD)
		return fail("pthread_mutex_timedlock after the holder died", ret);

	/* The holder died inside its critical section: repair, go on. */
	s->counter++;
	ret = pthread_mutex_consistent(&s->m);
	if (ret)
		return fail("pthread_mutex_consistent", ret);
	ret = pthread_mutex_unlock(&s->m);
	if (ret)
		return fail("pthread_mutex_unlock", ret);
	ret = pthread_mutex_lock(&s->m);
	if (ret)
		return fail("pthread_mutex_lock after consistent", ret);
	s->counter++;
	pthread_mutex_unlock(&s->m);
	if (s->counter != 3)
		return fail("the counter", EPROTO);
	printf("guest: PASS EOWNERDEAD, made consistent, locked again\n");
	return 0;
}
