// SPDX-License-Identifier: GPL-2.0
/*
 * make fuzz, the model of the walk: from the child's memory when it was
 * ready (before[]), its slots (GET_BASED) and its maps, what the module's
 * walks must write (ex.val, NAMED_RECOVER), whom they must wake
 * (NAMED_WAKE), and how many accesses they must and may give up at the
 * exit's deadline (ex.tmo_min, ex.tmo_max: the module's io_timeouts).
 *
 * The semantics (module/walk.c, module/uaccess.c): a misaligned or
 * unreadable futex word, or a next pointer that cannot be read, ends that
 * list's walk (without the pending entry); a word whose page does not come
 * by the exit's deadline (io_wait_ms of wall time from the walk's start)
 * is given up, unchanged and unwoken, and the walk goes on; a list pointer
 * that does not come ends its list.  Each dying thread has its own
 * deadline and walks its slots in order.
 *
 * Each access has a set of possible outcomes (OK, given up, fault) from
 * the kind of its page (rl2fz.h RL2FZ_K_*) and whether the thread's
 * deadline has passed ("late"): a page never answered (NOREAD, the store
 * of NOWRITE) is given up and makes the thread late, for sure; before
 * that every page that can come does (the pages the child never touched
 * come through a worker: DONTNEED, RANDOM), read-only and PROT_NONE pages
 * fault.  Once late, every access that needs a page brought in is given
 * up -- but whether it does need one is not always known: another
 * thread's walk may have brought the page in, writeback may have
 * write-protected a shared file page.  Such an access may go either way;
 * a list pointer that may be given up makes the rest of its list "maybe"
 * (each word there may be recovered or left), a stall reached in a maybe
 * list makes the thread maybe-late.  The words a maybe access reaches are
 * NAMED_MAYBE: recovered, or unchanged.
 *
 * A list pointer into no mapping of the child (its /proc/PID/maps) ends
 * that walk as a fault does; one into its own memory (stack, image) is
 * memory the model cannot follow (ex.unknown: the "no other word
 * changed" check is off).
 */
#include <stdio.h>
#include <string.h>

#include "rl2fz_int.h"

struct expect ex;
uint8_t before[ARENA_BYTES];

/* Possible outcomes of one access. */
enum { R_OK = 1, R_GIVEUP = 2, R_FAULT = 4, R_OUT = 8 };

/* A dying thread's walk. */
struct walker {
	uint32_t tid;
	bool abi32;
	int late;		/* 0 no, 1 yes, 2 maybe */
	bool maybe;		/* the list walked may have ended already */
	uint32_t faulted;	/* list pages this thread brought in (read), for sure */
	uint32_t faulted_w;	/* ... writable */
};

/*
 * The executor's readable mappings other than the arena, from its
 * /proc/PID/maps once it is ready: a list pointer into none of them is a
 * fault for sure, which ends that walk, so the model still follows every
 * other list; only a pointer into one of them (its stack, its image) is
 * memory the model cannot follow.
 */
#define MAX_MAPS	64
static struct { uint64_t lo, hi; } maps[MAX_MAPS];
static unsigned int nmaps;
static bool maps_unknown;	/* /proc/PID/maps unread: anything may be mapped */

void read_maps(int pid)
{
	char path[64], line[512], perm[8];
	unsigned long long lo, hi;
	FILE *f;

	nmaps = 0;
	maps_unknown = true;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perm) != 3 || perm[0] != 'r')
			continue;
		if (lo >= RL2FZ_ARENA && hi <= LISTS_HI)
			continue;	/* the arena: modelled page by page */
		if (nmaps == MAX_MAPS) {
			fclose(f);
			return;
		}
		maps[nmaps].lo = lo;
		maps[nmaps++].hi = hi;
	}
	maps_unknown = false;
	fclose(f);
}

/* Is some byte of [h, h + size) in no readable mapping of the executor? */
static bool unmapped(uint64_t h, unsigned int size)
{
	for (uint64_t a = h; a < h + size; a++) {
		unsigned int i;

		for (i = 0; i < nmaps; i++)
			if (a >= maps[i].lo && a < maps[i].hi)
				break;
		if (i == nmaps)
			return true;
	}
	return false;
}

/* A page never answered: given up, and the thread is late from now on. */
static int stall(struct walker *w)
{
	if (w->late != 1 && !w->maybe)
		ex.stalls++;
	if (w->late != 1)
		w->late = w->maybe ? 2 : 1;
	return R_GIVEUP;
}

/* An access that needs its page brought in, when the thread is late or not. */
static int bring(bool late, int ok)
{
	return late ? R_GIVEUP : ok;
}

