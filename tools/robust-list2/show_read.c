// SPDX-License-Identifier: GPL-2.0
/*
 * The lists of robust-list2 show, read from the target with
 * process_vm_readv().  The walk reads exactly what module/walk.c would walk
 * at exit: pointers of the list's width (32-bit ones zero-extended), bit 0
 * of an entry is the PI flag, the futex word is at entry + futex_offset
 * (wrapping at 32 bits for 32-bit lists), list_op_pending is reported
 * separately.  The target keeps running and may change its lists while we
 * read them, so the walk is bounded (the module's walk limit, and a display
 * cap) and cycle-safe (Brent, as the module): it always ends.
 *
 * A based list (robust_list2_set_based()) holds guest addresses: all the
 * arithmetic above is on them, as in the module, and memory is read at base
 * + address; an address whose sum overflows cannot be read.  Addresses are
 * shown as the list holds them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "common.h"
#include "show.h"
#include "show_read.h"

/* 0, -EFAULT for an address that cannot be read, or why memory is closed. */
static int peek(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? -errno : -EFAULT;
}

/* peek() at list address @addr: base + addr. */
static int peek_list(const struct show *s, const struct list_info *l, uint64_t addr,
		     void *buf, size_t len)
{
	uint64_t host;

	if (__builtin_add_overflow(l->base, addr, &host))
		return -EFAULT;
	return peek(s->tgid, host, buf, len);
}

static int peek_ptr(const struct show *s, const struct list_info *l, uint64_t addr,
		    uint64_t *v)
{
	uint32_t v32;
	int ret;

	if (l->bits == 64)
		return peek_list(s, l, addr, v, sizeof(*v));
	ret = peek_list(s, l, addr, &v32, sizeof(v32));
	*v = v32;
	return ret;
}

/* entry + futex_offset, as the module computes it. */
static uint64_t futex_uaddr(const struct list_info *l, uint64_t entry)
{
	if (l->bits == 32)
		return (uint32_t)((uint32_t)entry + (uint32_t)l->offset);
	return entry + (uint64_t)l->offset;
}

static void read_word(const struct show *s, const struct list_info *l,
		      struct word_info *w, uint64_t ptr)
{
	w->pi = ptr & 1;
	w->addr = ptr & ~1ULL;
	w->uaddr = futex_uaddr(l, w->addr);
	if (w->uaddr & (sizeof(uint32_t) - 1))
		w->err = EINVAL;
	else
		w->err = -peek_list(s, l, w->uaddr, &w->word, sizeof(w->word));
}

/* Head fields: next, futex_offset, list_op_pending. */
static int read_head(const struct show *s, struct list_info *l, uint64_t *first)
{
	uint64_t pending;
	int ret;

	if (l->bits == 64) {
		struct { uint64_t next; int64_t off; uint64_t pending; } h;

		ret = peek_list(s, l, l->head, &h, sizeof(h));
		*first = h.next;
		l->offset = h.off;
		pending = h.pending;
	} else {
		struct { uint32_t next; int32_t off; uint32_t pending; } h;

		ret = peek_list(s, l, l->head, &h, sizeof(h));
		*first = h.next;
		l->offset = h.off;
		pending = h.pending;
	}
	if (ret)
		return ret;
	if (pending) {
		l->has_pending = true;
		read_word(s, l, &l->pending, pending);
	}
	return 0;
}

static struct word_info *add_entry(struct list_info *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct word_info *p = realloc(l->ent, cap * sizeof(*p));

		if (!p)
			return NULL;
		l->ent = p;
		l->cap = cap;
	}
	memset(&l->ent[l->n], 0, sizeof(l->ent[0]));
	return &l->ent[l->n++];
}

/*
 * Brent met an entry again, @lambda steps after the tortoise: the walk
 * visited x[0..n-1], and x[n] = @back.  Keep the first visit of each entry
 * only: mu is the first index with x[mu] == x[mu + lambda]; the last kept
 * entry links back to x[mu].
 */
static void trim_cycle(struct list_info *l, size_t lambda, uint64_t back)
{
	l->end = END_CYCLE;
	l->end_addr = back;
	for (size_t mu = 0; mu + lambda <= l->n; mu++) {
		uint64_t later = mu + lambda < l->n ? l->ent[mu + lambda].addr : back;

		if (l->ent[mu].addr == later) {
			l->n = mu + lambda;
			l->end_addr = l->ent[mu].addr;
			return;
		}
	}
}

/*
 * Walk one list as module/walk.c does: entries until the head comes back,
 * a cycle (Brent), the walk limit, or an unreadable next pointer or futex
 * word (which ends the module's walk too, except on the pending entry).
 * Returns 0, -ENOMEM, or why the process's memory cannot be read.
 */
static int walk_list(const struct show *s, struct list_info *l)
{
	uint64_t limit = s->walk_limit < s->max_entries ? s->walk_limit : s->max_entries;
	unsigned long power = 1, lam = 0;
	uint64_t ptr, entry, tortoise;
	int ret;

	ret = read_head(s, l, &ptr);
	if (ret == -EFAULT)
		l->err = EFAULT;
	if (ret)
		return ret == -EFAULT ? 0 : ret;	/* else: no memory access at all */
	l->end = END_HEAD;
	entry = ptr & ~1ULL;
	tortoise = l->head;
	while (entry != l->head) {
		struct word_info *w;
		uint64_t next;
		int rc;

		if (l->n == limit) {
			l->end = limit == s->walk_limit ? END_LIMIT : END_CAP;
			l->end_addr = entry;
			break;
		}
		w = add_entry(l);
		if (!w)
			return -ENOMEM;
		rc = peek_ptr(s, l, entry, &next);
		read_word(s, l, w, ptr);
		if (l->has_pending && w->addr == l->pending.addr)
			l->pending_on_list = true;
		else if (w->err) {
			l->end = END_FAULT;
			l->end_addr = w->uaddr;
			break;
		}
		if (rc) {
			l->end = END_FAULT;
			l->end_addr = entry;
			break;
		}
		ptr = next;
		entry = next & ~1ULL;
		if (entry == l->head)
			break;
		if (entry == tortoise) {
			trim_cycle(l, lam + 1, entry);
			break;
		}
		if (++lam == power) {
			tortoise = entry;
			power <<= 1;
			lam = 0;
		}
	}
	return 0;
}

int read_lists(struct show *s)
{
	for (size_t i = 0; i < s->nr_threads; i++) {
		struct thread_info *t = &s->threads[i];

		for (unsigned int j = 0; j < t->nr && !s->mem_err; j++) {
			int ret = walk_list(s, &t->lists[j]);

			if (ret == -ENOMEM)
				return fail(EXIT_ERR, ENOMEM, "show %d", s->id);
			if (ret)
				s->mem_err = -ret;
		}
	}
	return 0;
}
