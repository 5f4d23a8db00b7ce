// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline of the recovery area: what a program has to write to
 * recover a dead process's robust locks when the kernel cannot walk its
 * lists for it (an emulator's guest lists without robust_list2).  A
 * watchdog process holds a pidfd of the process it guards, sleeps in
 * poll() until the pidfd reports the death, and then walks the dead
 * thread's list in the shared memory it maps too, doing from outside what
 * the kernel's walk does at exit: every lock still owned by the dead
 * thread gets FUTEX_OWNER_DIED and, if someone waits, one FUTEX_WAKE.
 *
 * Used only as the anchor of a figure; written to be as fast as such a
 * watchdog can be (one process, no locks of its own, the list read
 * straight from the shared mapping) and as careful (every pointer checked
 * against the mapping before it is read, a bound on the walk, the
 * compare-exchange retried only while the word still names the dead
 * thread).
 */
#include <errno.h>
#include <poll.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#include "bench.h"
#include "watchdog.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434	/* the same number on every architecture */
#endif

int wd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

int wd_wait_death(int pidfd, int timeout_ms)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	int ret;

	do
		ret = poll(&p, 1, timeout_ms);
	while (ret < 0 && errno == EINTR);
	return ret == 1 && (p.revents & POLLIN) ? 0 : -1;
}

/* Is [p, p + len) inside the memory the watchdog shares with the dead? */
static bool wd_inside(const struct wd_region *r, uintptr_t p, size_t len)
{
	return p >= r->lo && p <= r->hi && r->hi - p >= len;
}

/* Release @word if @tid still owns it, the way the kernel's walk does. */
static bool wd_repair_word(uint32_t *word, uint32_t tid)
{
	uint32_t v = __atomic_load_n(word, __ATOMIC_RELAXED);

	do {
		if ((v & FUTEX_TID_MASK) != tid)
			return false;
	} while (!__atomic_compare_exchange_n(word, &v, (v & FUTEX_WAITERS) | FUTEX_OWNER_DIED,
					      false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	if (v & FUTEX_WAITERS)
		syscall(SYS_futex, word, FUTEX_WAKE, 1, NULL, NULL, 0);
	return true;
}

static bool wd_repair_entry(const struct wd_region *r, uintptr_t entry, long off, uint32_t tid)
{
	uintptr_t word = entry + off;

	if (word % sizeof(uint32_t) || !wd_inside(r, word, sizeof(uint32_t)))
		return false;
	return wd_repair_word((uint32_t *)word, tid);
}

unsigned int wd_repair_list(const struct robust_list_head *head, pid_t tid,
			    const struct wd_region *r)
{
	uintptr_t next = (uintptr_t)head->list.next;
	uintptr_t pending = (uintptr_t)head->list_op_pending;
	size_t limit = (r->hi - r->lo) / sizeof(struct robust_list);
	long off = head->futex_offset;
	unsigned int n = 0;

	/*
	 * Bit 0 of a pointer marks the entry it points to as a PI lock: the
	 * kernel repairs those itself, from its own state, whoever walks the
	 * list; skip them.  The limit ends a circular list.
	 */
	while ((next & ~(uintptr_t)1) != (uintptr_t)&head->list && limit--) {
		uintptr_t e = next & ~(uintptr_t)1;
		bool pi = next & 1;

		if (!wd_inside(r, e, sizeof(struct robust_list)))
			break;
		next = (uintptr_t)((const struct robust_list *)e)->next;
		if (!pi && e != pending)
			n += wd_repair_entry(r, e, off, (uint32_t)tid);
	}
	if (pending && !(pending & 1) && wd_inside(r, pending, sizeof(struct robust_list)))
		n += wd_repair_entry(r, pending, off, (uint32_t)tid);
	return n;
}
