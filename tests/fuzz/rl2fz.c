// SPDX-License-Identifier: GPL-2.0
/*
 * make fuzz: a libFuzzer target (Debian's libclang-rt-dev) whose
 * coverage is the kernel's KCOV coverage of robust_list2, gathered inside
 * the test VM.  This file is built without any instrumentation of its own:
 * libFuzzer's only feedback is the __libfuzzer_extra_counters section,
 * filled after each input from the KCOV trace of the module.
 *
 * KCOV: the controller does KCOV_REMOTE_ENABLE with a common handle that
 * every task it starts inherits; the module's instrumented build (make
 * fuzz loads it) makes each ioctl and each exit or exec walk a remote
 * section of that handle (module/fault_inject.c), so the trace holds the
 * module code the program ran, in any thread, also in one that dies.  The
 * controller itself never calls the device (a task with remote coverage
 * enabled must not enter a remote section).
 *
 * One input is one program (parse() reads it; missing bytes read as 0):
 * a 64- or 32-bit executor (rl2fz_exec.c) with up to 3 more threads, up
 * to 4 lists laid out in the shared arena (64- or 32-bit, based or not,
 * up to 8 entries at positions the input picks, so entries are shared,
 * misaligned or overlapping; ends back at the head, in a cycle, a
 * self-loop, NULL, a raw pointer or the pending entry; futex words owned
 * by the owner, another task, nobody or a raw TID, with FUTEX_WAITERS and
 * FUTEX_OWNER_DIED as given; pending entries in any state), pages made
 * read-only, PROT_NONE or not present, up to 12 ioctls of any command
 * with fields the input picks from small numbers, list heads, arena
 * cells, TIDs and raw values, and up to 4 waiters; then the owner exits,
 * exits the group, is SIGKILLed or execs.
 *
 * Then the controller checks what SPEC.md promises, from the arena before
 * the death and after it: a model of the walk over the slots the device
 * reported (GET_BASED) says which words must become (word & WAITERS) |
 * FUTEX_OWNER_DIED and which waiters must be woken; every other word of
 * the lists' pages must be unchanged (checked unless a list went into
 * memory of the executor outside the arena, which the model cannot follow:
 * a pointer into no mapping of its /proc/PID/maps ends the walk there, as
 * the module's fault does); every errno must be
 * documented; the executor must die within 60 s.  A violation aborts:
 * libFuzzer keeps the input as a crash.  Kernel warnings panic the VM
 * (panic_on_warn=1), which the host reports.
 *
 * Map: "the input" (parse() and the byte readers: what a program is),
 * "the model of the walk" (model(): what the kernel's walk would write,
 * from the executor's maps and memory, the oracle check() compares the
 * arena with), "one program" (spawn/reap, feed_kcov(), check()), then
 * libFuzzer's two entry points at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <linux/kcov.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/robust_list2.h>

#include "rl2fz.h"

#define OWNER_DIED	0x40000000U
#define WAITERS		0x80000000U
#define TID_MASK	0x3fffffffU

#define KCOV_WORDS	(1 << 16)
#define NCOUNTERS	(1 << 16)
#define EDGE_BITS	(1 << 22)

extern char **environ;

__attribute__((used, section("__libfuzzer_extra_counters")))
static uint8_t counters[NCOUNTERS];

static unsigned long *kcov;
static uint8_t edge_seen[EDGE_BITS / 8];
static unsigned long nedges, npcs, execs, violations, skipped;
static unsigned long pcs[1 << 14];	/* the distinct KCOV sites seen */
static char exec64[PATH_MAX], exec32[PATH_MAX], waitprog[PATH_MAX];
static int memfd = -1;
static struct rl2fz_ctl *ctl = (struct rl2fz_ctl *)RL2FZ_ARENA;
static uint8_t *arena = (uint8_t *)RL2FZ_ARENA;
static uint8_t before[RL2FZ_PAGES * RL2FZ_PAGE];

/* ---- the input ---------------------------------------------------------- */

struct rd {
	const uint8_t *p, *end;
};

static uint8_t rd8(struct rd *r)
{
	return r->p < r->end ? *r->p++ : 0;
}

static uint32_t rd32(struct rd *r)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)rd8(r) << (8 * i);
	return v;
}

static uint64_t rd64(struct rd *r)
{
	return rd32(r) | (uint64_t)rd32(r) << 32;
}

