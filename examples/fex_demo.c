// SPDX-License-Identifier: GPL-2.0
/*
 * fex_demo: what robust_list2 is for, in one run.
 *
 * An x86 emulator on a 64-bit host (FEX-Emu under Proton) needs two robust
 * lists in every thread: its own, in the host's 64-bit layout, and the
 * emulated program's, in the guest's 32-bit layout (4-byte pointers, all
 * below 4 GiB).  The old set_robust_list() takes one list, in one layout.
 *
 * Here an "emulator" process registers both lists in one thread (slot 0:
 * 64-bit, three process-shared robust pthread mutexes; slot 1: 32-bit,
 * three raw guest futexes), holds every lock, and is SIGKILLed.  Waiters in
 * this observer process are blocked on all six locks: the pthread ones must
 * get EOWNERDEAD from pthread_mutex_lock(), the guest ones must wake to
 * find FUTEX_OWNER_DIED in the word.  Exit status 0 iff all six did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/futex.h>

#include <robust_list2.h>

#define NLOCKS		3
#define TIMEOUT_S	10

/* A host lock: list entry, then the mutex whose first word is the futex. */
struct emu_lock {
	struct robust_list entry;
	pthread_mutex_t mutex;
};

/* A guest lock, as a 32-bit program lays it out: 4-byte link, then its word. */
struct guest_lock {
	uint32_t next;
	uint32_t word;
};

struct shared {
	struct robust_list_head emu_head;
	struct emu_lock emu[NLOCKS];
	struct robust_list_head32 guest_head;
	struct guest_lock guest[NLOCKS];
	uint32_t ready;
	pid_t owner_tid;
};

struct waiter {
	struct shared *s;
	int i;
	bool guest;
	pid_t tid;
	volatile int started;
	int result;		/* errno from pthread_mutex_lock, or the word */
};

static long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

/* The emulator: take every lock, register both lists, then wait to die. */
static int emulator(struct shared *s)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);

	s->emu_head.list.next = &s->emu_head.list;
	s->emu_head.futex_offset = offsetof(struct emu_lock, mutex) - offsetof(struct emu_lock, entry);
	for (int i = NLOCKS - 1; i >= 0; i--) {
		/* glibc robust mutexes keep the futex word first (__lock) */
		*(uint32_t *)&s->emu[i].mutex = tid;
		s->emu[i].entry.next = s->emu_head.list.next;
		s->emu_head.list.next = &s->emu[i].entry;
	}

	s->guest_head.list.next = (uint32_t)(uintptr_t)&s->guest_head.list;
	s->guest_head.futex_offset = offsetof(struct guest_lock, word);
	for (int i = NLOCKS - 1; i >= 0; i--) {
		s->guest[i].word = tid;
		s->guest[i].next = s->guest_head.list.next;
		s->guest_head.list.next = (uint32_t)(uintptr_t)&s->guest[i];
	}

	if (set_robust_list2(&s->emu_head, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0) ||
	    set_robust_list2((void *)&s->guest_head, 1, FUTEX_ROBUST_LIST_CMD_SET_32, 0)) {
		perror("emulator: set_robust_list2");
		return 1;
	}
	s->owner_tid = tid;
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	futex(&s->ready, FUTEX_WAKE, 1, NULL);
	for (;;)
		pause();	/* until SIGKILL */
}

static void *wait_lock(void *arg)
{
	struct waiter *w = arg;
	struct timespec ts = { .tv_sec = TIMEOUT_S };

	w->tid = (pid_t)syscall(SYS_gettid);
	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	if (!w->guest) {
		w->result = pthread_mutex_lock(&w->s->emu[w->i].mutex);
		if (w->result == EOWNERDEAD) {
			pthread_mutex_consistent(&w->s->emu[w->i].mutex);
			pthread_mutex_unlock(&w->s->emu[w->i].mutex);
		}
		return NULL;
	}
	/* A raw guest waiter: announce itself, then sleep on the word. */
	uint32_t *word = &w->s->guest[w->i].word;
	uint32_t v = __atomic_or_fetch(word, FUTEX_WAITERS, __ATOMIC_ACQ_REL);

	while (!(v & FUTEX_OWNER_DIED)) {
		if (futex(word, FUTEX_WAIT, v, &ts) && errno == ETIMEDOUT)
			break;
		v = __atomic_load_n(word, __ATOMIC_ACQUIRE);
	}
	w->result = (int)v;
	return NULL;
}

/*
 * Is thread @tid asleep in futex()?  /proc tells, no sleeps needed.  (The
 * suites' th_sleeping_in_futex(); repeated so this example is one file.)
 */
