// SPDX-License-Identifier: GPL-2.0
/*
 * robust-list2 show's output: one JSON object (--json, keys in the order
 * robust-list2(1) documents) or text for people.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <linux/futex.h>

#include "json.h"
#include "show.h"
#include "show_out.h"

static const char *const end_names[] = {
	[END_HEAD] = "head", [END_CYCLE] = "cycle", [END_LIMIT] = "walk_limit",
	[END_CAP] = "max_entries", [END_FAULT] = "fault", [END_UNREAD] = "unread",
};

static void word_json(const char *key, const struct word_info *w, pid_t tid)
{
	uint32_t owner = w->word & FUTEX_TID_MASK;

	j_open(key, '{');
	j_addr("address", w->addr);
	j_bool("pi", w->pi);
	j_addr("futex", w->uaddr);
	if (w->err) {
		j_null("word");
		j_null("owner");
	} else {
		j_u64("word", w->word);
		j_u64("owner", owner);
	}
	j_bool("waiters", !w->err && (w->word & FUTEX_WAITERS));
	j_bool("owner_died", !w->err && (w->word & FUTEX_OWNER_DIED));
	j_bool("owned_by_thread", !w->err && owner == (uint32_t)tid);
	j_str("error", !w->err ? NULL : w->err == EINVAL ? "misaligned" : "unreadable");
	j_close('}');
}

static void list_json(const struct list_info *l, pid_t tid)
{
	j_open(NULL, '{');
	j_u64("slot", l->slot);
	j_u64("bits", l->bits);
	j_addr("head", l->head);
	j_addr("base", l->base);
	j_str("error", l->err ? strerror(l->err) : NULL);
	if (l->end == END_UNREAD)
		j_null("futex_offset");
	else
		j_s64("futex_offset", l->offset);
	j_u64("entry_count", l->n);
	j_open("entries", '[');
	for (size_t i = 0; i < l->n; i++)
		word_json(NULL, &l->ent[i], tid);
	j_close(']');
	j_str("end", end_names[l->end]);
	if (l->end == END_CYCLE || l->end == END_FAULT || l->end == END_LIMIT ||
	    l->end == END_CAP)
		j_addr("end_address", l->end_addr);
	else
		j_null("end_address");
	if (l->has_pending) {
		word_json("list_op_pending", &l->pending, tid);
		j_bool("pending_on_list", l->pending_on_list);
	} else {
		j_null("list_op_pending");
		j_bool("pending_on_list", false);
	}
	j_close('}');
}

void show_json(const struct show *s)
{
	j_open(NULL, '{');
	j_s64("pid", s->tgid);
	j_s64("requested", s->id);
	j_bool("memory_readable", !s->mem_err);
	j_str("memory_error", s->mem_err ? strerror(s->mem_err) : NULL);
	j_u64("slots", s->nr_slots);
	j_u64("walk_limit", s->walk_limit);
	j_u64("max_entries", s->max_entries);
	j_open("threads", '[');
	for (size_t i = 0; i < s->nr_threads; i++) {
		const struct thread_info *t = &s->threads[i];

		j_open(NULL, '{');
		j_s64("tid", t->tid);
		j_str("comm", t->comm);
		j_open("slots", '[');
		for (unsigned int j = 0; j < t->nr; j++)
			list_json(&t->lists[j], t->tid);
		j_close(']');
		j_close('}');
	}
	j_close(']');
	j_close('}');
}

static void word_text(const char *label, const struct word_info *w, pid_t tid)
{
	uint32_t owner = w->word & FUTEX_TID_MASK;

	printf("    %s0x%" PRIx64 "%s  ", label, w->addr, w->pi ? " PI" : "");
	if (w->err == EINVAL) {
		printf("futex word 0x%" PRIx64 " misaligned\n", w->uaddr);
		return;
	}
	if (w->err) {
		printf("futex word 0x%" PRIx64 " unreadable\n", w->uaddr);
		return;
	}
	printf("word 0x%08x owner %u%s%s%s\n", w->word, owner,
	       owner == (uint32_t)tid ? " (this thread)" : "",
	       w->word & FUTEX_WAITERS ? " WAITERS" : "",
	       w->word & FUTEX_OWNER_DIED ? " OWNER_DIED" : "");
}

static void list_end_text(const struct show *s, const struct list_info *l)
{
	switch (l->end) {
	case END_HEAD:
	case END_UNREAD:
		break;
	case END_CYCLE:
		printf("    cycle detected: the last entry links back to 0x%" PRIx64
		       " (the module's walk stops there too)\n", l->end_addr);
		break;
	case END_LIMIT:
		printf("    ... more: walk limit (%" PRIu64 ") reached at 0x%" PRIx64
		       "; the module's exit walk stops there too\n", s->walk_limit, l->end_addr);
		break;
	case END_CAP:
		printf("    ... more entries from 0x%" PRIx64 " not shown (--max-entries %zu)\n",
		       l->end_addr, s->max_entries);
		break;
	case END_FAULT:
		printf("    walk ends: 0x%" PRIx64 " cannot be read (the module's walk stops"
		       " there too)\n", l->end_addr);
		break;
	}
}

static void list_text(const struct show *s, const struct list_info *l, pid_t tid)
{
	printf("  slot %u: %u-bit list, head 0x%" PRIx64, l->slot, l->bits, l->head);
	if (l->base)
		printf(", base 0x%" PRIx64 " (guest addresses)", l->base);
	if (l->end == END_UNREAD) {
		if (l->err)
			printf(", head unreadable (%s)", strerror(l->err));
		putchar('\n');
		return;
	}
	printf(", futex_offset %" PRId64 ", %zu %s\n", l->offset, l->n,
	       l->n == 1 ? "entry" : "entries");
	for (size_t i = 0; i < l->n; i++)
		word_text("", &l->ent[i], tid);
	list_end_text(s, l);
	if (l->has_pending)
		word_text(l->pending_on_list ? "pending (on the list) " : "pending ",
			  &l->pending, tid);
	else
		printf("    pending: none\n");
}

void show_text(const struct show *s)
{
	printf("pid %d: %zu thread%s, %u slots each\n", s->tgid, s->nr_threads,
	       s->nr_threads == 1 ? "" : "s", s->nr_slots);
	for (size_t i = 0; i < s->nr_threads; i++) {
		const struct thread_info *t = &s->threads[i];

		printf("thread %d (%s)%s%s\n", t->tid, t->comm,
		       t->tid == s->tgid ? " leader" : "", t->nr ? ":" : ": no slots in use");
		for (unsigned int j = 0; j < t->nr; j++)
			list_text(s, &t->lists[j], t->tid);
	}
	if (s->mem_err)
		printf("note: list contents not shown: cannot read the memory of pid %d (%s);"
		       " process_vm_readv needs ptrace-attach permission, which is stricter"
		       " than the read permission the slots need\n", s->tgid, strerror(s->mem_err));
}