struct list {
	bool is32, based;
	uint64_t ghead, base;	/* guest head; host = base + guest */
	unsigned int n;
	uint64_t entry[8];	/* guest addresses */
};

static struct list lists[RL2FZ_LISTS];
static unsigned int nlists, owner_pid_other;

/* Cell @pos of the lists' pages (2..9), 16-byte aligned. */
static uint64_t cell(uint8_t pos)
{
	return RL2FZ_ARENA + RL2FZ_CTL_PAGES * RL2FZ_PAGE + (uint64_t)pos * 128;
}

static void put_ptr(const struct list *l, uint64_t gaddr, uint64_t v)
{
	uint64_t h = l->base + gaddr;

	if (h < RL2FZ_ARENA + RL2FZ_CTL_PAGES * RL2FZ_PAGE ||
	    h + 8 > RL2FZ_ARENA + RL2FZ_PAGES * RL2FZ_PAGE)
		return;
	if (l->is32) {
		uint32_t v32 = (uint32_t)v;

		memcpy(arena + (h - RL2FZ_ARENA), &v32, 4);
	} else {
		memcpy(arena + (h - RL2FZ_ARENA), &v, 8);
	}
}

/* A futex word at host address @h, filled by the executor (owner TID). */
static void put_word(struct rd *r, uint64_t h, uint8_t spec)
{
	struct rl2fz_fill *f;
	uint32_t v = 0;

	if (h < RL2FZ_ARENA + RL2FZ_CTL_PAGES * RL2FZ_PAGE ||
	    h + 4 > RL2FZ_ARENA + RL2FZ_PAGES * RL2FZ_PAGE || (h & 3) ||
	    ctl->nfill >= RL2FZ_FILLS)
		return;
	f = &ctl->fill[ctl->nfill++];
	f->off = (uint32_t)(h - RL2FZ_ARENA);
	switch (spec & 3) {
	case 1: f->self = 1; break;
	case 2: v = owner_pid_other; break;	/* a live task: the controller */
	case 3: v = (rd32(r) & TID_MASK) | 0x100000; break; /* never a TID here */
	}
	if (spec & 4)
		v |= WAITERS;
	if (spec & 8)
		v |= OWNER_DIED;
	f->val = v;
}

static uint64_t smart(struct rd *r, uint32_t *kind)
{
	uint8_t s = rd8(r);

	*kind = RL2FZ_F_VAL;
	switch (s & 7) {
	case 0: return 0;
	case 1: return s >> 3;
	case 2: return nlists ? lists[(s >> 3) % nlists].ghead : 0;
	case 3: return cell(rd8(r)) + ((s >> 3) & 7);
	case 4: *kind = RL2FZ_F_TID; return s >> 3;
	case 5: return rd64(r);
	case 6: return (uint64_t)-1 >> ((s >> 3) & 31);
	default: return owner_pid_other;
	}
}

/* Field widths per command, in uapi order (0 ends). */
static const uint8_t layouts[10][RL2FZ_FIELDS] = {
	{ 8, 8, 8, 8, 8, 8, 8, 8 },	/* INFO (out) */
	{ 8, 4, 4, 4, 4 },		/* SET */
	{ 8, 8, 4, 4, 4, 4 },		/* GET */
	{ 8, 8, 8, 8, 8, 8, 8, 8 },	/* STATS (out) */
	{ 8, 4, 4, 4, 4 },		/* CREATE */
	{ 8, 8, 4, 4, 4, 4 },		/* UNLOCK */
	{ 8, 8, 8, 8, 4, 4, 8, 8, 8 },	/* SET_WINDOW */
	{ 8, 8, 4, 4, 4, 4 },		/* SET_BASED */
	{ 8, 8, 4, 4, 4, 4 },		/* GET_BASED */
	{ 8, 8, 8, 8, 8, 8, 8, 8 },	/* a raw command */
};

struct prog {
	bool abi32;
	unsigned int death, nthreads;
};

