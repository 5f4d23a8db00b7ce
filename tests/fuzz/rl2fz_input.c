// SPDX-License-Identifier: GPL-2.0
/*
 * make fuzz, the input: what the bytes of one libFuzzer input mean
 * (parse(); missing bytes read as 0, so every input is a program).
 * tests/fuzz/mkseeds.sh writes seeds in this layout:
 *
 *   header   abi32 | death << 1 | (threads - 1) << 3 | hostile << 5
 *            (death: 0 exit, 1 exit_group, 2 SIGKILL, 3 exec), then the
 *            numbers of lists, ops and waiters, and the protections of
 *            pages 6..9 (2 bits each: RL2FZ_K_RW, _RO, _NONE, _DONTNEED);
 *            with hostile, two more bytes: a kind (RL2FZ_K_*, 4 bits) for
 *            each of pages 6..9 instead, FUSE files among them
 *   a list   flags (1 32-bit, slot << 2, 0x20 pending, 0x40 pending PI,
 *            0x80 PI links), entries, head cell, offset kind, end, how
 *            (0 SET, 1 CREATE, 2 SET_BASED), base; one cell (128 bytes of
 *            pages 2..9) per entry, [the pending entry's cell,] one word
 *            kind per entry and one for the pending entry
 *   an op    thread, command (c % 10: the commands in uapi order, 9 a
 *            raw number, or FAULTS if c & 0x40), where its argument
 *            points, its fields
 *   a waiter the index of a futex word (in list order)
 *
 * An op never points into a page the controller cannot see the child
 * write (a private mapping), one that must stay unread until the death
 * (RANDOM, NOREAD), nor one whose writeback may have started (NOWRITE: a
 * store there may wait for good): its address moves to page 2.
 */
#include <string.h>
#include <sys/ioctl.h>

#include <linux/robust_list2.h>

#include "rl2fz_int.h"

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

struct list lists[RL2FZ_LISTS];
unsigned int nlists, owner_pid_other;

/* Cell @pos of the lists' pages (2..9), 16-byte aligned. */
static uint64_t cell(uint8_t pos)
{
	return LISTS_LO + (uint64_t)pos * 128;
}

/* The list page @h is on, or 0. */
static unsigned int page_of(uint64_t h)
{
	return h >= LISTS_LO && h < LISTS_HI ? (unsigned int)((h - RL2FZ_ARENA) / RL2FZ_PAGE) : 0;
}

static void put_ptr(const struct list *l, uint64_t gaddr, uint64_t v)
{
	uint64_t h = l->base + gaddr;

	if (h < LISTS_LO || h + 8 > LISTS_HI)
		return;
	if (l->is32) {
		uint32_t v32 = (uint32_t)v;

		memcpy(arena + (h - RL2FZ_ARENA), &v32, 4);
	} else {
		memcpy(arena + (h - RL2FZ_ARENA), &v, 8);
	}
}

/* A futex word at host address @h, filled by the child (owner TID). */
static void put_word(struct rd *r, uint64_t h, uint8_t spec)
{
	struct rl2fz_fill *f;
	uint32_t v = 0;

	if (h < LISTS_LO || h + 4 > LISTS_HI || (h & 3) || ctl->nfill >= RL2FZ_FILLS)
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
	if (fz_stall_kind(ctl->kind[page_of(h)]) && ctl->kind[page_of(h)] != RL2FZ_K_NOWRITE)
		ctl->nfill--;		/* nobody can write it there */
}

/* An address an op may use: see the top of this file. */
static uint64_t op_addr(uint64_t v)
{
	unsigned int pg = page_of(v);

	switch (pg ? ctl->kind[pg] : RL2FZ_K_RW) {
	case RL2FZ_K_PRIVATE: case RL2FZ_K_RANDOM: case RL2FZ_K_RANDOM_PRIV:
	case RL2FZ_K_NOREAD: case RL2FZ_K_NOREAD_PRIV: case RL2FZ_K_NOWRITE:
		return v - (uint64_t)(pg - RL2FZ_CTL_PAGES) * RL2FZ_PAGE;
	}
	return v;
}

static uint64_t smart(struct rd *r, uint32_t *kind)
{
	uint8_t s = rd8(r);

	*kind = RL2FZ_F_VAL;
	switch (s & 7) {
	case 0: return 0;
	case 1: return s >> 3;
	case 2: return nlists ? op_addr(lists[(s >> 3) % nlists].ghead) : 0;
	case 3: return op_addr(cell(rd8(r)) + ((s >> 3) & 7));
	case 4: *kind = RL2FZ_F_TID; return s >> 3;
	case 5: return op_addr(rd64(r));
	case 6: return (uint64_t)-1 >> ((s >> 3) & 31);
	default: return owner_pid_other;
	}
}