/* The outcomes of one access to list page @pg, late or not (@late). */
static int page_outcome(struct walker *w, unsigned int pg, bool write, bool late)
{
	uint32_t bit = 1U << pg, mine = write ? w->faulted_w : w->faulted | w->faulted_w;

	switch (ctl->kind[pg]) {
	case RL2FZ_K_RW:
	case RL2FZ_K_PRIVATE:		/* touched: a private copy */
		return R_OK;
	case RL2FZ_K_RO:
		return write ? bring(late, R_FAULT) : R_OK;
	case RL2FZ_K_NONE:
		return bring(late, R_FAULT);
	case RL2FZ_K_SHARED:		/* writeback may have write-protected it */
		return write && late ? R_OK | R_GIVEUP : R_OK;
	case RL2FZ_K_DONTNEED:		/* brought in, it is writable (shmem) */
		mine = w->faulted | w->faulted_w;
		/* fall through */
	case RL2FZ_K_RANDOM:
	case RL2FZ_K_RANDOM_PRIV:
		if (mine & bit)
			return R_OK;
		/* another thread, or an op, may have brought it in */
		return late ? R_OK | R_GIVEUP : R_OK;
	case RL2FZ_K_NOREAD:
	case RL2FZ_K_NOREAD_PRIV:
		return R_GIVEUP;
	case RL2FZ_K_NOWRITE:
		return write ? R_GIVEUP : R_OK;
	}
	return R_OUT;
}

static bool never_answered(unsigned int pg, bool write)
{
	unsigned int k = ctl->kind[pg];

	return k == RL2FZ_K_NOREAD || k == RL2FZ_K_NOREAD_PRIV ||
	       (write && k == RL2FZ_K_NOWRITE);
}

/*
 * The outcomes of an access to [h, h + size) by walker @w; counts the
 * give-ups and keeps what the thread now has for sure.
 */
static int outcome(struct walker *w, uint64_t h, unsigned int size, bool write)
{
	uint64_t lo = h, hi = h + size - 1;
	unsigned int pg;
	int r;

	if (h + size < h)
		return R_FAULT;
	if (h + size <= RL2FZ_ARENA || h >= LISTS_HI)
		return !maps_unknown && unmapped(h, size) ? R_FAULT : R_OUT;
	if (h < LISTS_LO || (lo - RL2FZ_ARENA) / RL2FZ_PAGE != (hi - RL2FZ_ARENA) / RL2FZ_PAGE)
		return R_OUT;	/* the program's own pages, or across two pages */
	pg = (unsigned int)((h - RL2FZ_ARENA) / RL2FZ_PAGE);
	if (never_answered(pg, write))
		r = stall(w);
	else if (w->late == 2)
		r = page_outcome(w, pg, write, false) | page_outcome(w, pg, write, true);
	else
		r = page_outcome(w, pg, write, w->late);
	if (r & R_GIVEUP) {
		ex.tmo_max++;
		if (r == R_GIVEUP && !w->maybe)
			ex.tmo_min++;
	}
	if (r == R_OK && !w->maybe && !w->late)
		*(write ? &w->faulted_w : &w->faulted) |= 1U << pg;
	return r;
}

/* The dying task's TASK_SIZE. */
static uint64_t task_size(const struct walker *w)
{
	return w->abi32 ? 0xffffe000ULL : 0x7ffffffff000ULL;
}

static bool owned_by_executor(uint32_t v)
{
	for (unsigned int t = 0; t < RL2FZ_THREADS; t++)
		if (ctl->tids[t] && (v & TID_MASK) == ctl->tids[t])
			return true;
	return false;
}

/*
 * One entry's word.  Returns whether the walk goes on: R_OK yes, R_FAULT
 * no, both: maybe (the caller's list turns maybe).
 */