static void parse(const uint8_t *data, size_t size, struct prog *pg)
{
	struct rd r = { data, data + size };
	uint8_t hdr = rd8(&r), nl = rd8(&r), no = rd8(&r), nw = rd8(&r), prot = rd8(&r);
	unsigned int i, j, want;

	memset(ctl, 0, RL2FZ_CTL_PAGES * RL2FZ_PAGE);
	/* a filler, so that a stray store of 0 shows */
	memset(arena + RL2FZ_CTL_PAGES * RL2FZ_PAGE, 0x5a,
	       (RL2FZ_PAGES - RL2FZ_CTL_PAGES) * RL2FZ_PAGE);
	pg->abi32 = hdr & 1;
	pg->death = (hdr >> 1) % RL2FZ_DIE_NR;
	pg->nthreads = 1 + ((hdr >> 3) & 3);
	ctl->death = pg->death;
	ctl->nthreads = pg->nthreads;
	for (i = RL2FZ_PROT_FIRST; i < RL2FZ_PAGES; i++)
		ctl->prot[i] = (prot >> (2 * (i - RL2FZ_PROT_FIRST))) & 3;

	nlists = nl % (RL2FZ_LISTS + 1);
	for (i = 0; i < nlists; i++) {
		struct list *l = &lists[i];
		uint8_t f = rd8(&r), n = rd8(&r), hp = rd8(&r), offk = rd8(&r);
		uint8_t endk = rd8(&r), how = rd8(&r), bk = rd8(&r);
		unsigned int ps = (f & 1) ? 4 : 8;
		int64_t off;
		uint64_t next, end, pend = 0;

		memset(l, 0, sizeof(*l));
		l->is32 = f & 1;
		l->based = (how % 3) == 2;
		if (l->based)
			l->base = bk >= 0xf0 ? rd64(&r) : RL2FZ_ARENA + (uint64_t)(bk % 8) * RL2FZ_PAGE;
		l->ghead = cell(hp) - (l->based ? l->base : 0);
		if (l->is32)
			l->ghead &= 0xffffffff;
		l->n = n % 9;
		switch (offk & 3) {
		case 0: off = 2 * ps; break;
		case 1: off = -(int64_t)(offk >> 2) * 4; break;
		case 2: off = (int32_t)rd32(&r); break;
		default: off = (offk >> 2) + 1; break;	/* misaligned or odd */
		}
		for (j = 0; j < l->n; j++)
			l->entry[j] = cell(rd8(&r)) - (l->based ? l->base : 0);
		/* the links, then the head, then the words */
		switch (endk % 8) {	/* back at the head in 3 of 8 */
		case 1: end = l->n ? l->entry[(endk / 8) % l->n] : l->ghead; break;
		case 2: end = l->n ? l->entry[l->n - 1] : l->ghead; break;
		case 3: end = 0; break;
		case 4: end = rd64(&r); break;
		case 5: end = cell(rd8(&r)); break;
		default: end = l->ghead; break;
		}
		if (f & 0x20) {
			uint8_t pp = rd8(&r);

			pend = (pp & 0x80) && l->n ? l->entry[pp % l->n] :
			       cell(pp) - (l->based ? l->base : 0);
		}
		next = l->ghead;
		for (j = 0; j < l->n; j++) {
			uint64_t to = j + 1 < l->n ? l->entry[j + 1] : end;

			put_ptr(l, l->entry[j], to | ((f >> 7) & (j & 1)));
		}
		next = l->n ? l->entry[0] : end;
		put_ptr(l, l->ghead, next | ((f >> 7) & 1));
		if (l->is32) {
			uint32_t o = (uint32_t)off;

			put_ptr(l, l->ghead + 4, o);
			put_ptr(l, l->ghead + 8, pend ? pend | ((f >> 6) & 1) : 0);
		} else {
			put_ptr(l, l->ghead + 8, (uint64_t)off);
			put_ptr(l, l->ghead + 16, pend ? pend | ((f >> 6) & 1) : 0);
		}
		for (j = 0; j <= l->n; j++) {
			uint64_t e = j < l->n ? l->entry[j] : pend;
			uint64_t g = l->is32 ? (uint32_t)(e + (uint64_t)off) : e + (uint64_t)off;
			uint8_t spec = rd8(&r);

			if (j == l->n && !pend)
				break;
			put_word(&r, l->base + g, spec);
		}
		ctl->reg[ctl->nreg++] = (struct rl2fz_reg){
			.head = l->ghead, .base = l->base, .slot = (f >> 2) & 7,
			.how = how % 3, .is32 = l->is32,
		};
	}

	ctl->nops = no % (RL2FZ_OPS + 1);
	for (i = 0; i < ctl->nops; i++) {
		struct rl2fz_op *op = &ctl->ops[i];
		uint8_t t = rd8(&r), c = rd8(&r), a = rd8(&r);

		op->thread = t % pg->nthreads;
		op->nr = c % 10;
		if (op->nr == 9)
			op->raw_cmd = (c & 0x80) ? rd32(&r) :
				_IOC((c >> 4) & 3, 0xBE, rd8(&r) % 0x20, rd8(&r) % 0x90);
		op->arg = a % 16 < 12 ? RL2FZ_ARG_BUF : a % RL2FZ_ARG_NR;
		if (op->arg == RL2FZ_ARG_RAW)
			op->arg_raw = rd64(&r);
		for (j = 0; j < RL2FZ_FIELDS && layouts[op->nr][j]; j++) {
			op->size[j] = layouts[op->nr][j];
			op->val[j] = smart(&r, &op->kind[j]);
		}
	}

	/*
	 * Waiters: each on a word of the fills (the lists' futex words); one
	 * per word, since a walk owes a word one wake-up.  A byte that names
	 * a word already taken is skipped, and another read while the input
	 * lasts.
	 */
	want = nw % (RL2FZ_WAITERS + 1);
	for (i = 0; ctl->nwait < want && i < 4 * RL2FZ_WAITERS && ctl->nfill; i++) {
		uint32_t off = ctl->fill[rd8(&r) % ctl->nfill].off;

		for (j = 0; j < ctl->nwait; j++)
			if (ctl->wait[j].off == off)
				break;
		if (j == ctl->nwait)
			ctl->wait[ctl->nwait++].off = off;
		else if (r.p >= r.end)
			break;
	}
}