/* Field widths per command, in uapi order (0 ends), then a raw one. */
static const uint8_t layouts[RL2FZ_NR_CMDS + 1][RL2FZ_FIELDS] = {
	{ 8, 8, 8, 8, 8, 8, 8, 8 },	/* INFO (out) */
	{ 8, 4, 4, 4, 4 },		/* SET */
	{ 8, 8, 4, 4, 4, 4 },		/* GET */
	{ 8, 8, 8, 8, 8, 8, 8, 8 },	/* STATS (out) */
	{ 8, 4, 4, 4, 4 },		/* CREATE */
	{ 8, 8, 4, 4, 4, 4 },		/* UNLOCK */
	{ 8, 8, 8, 8, 4, 4, 8, 8, 8 },	/* SET_WINDOW */
	{ 8, 8, 4, 4, 4, 4 },		/* SET_BASED */
	{ 8, 8, 4, 4, 4, 4 },		/* GET_BASED */
	{ 8, 8, 8, 8, 8, 8 },		/* FAULTS (out) */
	{ 8, 8, 8, 8, 8, 8, 8, 8 },	/* a raw command */
};

/* Pages 6..9: 2-bit protections, or (hostile) a kind each. */
static void kinds(struct rd *r, uint8_t hdr, uint8_t prot, struct prog *pg, bool fuse)
{
	unsigned int i, k16 = 0, nrandom = 0;

	if (hdr & 0x20)
		k16 = rd8(r) | rd8(r) << 8;
	pg->hostile = (hdr & 0x20) && fuse;
	for (i = RL2FZ_PROT_FIRST; i < RL2FZ_PAGES; i++) {
		unsigned int k = (prot >> (2 * (i - RL2FZ_PROT_FIRST))) & 3;

		if (pg->hostile) {
			k = ((k16 >> (4 * (i - RL2FZ_PROT_FIRST))) & 15) % RL2FZ_K_NR;
			/* one file page "m": the second RANDOM page is plain */
			if ((k == RL2FZ_K_RANDOM || k == RL2FZ_K_RANDOM_PRIV) && nrandom++)
				k = k == RL2FZ_K_RANDOM ? RL2FZ_K_SHARED : RL2FZ_K_PRIVATE;
		}
		ctl->kind[i] = k;
	}
}

static void parse_list(struct rd *r, struct list *l)
{
	uint8_t f = rd8(r), n = rd8(r), hp = rd8(r), offk = rd8(r);
	uint8_t endk = rd8(r), how = rd8(r), bk = rd8(r);
	unsigned int ps = (f & 1) ? 4 : 8, j;
	int64_t off;
	uint64_t next, end, pend = 0;

	memset(l, 0, sizeof(*l));
	l->is32 = f & 1;
	l->based = (how % 3) == 2;
	if (l->based)
		l->base = bk >= 0xf0 ? rd64(r) : RL2FZ_ARENA + (uint64_t)(bk % 8) * RL2FZ_PAGE;
	l->ghead = cell(hp) - (l->based ? l->base : 0);
	if (l->is32)
		l->ghead &= 0xffffffff;
	l->n = n % 9;
	switch (offk & 3) {
	case 0: off = 2 * ps; break;
	case 1: off = -(int64_t)(offk >> 2) * 4; break;
	case 2: off = (int32_t)rd32(r); break;
	default: off = (offk >> 2) + 1; break;	/* misaligned or odd */
	}
	for (j = 0; j < l->n; j++)
		l->entry[j] = cell(rd8(r)) - (l->based ? l->base : 0);
	/* the links, then the head, then the words */
	switch (endk % 8) {	/* back at the head in 3 of 8 */
	case 1: end = l->n ? l->entry[(endk / 8) % l->n] : l->ghead; break;
	case 2: end = l->n ? l->entry[l->n - 1] : l->ghead; break;
	case 3: end = 0; break;
	case 4: end = rd64(r); break;
	case 5: end = cell(rd8(r)); break;
	default: end = l->ghead; break;
	}
	if (f & 0x20) {
		uint8_t pp = rd8(r);

		pend = (pp & 0x80) && l->n ? l->entry[pp % l->n] :
		       cell(pp) - (l->based ? l->base : 0);
	}
	for (j = 0; j < l->n; j++) {
		uint64_t to = j + 1 < l->n ? l->entry[j + 1] : end;

		put_ptr(l, l->entry[j], to | ((f >> 7) & (j & 1)));
	}
	next = l->n ? l->entry[0] : end;
	put_ptr(l, l->ghead, next | ((f >> 7) & 1));
	put_ptr(l, l->ghead + ps, l->is32 ? (uint32_t)off : (uint64_t)off);
	put_ptr(l, l->ghead + 2 * ps, pend ? pend | ((f >> 6) & 1) : 0);
	for (j = 0; j <= l->n; j++) {
		uint64_t e = j < l->n ? l->entry[j] : pend;
		uint64_t g = l->is32 ? (uint32_t)(e + (uint64_t)off) : e + (uint64_t)off;
		uint8_t spec = rd8(r);

		if (j == l->n && !pend)
			break;
		put_word(r, l->base + g, spec);
	}
	ctl->reg[ctl->nreg++] = (struct rl2fz_reg){
		.head = l->ghead, .base = l->base, .slot = (f >> 2) & 7,
		.how = how % 3, .is32 = l->is32,
	};
}