static int model_word(struct walker *w, uint64_t base, uint64_t g, bool pi, bool pending)
{
	uint64_t h = base + g;
	uint32_t v, b, i;
	int rd, wr;

	if (h < base || h >= task_size(w) || (h & 3))
		return R_FAULT;
	rd = outcome(w, h, 4, false);
	if (rd & R_OUT) {
		ex.unknown = true;
		return R_FAULT;
	}
	if (!(rd & R_OK))	/* given up: the walk goes on; a fault ends it */
		return ((rd & R_GIVEUP) ? R_OK : 0) | (rd & R_FAULT);
	i = (uint32_t)((h - RL2FZ_ARENA) / 4);
	if (ex.named[i] & NAMED_MAYBE)
		return R_OK | (rd & R_FAULT);	/* what a first visit left is unknown */
	v = ex.val[i];
	if ((v & TID_MASK) != w->tid) {
		/* not ours: a pending non-PI word may carry the wake it owed */
		memcpy(&b, before + (h - RL2FZ_ARENA), 4);
		if (pending && !pi && (!(v & TID_MASK) || !(v & WAITERS)) &&
		    !owned_by_executor(b) && rd == R_OK && !w->maybe)
			ex.named[i] |= NAMED_WAKE;
		return R_OK | (rd & R_FAULT);
	}
	wr = outcome(w, h, 4, true);
	if (wr & R_OUT) {
		ex.unknown = true;
		return R_FAULT;
	}
	if (!(wr & R_OK))	/* given up, or read-only */
		return ((wr & R_GIVEUP) ? R_OK : 0) | (wr & R_FAULT);
	ex.val[i] = (v & WAITERS) | OWNER_DIED;
	if (rd == R_OK && wr == R_OK && !w->maybe) {
		ex.named[i] |= NAMED_RECOVER;
		if (!pi && (v & WAITERS))
			ex.named[i] |= NAMED_WAKE;
	} else {
		ex.named[i] = NAMED_MAYBE;
	}
	return R_OK | ((rd | wr) & R_FAULT);
}

static int model_ptr(struct walker *w, uint64_t base, uint64_t g, unsigned int size, uint64_t *v)
{
	uint64_t h = base + g;
	uint32_t v32;
	int rc;

	if (h < base || h >= task_size(w))
		return R_FAULT;
	rc = outcome(w, h, size, false);
	if (rc & R_OUT) {
		ex.unknown = true;
		return R_FAULT;
	}
	if (!(rc & R_OK))
		return R_FAULT;		/* faulted or given up: the list ends */
	if (size == 4) {
		memcpy(&v32, before + (h - RL2FZ_ARENA), 4);
		*v = v32;
	} else {
		memcpy(v, before + (h - RL2FZ_ARENA), 8);
	}
	return rc & (R_OK | R_FAULT | R_GIVEUP);
}

/* Go on after an access with outcomes @r?  Turns the list maybe if it may have ended. */
static bool go_on(struct walker *w, int r)
{
	if (!(r & R_OK))
		return false;
	if (r != R_OK)
		w->maybe = true;
	return true;
}

static void model_list(struct walker *w, uint64_t ghead, uint64_t base, bool is32)
{
	unsigned int ps = is32 ? 4 : 8, steps = 0;
	uint64_t next, offv, pendv, entry, pending, seen[64];
	int64_t off;
	bool pi, pip;

	w->maybe = false;
	if (!go_on(w, model_ptr(w, base, ghead, ps, &next)) ||
	    !go_on(w, model_ptr(w, base, ghead + ps, ps, &offv)) ||
	    !go_on(w, model_ptr(w, base, ghead + 2 * ps, ps, &pendv)))
		return;
	off = is32 ? (int32_t)offv : (int64_t)offv;
	entry = next & ~1ULL;
	pi = next & 1;
	pending = pendv & ~1ULL;
	pip = pendv & 1;
	while (entry != ghead) {
		uint64_t g = is32 ? (uint32_t)(entry + (uint64_t)off) : entry + (uint64_t)off;
		int rn, ok = R_OK;
		unsigned int k;

		for (k = 0; k < steps; k++)
			if (seen[k] == entry)
				break;
		if (k < steps)
			break;			/* a cycle: the pending entry still */
		if (steps == 64) {
			ex.unknown = true;
			return;
		}
		seen[steps++] = entry;
		rn = model_ptr(w, base, entry, ps, &next);
		if (entry != pending)
			ok = model_word(w, base, g, pi, false);
		if (!go_on(w, ok) || !go_on(w, rn))
			return;
		entry = next & ~1ULL;
		pi = next & 1;
	}
	if (pending)
		model_word(w, base, is32 ? (uint32_t)(pending + (uint64_t)off) : pending + (uint64_t)off,
			   pip, true);
}

void model(const struct prog *pg)
{
	memcpy(ex.val, before, sizeof(before));
	memset(ex.named, 0, sizeof(ex.named));
	ex.unknown = false;
	ex.tmo_min = ex.tmo_max = ex.stalls = 0;
	for (unsigned int t = 0; t < pg->nthreads; t++) {
		struct walker w = {
			.tid = ctl->tids[t], .abi32 = pg->abi32,
		};

		for (unsigned int s = 0; s < RL2FZ_SLOTS; s++) {
			struct rl2fz_slot *sl = &ctl->slots[t][s];

			if (sl->err || sl->type == 0)
				continue;
			model_list(&w, sl->head, sl->base, sl->type == 2);
		}
	}
}