/* ---- the model of the walk ---------------------------------------------- */

struct expect {
	uint32_t val[RL2FZ_PAGES * RL2FZ_PAGE / 4];	/* the words as the walks leave them */
	uint8_t named[RL2FZ_PAGES * RL2FZ_PAGE / 4];	/* 1 recovered, 2 must wake */
	bool unknown;					/* a list left what we can follow */
};

static struct expect ex;

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

static void read_maps(pid_t pid)
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
		if (lo >= RL2FZ_ARENA && hi <= RL2FZ_ARENA + RL2FZ_PAGES * RL2FZ_PAGE)
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

/* 0 readable, -1 a fault for sure, 1 outside what the model follows */
static int readable(uint64_t h, unsigned int size, bool write)
{
	uint64_t ctl_lo = RL2FZ_ARENA;
	uint64_t lo = RL2FZ_ARENA + RL2FZ_CTL_PAGES * RL2FZ_PAGE;
	uint64_t hi = RL2FZ_ARENA + RL2FZ_PAGES * RL2FZ_PAGE;

	if (h + size < h)
		return -1;
	if (h + size <= ctl_lo || h >= hi)
		return !maps_unknown && unmapped(h, size) ? -1 : 1;
	if (h < lo || h + size > hi)
		return 1;	/* the program's own pages, or across the arena's end */
	for (uint64_t p = (h - RL2FZ_ARENA) / RL2FZ_PAGE;
	     p <= (h + size - 1 - RL2FZ_ARENA) / RL2FZ_PAGE; p++) {
		if (ctl->prot[p] == RL2FZ_PROT_NONE)
			return -1;
		if (write && ctl->prot[p] == RL2FZ_PROT_RO)
			return -1;
	}
	return 0;
}

static uint64_t rdmem(uint64_t h, unsigned int size)
{
	uint64_t v = 0;
	uint32_t w;

	if (size == 4) {
		memcpy(&w, before + (h - RL2FZ_ARENA), 4);
		return w;
	}
	memcpy(&v, before + (h - RL2FZ_ARENA), 8);
	return v;
}

static bool owned_by_executor(uint32_t v, const struct prog *pg)
{
	for (unsigned int t = 0; t < pg->nthreads; t++)
		if ((v & TID_MASK) == ctl->tids[t])
			return true;
	return false;
}

