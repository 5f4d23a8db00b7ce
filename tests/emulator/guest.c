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
#include <linux/futex.h>
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
	int stage;	/* window: how far the holder got */
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

/* The holder's lock word, as glibc keeps it (owner TID and flag bits). */
static unsigned int lock_word(struct shared *s)
{
	return __atomic_load_n((unsigned int *)&s->m.__data.__lock, __ATOMIC_ACQUIRE);
}

/*
 * Is process @pid asleep in a futex wait?  /proc/PID/syscall (the host's
 * view: qemu-user passes other processes' /proc through) gives the call
 * and its arguments; the operation is the second one.  FUTEX_WAITERS in
 * the word is not enough: glibc sets it just before it calls futex().
 */
static int in_futex_wait(pid_t pid)
{
	char path[64], buf[256];
	unsigned long a0, op;
	long nr;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fgets(buf, sizeof(buf), f) ? sscanf(buf, "%ld %lx %lx", &nr, &a0, &op) : 0;
	fclose(f);
	op &= FUTEX_CMD_MASK;
	return n == 3 && nr >= 0 && (op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET);
}

/*
 * "guest window", run under tests/emulator/kill-on-wake: the holder
 * unlocks while the parent waits, so glibc's pthread_mutex_unlock()
 * releases the word and calls FUTEX_WAKE with list_op_pending still set;
 * the filter kills the holder's process in that call.  The walk of its
 * list must wake the parent (the kernel's handle_futex_death() does the
 * same) and leave the word alone: the parent then owns the lock cleanly,
 * 0 and not EOWNERDEAD, with no FUTEX_OWNER_DIED in the word.
 */
static int window(struct shared *s)
{
	struct timespec until, nap = { 0, 1000000L };
	unsigned int word;
	int p[2], ret, status, i;
	char c;

	if (pipe(p))
		return fail("pipe", errno);
	holder = fork();
	if (holder < 0)
		return fail("fork", errno);
	if (holder == 0) {
		if (pthread_mutex_lock(&s->m))
			_exit(2);
		s->stage = 1;
		(void)!write(p[1], "L", 1);
		/* Until the parent sleeps in the lock. */
		for (i = 0; i < WAIT_S * 1000 && !((lock_word(s) & FUTEX_WAITERS) &&
						   in_futex_wait(getppid())); i++)
			nanosleep(&nap, NULL);
		if (i == WAIT_S * 1000)
			_exit(4);	/* never saw it: the parent reports */
		s->stage = 2;
		pthread_mutex_unlock(&s->m);	/* dies in its FUTEX_WAKE */
		s->stage = 3;
		_exit(3);
	}
	if (read(p[0], &c, 1) != 1)
		return fail("the holder did not lock", EIO);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WAIT_S;
	ret = pthread_mutex_timedlock(&s->m, &until);
	word = lock_word(s);
	if (waitpid(holder, &status, 0) != holder)
		return fail("waitpid", errno);
	holder = 0;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSYS || s->stage != 2)
		return fail("the holder did not die in pthread_mutex_unlock", ECHILD);
	if (ret)
		return fail("pthread_mutex_timedlock after the holder died unlocking", ret);
	if ((word & FUTEX_TID_MASK) != (unsigned int)syscall(SYS_gettid) ||
	    (word & FUTEX_OWNER_DIED))
		return fail("the lock word after the walk", EPROTO);
	/*
	 * Not unlocked: the word has FUTEX_WAITERS (glibc cannot know that no
	 * one else waits), so the unlock's FUTEX_WAKE would kill us as well.
	 */
	printf("guest: PASS died in pthread_mutex_unlock's window: woken, locked, word 0x%x\n",
	       word);
	return 0;
}

int main(int argc, char **argv)
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
	if (argc > 1 && !strcmp(argv[1], "window"))
		return window(s);
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