static void parse_op(struct rd *r, struct rl2fz_op *op, const struct prog *pg)
{
	uint8_t t = rd8(r), c = rd8(r), a = rd8(r);
	unsigned int j;

	op->thread = t % pg->nthreads;
	/* 0..8 the first commands; 9 raw, or FAULTS (added later) with bit 6 */
	op->nr = c % 10;
	if (op->nr == 9 && !(c & 0x40))
		op->nr = RL2FZ_NR_RAW;
	if (op->nr == RL2FZ_NR_RAW)
		op->raw_cmd = (c & 0x80) ? rd32(r) :
			_IOC((c >> 4) & 3, ROBUST_LIST2_IOC_TYPE, rd8(r) % 0x20, rd8(r) % 0x90);
	op->arg = a % 16 < 12 ? RL2FZ_ARG_BUF : a % RL2FZ_ARG_NR;
	if (op->arg == RL2FZ_ARG_RAW)
		op->arg_raw = op_addr(rd64(r));
	if (op->arg == RL2FZ_ARG_PAGE6 && op_addr(LISTS_HI - 4 * RL2FZ_PAGE) != LISTS_HI - 4 * RL2FZ_PAGE)
		op->arg = RL2FZ_ARG_BUF;
	for (j = 0; j < RL2FZ_FIELDS && layouts[op->nr][j]; j++) {
		op->size[j] = layouts[op->nr][j];
		op->val[j] = smart(r, &op->kind[j]);
	}
}

void parse(const uint8_t *data, size_t size, struct prog *pg, bool fuse)
{
	struct rd r = { data, data + size };
	uint8_t hdr = rd8(&r), nl = rd8(&r), no = rd8(&r), nw = rd8(&r), prot = rd8(&r);
	unsigned int i, j, want;

	/* the program's part of ctl; the servers' words stay */
	memset(ctl, 0, offsetof(struct rl2fz_ctl, srv));
	/* a filler, so that a stray store of 0 shows */
	memset(arena + RL2FZ_CTL_PAGES * RL2FZ_PAGE, 0x5a,
	       (RL2FZ_PAGES - RL2FZ_CTL_PAGES) * RL2FZ_PAGE);
	pg->abi32 = hdr & 1;
	pg->death = (hdr >> 1) % RL2FZ_DIE_NR;
	pg->nthreads = 1 + ((hdr >> 3) & 3);
	ctl->death = pg->death;
	ctl->nthreads = pg->nthreads;
	kinds(&r, hdr, prot, pg, fuse);

	nlists = nl % (RL2FZ_LISTS + 1);
	for (i = 0; i < nlists; i++)
		parse_list(&r, &lists[i]);

	ctl->nops = no % (RL2FZ_OPS + 1);
	for (i = 0; i < ctl->nops; i++)
		parse_op(&r, &ctl->ops[i], pg);

	/*
	 * Waiters: each on a word of the fills (the lists' futex words) on a
	 * page of the arena's memfd, which the waiters map; one per word,
	 * since a walk owes a word one wake-up.  A byte that names a word
	 * already taken is skipped, and another read while the input lasts.
	 */
	want = nw % (RL2FZ_WAITERS + 1);
	for (i = 0; ctl->nwait < want && i < 4 * RL2FZ_WAITERS && ctl->nfill; i++) {
		uint32_t off = ctl->fill[rd8(&r) % ctl->nfill].off;

		for (j = 0; j < ctl->nwait; j++)
			if (ctl->wait[j].off == off)
				break;
		if (j == ctl->nwait && ctl->kind[off / RL2FZ_PAGE] <= RL2FZ_K_DONTNEED)
			ctl->wait[ctl->nwait++].off = off;
		else if (r.p >= r.end)
			break;
	}
}