/* One entry's word; false: the walk ends here. */
static bool model_word(uint64_t base, uint64_t g, uint32_t tid, bool pi,
		       bool pending, bool is32, const struct prog *pg)
{
	uint64_t h = base + g;
	/* the dying task's TASK_SIZE */
	uint64_t limit = pg->abi32 ? 0xffffe000ULL : 0x7ffffffff000ULL;
	uint32_t v, i;
	int rc;

	if (h < base || h >= limit)
		return false;
	if (h & 3)
		return false;
	rc = readable(h, 4, false);
	if (rc) {
		ex.unknown |= rc > 0;
		return false;
	}
	i = (uint32_t)((h - RL2FZ_ARENA) / 4);
	v = ex.val[i];
	if ((v & TID_MASK) == tid) {
		if (readable(h, 4, true))
			return false;		/* read-only: the exchange faults */
		ex.val[i] = (v & WAITERS) | OWNER_DIED;
		ex.named[i] |= 1;
		if (!pi && (v & WAITERS))
			ex.named[i] |= 2;
		return true;
	}
	/* not ours: a pending non-PI word may carry the wake it owed */
	if (pending && !pi && (!(v & TID_MASK) || !(v & WAITERS)) &&
	    !owned_by_executor(rdmem(h, 4), pg))
		ex.named[i] |= 2;
	return true;
}

static bool model_ptr(uint64_t base, uint64_t g, unsigned int size, uint64_t *v,
		      const struct prog *pg)
{
	uint64_t h = base + g;
	uint64_t limit = pg->abi32 ? 0xffffe000ULL : 0x7ffffffff000ULL;
	int rc;

	if (h < base || h >= limit)
		return false;
	rc = readable(h, size, false);
	if (rc) {
		ex.unknown |= rc > 0;
		return false;
	}
	*v = rdmem(h, size);
	return true;
}

static void model_list(uint32_t tid, uint64_t ghead, uint64_t base, bool is32,
		       const struct prog *pg)
{
	unsigned int ps = is32 ? 4 : 8, steps = 0;
	uint64_t next, offv, pendv, entry, pending, seen[64];
	int64_t off;
	bool pi, pip;

	if (!model_ptr(base, ghead, ps, &next, pg) ||
	    !model_ptr(base, ghead + ps, ps, &offv, pg) ||
	    !model_ptr(base, ghead + 2 * ps, ps, &pendv, pg))
		return;
	off = is32 ? (int32_t)offv : (int64_t)offv;
	entry = next & ~1ULL;
	pi = next & 1;
	pending = pendv & ~1ULL;
	pip = pendv & 1;
	while (entry != ghead) {
		uint64_t g = is32 ? (uint32_t)(entry + (uint64_t)off) : entry + (uint64_t)off;
		bool rn, ok = true;
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
		rn = model_ptr(base, entry, ps, &next, pg);
		if (entry != pending)
			ok = model_word(base, g, tid, pi, false, is32, pg);
		if (!ok || !rn)
			return;
		entry = next & ~1ULL;
		pi = next & 1;
	}
	if (pending)
		model_word(base, is32 ? (uint32_t)(pending + (uint64_t)off) : pending + (uint64_t)off,
			   tid, pip, true, is32, pg);
}

static void model(const struct prog *pg)
{
	memcpy(ex.val, before, sizeof(before));
	memset(ex.named, 0, sizeof(ex.named));
	ex.unknown = false;
	for (unsigned int t = 0; t < pg->nthreads; t++)
		for (unsigned int s = 0; s < RL2FZ_SLOTS; s++) {
			struct rl2fz_slot *sl = &ctl->slots[t][s];

			if (sl->err || sl->type == 0)
				continue;
			model_list(ctl->tids[t], sl->head, sl->base, sl->type == 2, pg);
		}
}

/* ---- one program -------------------------------------------------------- */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static bool failed;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "rl2fz: VIOLATION: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	failed = true;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static pid_t spawn(const char *prog, const char *arg)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { (char *)prog, (char *)arg, NULL };
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, memfd, RL2FZ_FD);
	if (posix_spawn(&pid, prog, &fa, NULL, argv, environ))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

/* Reap @pid within @secs; false if it is still running. */
static bool reap(pid_t pid, double secs, int *status)
{
	double end = now() + secs;

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return true;
		if (r < 0 || now() > end)
			return false;
		usleep(500);
	}
}

/* Is waiter thread @tid asleep in futex()? (x86-64: syscall 202) */
static bool asleep(pid_t pid, uint32_t tid)
{
	char path[64], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%u/syscall", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return !strncmp(buf, "202 ", 4);
}