static bool in_futex(pid_t tid)
{
	char path[64], buf[64];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return atoi(buf) == SYS_futex;
}

/*
 * Shared memory below 4 GiB, where a 32-bit guest's memory lives: MAP_32BIT
 * on x86-64; arm64 has none, so an emulator asks for an address with
 * MAP_FIXED_NOREPLACE (here from 1 GiB up, in 16 MiB steps).
 */
static void *map_low(size_t size)
{
#if defined(__x86_64__)
	return mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
#else
	uintptr_t a;

	for (a = 1UL << 30; a + size <= (1ULL << 32); a += 16UL << 20) {
		void *p = mmap((void *)a, size, PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (p != MAP_FAILED || errno != EEXIST)
			return p;
	}
	return MAP_FAILED;
#endif
}

int main(void)
{
	struct shared *s = map_low(sizeof(*s));
	struct waiter w[2 * NLOCKS];
	pthread_t t[2 * NLOCKS];
	struct robust_list2_info info;
	struct robust_list2_stats before, after;
	pthread_mutexattr_t attr;
	struct timespec ts = { .tv_sec = TIMEOUT_S };
	int ok = 0, status;
	pid_t pid;

	if (s == MAP_FAILED || (uintptr_t)s + sizeof(*s) > (1ULL << 32)) {
		fprintf(stderr, "no shared memory below 4 GiB\n");
		return 1;
	}
	if (robust_list2_info(&info) || robust_list2_stats(&before)) {
		perror("robust_list2 (is the module loaded?)");
		return 1;
	}
	printf("robust_list2 demo: an x86 emulator on a 64-bit host dies holding locks\n");
	printf("  module ABI %u, %u slots per thread, walk limit %llu\n\n", info.abi_version,
	       info.nr_slots, (unsigned long long)info.walk_limit);

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	for (int i = 0; i < NLOCKS; i++)
		pthread_mutex_init(&s->emu[i].mutex, &attr);

	pid = fork();
	if (pid == 0)
		_exit(emulator(s));
	while (!__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE))
		if (futex(&s->ready, FUTEX_WAIT, 0, &ts) && errno == ETIMEDOUT)
			return 1;

	printf("  emulator: pid %d, one thread (tid %d) with two lists:\n", pid, s->owner_tid);
	printf("    slot 0: emulator list, 64-bit, head %p, %d robust pthread mutexes held\n",
	       (void *)&s->emu_head, NLOCKS);
	printf("    slot 1: guest list,    32-bit, head %#x, %d guest futexes held\n",
	       (unsigned int)(uintptr_t)&s->guest_head, NLOCKS);

	for (int i = 0; i < 2 * NLOCKS; i++) {
		w[i] = (struct waiter){ .s = s, .i = i % NLOCKS, .guest = i >= NLOCKS };
		pthread_create(&t[i], NULL, wait_lock, &w[i]);
	}
	for (int i = 0; i < 2 * NLOCKS; i++) {
		time_t end = time(NULL) + TIMEOUT_S;

		while (!__atomic_load_n(&w[i].started, __ATOMIC_ACQUIRE) || !in_futex(w[i].tid))
			if (time(NULL) > end)
				return 1;
	}
	printf("  observer: pid %d, %d waiters asleep on those locks\n\n", getpid(), 2 * NLOCKS);

	printf("  kill -KILL %d\n\n", pid);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);

	for (int i = 0; i < 2 * NLOCKS; i++) {
		bool good;

		pthread_join(t[i], NULL);
		if (!w[i].guest) {
			good = w[i].result == EOWNERDEAD;
			printf("    emulator mutex %d: pthread_mutex_lock() -> %-12s %s\n", w[i].i,
			       good ? "EOWNERDEAD" : strerror(w[i].result), good ? "ok" : "FAILED");
		} else {
			good = w[i].result & FUTEX_OWNER_DIED;
			printf("    guest futex %d:    woke, word %#010x %-16s %s\n", w[i].i,
			       (unsigned int)w[i].result, good ? "FUTEX_OWNER_DIED" : "", good ? "ok" : "FAILED");
		}
		ok += good;
	}

	robust_list2_stats(&after);
	printf("\n  module: %llu lists walked, %llu locks recovered, %llu waiters woken\n",
	       (unsigned long long)(after.walks - before.walks),
	       (unsigned long long)(after.recovered - before.recovered),
	       (unsigned long long)(after.woken - before.woken));
	printf("RESULT: %d of %d locks recovered\n", ok, 2 * NLOCKS);
	return ok == 2 * NLOCKS ? 0 : 1;
}
