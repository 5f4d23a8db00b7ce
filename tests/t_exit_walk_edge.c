// SPDX-License-Identifier: GPL-2.0
/*
 * The exit walk on lists a kernel engineer would call hostile: entries and
 * heads in unmapped or kernel memory, misaligned and read-only words,
 * words on pages that are not present, huge offsets and 32-bit address
 * wrap, and nothing written but the dying thread's own words.  (Cycles
 * and long lists: t_exit_walk_shape.c.)  Each case: a child builds lists with its TID, registers them and
 * exits; the parent checks every word it can see and that the child's
 * death completed (a walk that never ended would leave it unreaped).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "edge.h"
#include "helpers.h"


/* ---- bad pointers ---------------------------------------------------- */

static void *unmapped_page(void)
{
	void *p = th_mmap_low(4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	munmap(p, 4096);
	return p;
}

static int build_unmapped_entry(struct edge *e)
{
	edge_chain64(e, 0, 0, 3);
	/* l2 -> an unmapped entry: the walk of slot 0 ends there */
	e->l64[2].list.next = e->arg;
	edge_chain64(e, 1, 10, 2);
	return edge_reg64(e, 0, &e->h64[0]) ?: edge_reg64(e, 1, &e->h64[1]);
}

static void test_unmapped_entry_ends_only_that_list(void **state)
{
	struct edge *e = edge_new();

	e->arg = unmapped_page();
	edge_run(e, build_unmapped_entry);
	assert_int_equal(3, edge_count_dead64(e, 0, 3));
	assert_int_equal(2, edge_count_dead64(e, 10, 2));
	th_free(e, REGION);
}

static int build_bad_heads(struct edge *e)
{
	edge_chain64(e, 4, 0, 2);
	if (TH_LP64 && (edge_reg64(e, 1, (void *)(uintptr_t)0xffff888000000000ULL) ||
			edge_reg64(e, 2, (void *)(uintptr_t)0xffffffffff600000ULL)))
		return 49;
	return edge_reg64(e, 0, e->arg) ?:
	       edge_reg32(e, 3, (void *)(uintptr_t)0xfffffff0u) ?:
	       edge_reg64(e, 4, &e->h64[4]) ?:
	       edge_reg64(e, 5, (void *)8);
}

static void test_bad_heads_skipped_others_walked(void **state)
{
	struct edge *e = edge_new();

	e->arg = unmapped_page();
	edge_run(e, build_bad_heads);
	assert_int_equal(2, edge_count_dead64(e, 0, 2));
	th_free(e, REGION);
}

/*
 * Heads that straddle a page boundary into a hole: the first field reads,
 * a later one (futex_offset, or list_op_pending) faults.  The kernel's
 * walk gives up on such a head before it touches an entry
 * (exit_robust_list() returns on each of the three reads); so do we,
 * counting a fault, and walk the other slots.  Four heads, each at the end
 * of its own mapped page with a hole after it: native with futex_offset
 * across, native with list_op_pending across, and the same two as 32-bit
 * lists.  Each names one owned lock that must keep its word.
 */
struct split {
	char *pages;			/* 8 pages: 0, 2, 4, 6 mapped */
	size_t page;
};

static void *split_head(struct split *sp, unsigned int i, size_t cut)
{
	return sp->pages + (2 * i + 1) * sp->page - cut;
}

static int build_split_heads(struct edge *e)
{
	struct split *sp = e->arg;
	struct robust_list_head *h;
	struct robust_list_head32 *h32;
	unsigned int i;

	for (i = 0; i < 2; i++) {	/* l64[0], l64[1]: native heads 0, 1 */
		h = split_head(sp, i, i ? offsetof(struct robust_list_head, list_op_pending) :
				      offsetof(struct robust_list_head, futex_offset));
		h->list.next = &e->l64[i].list;
		if (i)
			h->futex_offset = TH_OFF64;
		e->l64[i].list.next = &h->list;
		e->l64[i].futex = e->tid;
		if (edge_reg64(e, i, h))
			return 40 + i;
	}
	for (i = 0; i < 2; i++) {	/* l32[8], l32[9]: 32-bit heads 2, 3 */
		h32 = split_head(sp, 2 + i, i ? offsetof(struct robust_list_head32, list_op_pending) :
						offsetof(struct robust_list_head32, futex_offset));
		h32->list.next = th_p32(&e->l32[8 + i]);
		if (i)
			h32->futex_offset = TH_OFF32;
		e->l32[8 + i].list.next = th_p32(h32);
		e->l32[8 + i].futex = e->tid;
		if (edge_reg32(e, 2 + i, h32))
			return 42 + i;
	}
	edge_chain64(e, 4, 20, 2);		/* and a good list beside them */
	return edge_reg64(e, 4, &e->h64[4]);
}

static void test_head_split_across_a_hole(void **state)
{
	struct edge *e = edge_new();
	struct robust_list2_stats d;
	struct split sp;

	sp.page = sysconf(_SC_PAGESIZE);
	sp.pages = th_mmap_low(8 * sp.page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(sp.pages != MAP_FAILED);
	for (unsigned int i = 1; i < 8; i += 2)
		assert_int_equal(0, munmap(sp.pages + i * sp.page, sp.page));
	e->arg = &sp;

	edge_stats_start();
	edge_run(e, build_split_heads);
	d = edge_stats_delta();
	assert_int_equal(e->tid, e->l64[0].futex);
	assert_int_equal(e->tid, e->l64[1].futex);
	assert_int_equal(e->tid, e->l32[8].futex);
	assert_int_equal(e->tid, e->l32[9].futex);
	assert_int_equal(2, edge_count_dead64(e, 20, 2));
	if (edge_have_stats)
		assert_int_equal(4, d.faults);
	if (edge_have_stats)
		assert_int_equal(0, d.cycles + d.limited);

	for (unsigned int i = 0; i < 8; i += 2)
		munmap(sp.pages + i * sp.page, sp.page);
	th_free(e, REGION);
}

static int build_misaligned(struct edge *e)
{
	/* l1's entry is 2 bytes off, so its futex word is misaligned */
	struct th_lock64 *odd = (void *)((char *)&e->l64[20] + 2);

	edge_chain64(e, 0, 0, 3);
	odd->futex = e->tid;
	odd->list.next = e->l64[1].list.next;
	e->l64[0].list.next = &odd->list;
	edge_chain64(e, 1, 10, 1);
	return edge_reg64(e, 0, &e->h64[0]) ?: edge_reg64(e, 1, &e->h64[1]);
}

static void test_misaligned_word_ends_walk_like_kernel(void **state)
{
	struct edge *e = edge_new();
	struct th_lock64 *odd = (void *)((char *)&e->l64[20] + 2);

	edge_run(e, build_misaligned);
	assert_int_equal(FUTEX_OWNER_DIED, e->l64[0].futex);
	/* the misaligned word is never written; the walk stops, as the kernel's */
	assert_int_equal((uint32_t)e->tid, odd->futex);
	assert_int_equal((uint32_t)e->tid, e->l64[2].futex);
	/* the other slot is still walked */
	assert_int_equal(FUTEX_OWNER_DIED, e->l64[10].futex);
	th_free(e, REGION);
}

static int build_readonly(struct edge *e)
{
	struct th_lock64 *ro = e->arg;

	edge_chain64(e, 0, 0, 1);
	th_list64_init(&e->h64[1], TH_OFF64);
	ro->futex = e->tid;
	th_list64_add(&e->h64[1], ro, false);
	if (mprotect(ro, 4096, PROT_READ))
		return 70;
	return edge_reg64(e, 0, &e->h64[0]) ?: edge_reg64(e, 1, &e->h64[1]);
}

static void test_readonly_word_left_alone(void **state)
{
	struct edge *e = edge_new();
	struct th_lock64 *ro = th_shared_alloc(4096, true);

	e->arg = ro;
	edge_run(e, build_readonly);
	assert_int_equal((uint32_t)e->tid, ro->futex);
	assert_int_equal(FUTEX_OWNER_DIED, e->l64[0].futex);
	th_free(ro, 4096);
	th_free(e, REGION);
}

static int build_huge_offsets(struct edge *e)
{
	edge_chain64(e, 0, 0, 2);
	e->h64[0].futex_offset = (long)(1LL << 31);
	edge_chain64(e, 1, 10, 2);
	e->h64[1].futex_offset = (long)-(1LL << 31);
	edge_chain64(e, 2, 20, 2);
	e->h64[2].futex_offset = LONG_MIN;
	edge_chain64(e, 3, 30, 2);
	return edge_reg64(e, 0, &e->h64[0]) ?: edge_reg64(e, 1, &e->h64[1]) ?:
	       edge_reg64(e, 2, &e->h64[2]) ?: edge_reg64(e, 3, &e->h64[3]);
}

static void test_huge_offsets_harmless(void **state)
{
	struct edge *e;

	if (!TH_LP64)
		skip();		/* 32-bit offsets: see the 4 GiB wrap test */
	e = edge_new();

	edge_run(e, build_huge_offsets);
	assert_int_equal(0, edge_count_dead64(e, 0, 30));
	assert_int_equal(2, edge_count_dead64(e, 30, 2));
	th_free(e, REGION);
}

/* ---- 32-bit arithmetic ----------------------------------------------- */

#define HI_ENTRY	0xf0000000UL
#define LO_WORD		0x60000000UL

static int build_wrap32(struct edge *e)
{
	struct robust_list32 *entry = (void *)HI_ENTRY;
	uint32_t *word = (void *)LO_WORD;

	th_list32_init(&e->h32[0], (int32_t)(uint32_t)(LO_WORD - HI_ENTRY));
	entry->next = th_p32(&e->h32[0].list);
	e->h32[0].list.next = th_p32(entry);
	*word = e->tid;
	return edge_reg32(e, 0, &e->h32[0]);
}

static void test_32bit_offset_wraps_at_4g(void **state)
{
	struct edge *e = edge_new();
	int fl = MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE;
	void *hi = mmap((void *)HI_ENTRY, 4096, PROT_READ | PROT_WRITE, fl, -1, 0);
	void *lo = mmap((void *)LO_WORD, 4096, PROT_READ | PROT_WRITE, fl, -1, 0);

	if (hi != (void *)HI_ENTRY || lo != (void *)LO_WORD)
		skip();
	/* entry 0xf0000000 + offset 0x70000000 = 0x60000000 modulo 2^32 */
	edge_run(e, build_wrap32);
	assert_int_equal(FUTEX_OWNER_DIED, *(uint32_t *)LO_WORD);
	munmap(hi, 4096);
	munmap(lo, 4096);
	th_free(e, REGION);
}

/* ---- nothing but the dying thread's own words is written ------------ */

#define CANARY_SIZE	(64 * 1024)
#define CANARY_LOCKS	64
#define CANARY_BYTE	0xa5

/*
 * Lay out a list of CANARY_LOCKS entries at scattered 8-byte slots of a
 * canary-filled region at @base, writing into @dst (the region itself, or
 * the parent's picture of what it must look like afterwards).  Even locks
 * are owned by @tid (every fourth contended), odd ones by another thread.
 * The last entry points into a PROT_NONE page: the walk ends there.
 */
static void canary_layout(uintptr_t base, char *dst, uint32_t tid, uintptr_t trap, bool after)
{
	uintptr_t prev = base;		/* the head sits at offset 0 */

	memset(dst, CANARY_BYTE, CANARY_SIZE);
	for (unsigned int i = 0; i < CANARY_LOCKS; i++) {
		/* scattered, never twice the same place (37 is prime to 1000) */
		uintptr_t at = base + 64 + ((i * 37) % 1000) * 64;
		uint32_t w = i % 2 ? (tid + 1) : tid;

		if (i % 8 == 0)
			w |= FUTEX_WAITERS;
		if (after && !(i % 2))
			w = (w & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
		/* entry: next pointer, then the word at TH_OFF64 */
		memcpy(dst + (prev - base), &at, sizeof(at));
		memcpy(dst + (at - base) + TH_OFF64, &w, sizeof(w));
		prev = at;
	}
	memcpy(dst + (prev - base), &trap, sizeof(trap));
	/* the head's futex_offset and list_op_pending */
	{
		long off = TH_OFF64;
		void *pending = NULL;

		memcpy(dst + offsetof(struct robust_list_head, futex_offset), &off, sizeof(off));
		memcpy(dst + offsetof(struct robust_list_head, list_op_pending), &pending,
		       sizeof(pending));
	}
}

static int build_canaries(struct edge *e)
{
	char *region = e->arg;
	uintptr_t trap = (uintptr_t)region + CANARY_SIZE;	/* PROT_NONE */

	canary_layout((uintptr_t)region, region, e->tid, trap, false);
	return edge_reg64(e, 0, (void *)region);
}

static void test_only_owned_words_written(void **state)
{
	struct edge *e = edge_new();
	char *region = th_mmap_low(CANARY_SIZE + 4096, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *expect = malloc(CANARY_SIZE);
	size_t bad = 0;

	assert_true(region != MAP_FAILED);
	assert_non_null(expect);
	assert_int_equal(0, mprotect(region + CANARY_SIZE, 4096, PROT_NONE));
	e->arg = region;
	edge_run(e, build_canaries);

	canary_layout((uintptr_t)region, expect, e->tid,
		      (uintptr_t)region + CANARY_SIZE, true);
	for (size_t i = 0; i < CANARY_SIZE; i++)
		bad += region[i] != expect[i];
	if (bad)
		print_error("%zu bytes differ from what the walk may write\n", bad);
	assert_int_equal(0, bad);
	free(expect);
	munmap(region, CANARY_SIZE + 4096);
	th_free(e, REGION);
}

/* An entry in a PROT_NONE page or the vsyscall page ends the walk. */
static int build_unreadable_entries(struct edge *e)
{
	edge_chain64(e, 0, 0, 2);
	e->l64[1].list.next = e->arg;			/* PROT_NONE */
	edge_chain64(e, 1, 10, 2);
	e->l64[11].list.next = TH_LP64 ? (void *)(uintptr_t)0xffffffffff600000ULL
				       : (void *)(uintptr_t)0xfffff000U;
	edge_chain64(e, 2, 20, 1);
	return edge_reg64(e, 0, &e->h64[0]) ?: edge_reg64(e, 1, &e->h64[1]) ?: edge_reg64(e, 2, &e->h64[2]);
}

static void test_prot_none_and_vsyscall_entries(void **state)
{
	struct edge *e = edge_new();
	void *none = th_mmap_low(4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(none != MAP_FAILED);
	e->arg = none;
	edge_run(e, build_unreadable_entries);
	assert_int_equal(2, edge_count_dead64(e, 0, 2));
	assert_int_equal(2, edge_count_dead64(e, 10, 2));
	assert_int_equal(1, edge_count_dead64(e, 20, 1));
	munmap(none, 4096);
	th_free(e, REGION);
}

/*
 * The list's memory is unmapped by a sibling while the owner's exit walk
 * runs: the walk meets a fault and stops; the kernel must not mind.
 */
struct unmap_race {
	struct edge *e;
	void *list;
	size_t len;
	volatile pid_t owner;
	volatile int go;
};

static void *unmap_owner(void *p)
{
	struct unmap_race *r = p;
	struct robust_list_head *h = r->list;
	struct th_lock64 *l = (void *)(h + 1);
	size_t n = (r->len - sizeof(*h)) / sizeof(*l);

	th_list64_init(h, TH_OFF64);
	for (size_t i = 0; i < n; i++) {
		l[i].futex = th_gettid();
		th_list64_add(h, &l[i], false);
	}
	if (set_robust_list2(h, 0, TH_NATIVE, 0))
		return (void *)1;
	r->owner = th_gettid();
	while (!r->go)
		;
	return NULL;		/* exit: the walk starts */
}

static int unmap_race_child(void *p)
{
	struct unmap_race *r = p;
	pthread_t t;

	r->list = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->list == MAP_FAILED || pthread_create(&t, NULL, unmap_owner, r))
		return 2;
	while (!r->owner)
		;
	r->go = 1;
	/* unmap the list while the owner's exit walk is reading it */
	for (int i = 0; i < 1000; i++) {
		if (munmap(r->list, r->len))
			return 3;
		mmap(r->list, r->len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	}
	pthread_join(t, NULL);
	return 0;
}

static void test_list_unmapped_during_walk(void **state)
{
	struct unmap_race *r = th_shared_alloc(4096, false);

	r->len = 4 << 20;
	/*
	 * What is checked is that it ends and the kernel log stays clean, not
	 * how fast: the owner's walk of ~170k entries races 1000 remaps of
	 * 4 MiB, which under TCG on a loaded host took more than the usual
	 * 10 s once (arm64-7.2, two VMs on two cores).
	 */
	assert_int_equal(0, th_wait_child_ms(th_spawn_child(unmap_race_child, r), 60000));
	th_free(r, 4096);
}

/* ---- pages that are not present ------------------------------------- */

static int build_dropped_page(struct edge *e)
{
	struct th_lock64 *l = e->arg;

	th_list64_init(&e->h64[2], TH_OFF64);
	l->futex = e->tid | FUTEX_WAITERS;
	th_list64_add(&e->h64[2], l, false);
	if (edge_reg64(e, 2, &e->h64[2]))
		return 80;
	/* drop our page table entry: the word must be faulted back in */
	return madvise((void *)((uintptr_t)l & ~(th_page_size() - 1)), th_page_size(),
		       MADV_DONTNEED) ? 81 : 0;
}

static void test_word_on_dropped_file_page(void **state)
{
	char path[] = "/tmp/rl2-edge-XXXXXX";
	int fd = mkstemp(path);
	struct edge *e = edge_new();
	size_t page = th_page_size();
	struct th_lock64 *l;

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(0, ftruncate(fd, 2 * page));
	l = th_mmap_low(2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(l != MAP_FAILED);
	e->arg = (char *)l + page + 64;		/* on the second page */
	edge_run(e, build_dropped_page);
	l = e->arg;
	assert_int_equal(FUTEX_OWNER_DIED | FUTEX_WAITERS, l->futex);
	munmap((char *)e->arg - page - 64, 2 * page);
	close(fd);
	th_free(e, REGION);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unmapped_entry_ends_only_that_list),
		cmocka_unit_test(test_bad_heads_skipped_others_walked),
		cmocka_unit_test(test_misaligned_word_ends_walk_like_kernel),
		cmocka_unit_test(test_readonly_word_left_alone),
		cmocka_unit_test(test_huge_offsets_harmless),
		cmocka_unit_test(test_32bit_offset_wraps_at_4g),
		cmocka_unit_test(test_only_owned_words_written),
		cmocka_unit_test(test_prot_none_and_vsyscall_entries),
		cmocka_unit_test(test_list_unmapped_during_walk),
		cmocka_unit_test(test_word_on_dropped_file_page),
		cmocka_unit_test(test_head_split_across_a_hole),
	};

	return cmocka_run_group_tests_name("exit_walk_edge", tests, NULL, NULL);
}