static void feed_kcov(void)
{
	unsigned long n, i, prev = 0;

	if (!kcov)
		return;
	n = __atomic_load_n(&kcov[0], __ATOMIC_RELAXED);
	if (n > KCOV_WORDS - 1)
		n = KCOV_WORDS - 1;
	for (i = 1; i <= n; i++) {
		unsigned long pc = kcov[i];
		uint64_t h = (prev * 0x9E3779B97F4A7C15ULL) ^ pc;
		unsigned long k = (pc * 0x9E3779B97F4A7C15ULL) >> 50;

		while (pcs[k] && pcs[k] != pc)
			k = (k + 1) % (1 << 14);
		if (!pcs[k] && npcs < (1 << 13)) {
			pcs[k] = pc;
			npcs++;
		}

		h ^= h >> 29;
		h *= 0xBF58476D1CE4E5B9ULL;
		h ^= h >> 32;
		if (counters[h % NCOUNTERS] < 255)
			counters[h % NCOUNTERS]++;
		if (!(edge_seen[(h % EDGE_BITS) / 8] & (1 << (h % 8)))) {
			edge_seen[(h % EDGE_BITS) / 8] |= 1 << (h % 8);
			nedges++;
		}
		prev = pc;
	}
}

static void check(const struct prog *pg)
{
	const uint32_t *a = (const uint32_t *)arena;
	const uint32_t *b = (const uint32_t *)before;

	model(pg);
	for (uint32_t i = RL2FZ_CTL_PAGES * RL2FZ_PAGE / 4; i < RL2FZ_PAGES * RL2FZ_PAGE / 4; i++) {
		uint64_t h = RL2FZ_ARENA + 4ULL * i;

		if (ex.named[i] & 1) {
			if (a[i] != ex.val[i])
				fail("lock word %#llx: %#x before, %#x after, %#x expected (owner %u)",
				     (unsigned long long)h, b[i], a[i], ex.val[i], ctl->tids[0]);
		} else if (a[i] != b[i] && !ex.unknown) {
			fail("word %#llx that no list names changed: %#x -> %#x",
			     (unsigned long long)h, b[i], a[i]);
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int fd;

	if (n <= 0)
		abort();
	self[n] = 0;
	slash = strrchr(self, '/');
	*slash = 0;
	snprintf(exec64, sizeof(exec64), "%s/rl2fz-exec", self);
	snprintf(exec32, sizeof(exec32), "%s/rl2fz-exec.m32", self);
	snprintf(waitprog, sizeof(waitprog), "%s/rl2fz-exec", self);
	owner_pid_other = getpid();

	memfd = memfd_create("rl2fz", 0);
	if (memfd < 0 || ftruncate(memfd, RL2FZ_PAGES * RL2FZ_PAGE) ||
	    mmap((void *)RL2FZ_ARENA, RL2FZ_PAGES * RL2FZ_PAGE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED_NOREPLACE, memfd, 0) != (void *)RL2FZ_ARENA) {
		perror("rl2fz: arena");
		exit(2);
	}

	fd = open("/sys/kernel/debug/kcov", O_RDWR);
	if (fd >= 0 && !ioctl(fd, KCOV_INIT_TRACE, KCOV_WORDS)) {
		struct kcov_remote_arg ra = {
			.trace_mode = KCOV_TRACE_PC,
			.area_size = KCOV_WORDS,
			.num_handles = 0,
			.common_handle = kcov_remote_handle(KCOV_SUBSYSTEM_COMMON, 0x726c32),
		};

		kcov = mmap(NULL, KCOV_WORDS * sizeof(long), PROT_READ | PROT_WRITE,
			    MAP_SHARED, fd, 0);
		if (kcov == MAP_FAILED || ioctl(fd, KCOV_REMOTE_ENABLE, &ra)) {
			perror("rl2fz: KCOV_REMOTE_ENABLE");
			exit(2);
		}
	} else {
		fprintf(stderr, "rl2fz: no KCOV (%s): fuzzing blind\n", strerror(errno));
	}
	return 0;
}

/*
 * RL2FZ_TRACE=FILE (the VM's fourth serial port): each program in hex
 * before it runs, so the one that panicked the kernel is known.
 */
static void trace(const uint8_t *data, size_t size)
{
	static FILE *f;
	static bool tried;

	if (!tried) {
		const char *p = getenv("RL2FZ_TRACE");

		tried = true;
		f = p ? fopen(p, "w") : NULL;
	}
	if (!f)
		return;
	fputs("IN ", f);
	for (size_t i = 0; i < size; i++)
		fprintf(f, "%02x", data[i]);
	fputc('\n', f);
	fflush(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prog pg;
	pid_t pid, wpid = -1;
	int status;
	double end;
	unsigned int i;

	trace(data, size);
	failed = false;
	parse(data, size, &pg);
	if (kcov)
		__atomic_store_n(&kcov[0], 0, __ATOMIC_RELAXED);
	execs++;

	pid = spawn(pg.abi32 ? exec32 : exec64, NULL);
	if (pid < 0) {
		perror("rl2fz: posix_spawn");
		exit(2);
	}
	end = now() + 20;
	while (!__atomic_load_n(&ctl->ready, __ATOMIC_SEQ_CST)) {
		if (waitpid(pid, &status, WNOHANG) == pid || now() > end) {
			/* a GET wrote where a raw head_ptr pointed, ...: not ours */
			kill(pid, SIGKILL);
			reap(pid, 60, &status);
			skipped++;
			feed_kcov();
			return 0;
		}
		usleep(200);
	}
	if (ctl->bad_op)
		fail("op %u (nr %u) answered errno %u, which no command documents",
		     ctl->bad_op - 1, ctl->ops[ctl->bad_op - 1].nr, ctl->bad_errno);
	memcpy(before, arena, sizeof(before));
	read_maps(pid);

	/* waiters on words whose value is known now */
	for (i = 0; i < ctl->nwait; i++)
		memcpy(&ctl->wait[i].val, before + ctl->wait[i].off, 4);
	if (ctl->nwait) {
		wpid = spawn(waitprog, "--wait");
		end = now() + 10;
		for (i = 0; i < ctl->nwait && wpid > 0; i++) {
			struct rl2fz_wait *w = &ctl->wait[i];

			while (now() < end) {
				uint32_t st = __atomic_load_n(&w->state, __ATOMIC_SEQ_CST);

				if (st > RL2FZ_W_WAITING ||
				    (st == RL2FZ_W_WAITING && asleep(wpid, w->tid)))
					break;
				usleep(200);
			}
		}
	}

	if (pg.death == RL2FZ_DIE_KILL) {
		kill(pid, SIGKILL);
	} else {
		__atomic_store_n(&ctl->go, 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, &ctl->go, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
	if (!reap(pid, 60, &status)) {
		fail("the executor did not die within 60 s of its death");
		kill(pid, SIGKILL);
		reap(pid, 60, &status);
	}
	check(&pg);

	/* every waiter the model says a walk woke must be awake */
	for (i = 0; i < ctl->nwait && wpid > 0; i++) {
		struct rl2fz_wait *w = &ctl->wait[i];

		if (!(ex.named[w->off / 4] & 2) || w->state != RL2FZ_W_WAITING ||
		    !asleep(wpid, w->tid))
			continue;
		end = now() + 3;
		while (now() < end && __atomic_load_n(&w->state, __ATOMIC_SEQ_CST) == RL2FZ_W_WAITING)
			usleep(1000);
		if (w->state == RL2FZ_W_WAITING)
			fail("waiter on %#x (was %#x, now %#x) left asleep after the owner died",
			     (unsigned int)(RL2FZ_ARENA + w->off), w->val, ((uint32_t *)arena)[w->off / 4]);
	}
	if (wpid > 0) {
		for (i = 0; i < ctl->nwait; i++)
			syscall(SYS_futex, arena + ctl->wait[i].off, FUTEX_WAKE, INT_MAX,
				NULL, NULL, 0);
		if (!reap(wpid, 10, &status)) {
			kill(wpid, SIGKILL);
			reap(wpid, 10, &status);
		}
	}
	feed_kcov();
	if (failed) {
		violations++;
		fprintf(stderr, "rl2fz: program: %s executor, death %u, %u threads, %u lists, %u ops, %u waiters\n",
			pg.abi32 ? "32-bit" : "64-bit", pg.death, pg.nthreads, nlists,
			ctl->nops, ctl->nwait);
		abort();
	}
	return 0;
}

__attribute__((destructor)) static void summary(void)
{
	if (execs)
		fprintf(stderr, "rl2fz: %lu programs, module edges %lu, module sites %lu, %lu skipped, %lu violations\n",
			execs, nedges, npcs, skipped, violations);
}
