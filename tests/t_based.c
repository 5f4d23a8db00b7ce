// SPDX-License-Identifier: GPL-2.0
/*
 * Lists in a guest address space (robust_list2_set_based()): an emulator's
 * guest memory mapped at some host address, every pointer in the list a
 * guest address, host = base + guest.
 *
 * The guest region here is shared memory whose guest address GUEST0 sits at
 * host address R + GAP (so base = R + GAP - GUEST0 is never 0 and guest addresses
 * are never host ones); the bytes below hold a sentinel word with the
 * owner's TID that a walk not wrapping a 32-bit sum in guest space would
 * mark.  A child takes the locks and is SIGKILLed; the parent checks every
 * word, the waiters and the module's fault counter.  Bad bases (kernel
 * space, unmapped, overflowing pointers) end the walk with nothing written:
 * a sentinel list (below 4 GiB, host pointers) at the host address the
 * guest pointers would name without the base is left alone.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "helpers.h"

#define GAP		0x10000UL	/* bytes below the guest region */
#define GUEST0		0x8000UL	/* guest address of the region's start */
#define GSIZE		0x10000UL	/* guest region used */
#define NLOCKS		3

/* The guest's 64-bit list, as a 64-bit guest lays it out. */
struct g64_head {
	uint64_t next;
	int64_t futex_offset;
	uint64_t pending;
};

struct g64_lock {
	uint64_t next;
	uint32_t futex;
	uint32_t pad;
};

/* Guest addresses of the head, the locks and the pending lock. */
#define G_HEAD		(GUEST0 + 0x100)
#define G_LOCK(j)	(GUEST0 + 0x200 + 0x40 * (j))
#define G_PENDING	(GUEST0 + 0x800)

struct job {
	bool is32;
	uint64_t base;		/* what the child registers */
	uint64_t head;		/* guest head it registers */
	uint32_t ready;
	int32_t tid;
	int32_t err;
	bool plain_first;	/* a plain list in slot 0 before the based one */
	struct robust_list_head plain_head;
	struct th_lock64 plain_lock;
};

static char *region;		/* R: GAP bytes, then the guest */
static size_t region_size;
static char *sent;		/* the sentinel list, below 4 GiB */
static struct job *job;

static void *g2h(uint64_t base, uint64_t g)
{
	return (void *)(uintptr_t)(base + g);
}

static uint64_t good_base(void)
{
	return (uint64_t)(uintptr_t)region + GAP - GUEST0;
}

/* The sentinel list's "base": its guest addresses G_* are at sent + G - GUEST0. */
static uint64_t sent_base(void)
{
	return (uint64_t)(uintptr_t)sent - GUEST0;
}

/*
 * Build a list of NLOCKS locks (and a pending one) at host base + G_*,
 * whose pointers are pbase + G_* (0: guest pointers; base: host ones),
 * every word owned by @tid.
 */
static void build_list(bool is32, uint64_t base, uint64_t pbase, uint32_t tid)
{
	if (is32) {
		struct robust_list_head32 *h = g2h(base, G_HEAD);

		h->futex_offset = offsetof(struct th_lock32, futex);
		h->list_op_pending = pbase + G_PENDING;
		h->next = pbase + G_HEAD;
		for (int j = NLOCKS - 1; j >= 0; j--) {
			struct th_lock32 *l = g2h(base, G_LOCK(j));

			l->futex = tid | (j == 0 ? FUTEX_WAITERS : 0);
			l->list.next = h->next;
			h->next = pbase + G_LOCK(j);
		}
		((struct th_lock32 *)g2h(base, G_PENDING))->futex = tid;
	} else {
		struct g64_head *h = g2h(base, G_HEAD);

		h->futex_offset = offsetof(struct g64_lock, futex);
		h->pending = pbase + G_PENDING;
		h->next = pbase + G_HEAD;
		for (int j = NLOCKS - 1; j >= 0; j--) {
			struct g64_lock *l = g2h(base, G_LOCK(j));

			l->futex = tid | (j == 0 ? FUTEX_WAITERS : 0);
			l->next = h->next;
			h->next = pbase + G_LOCK(j);
		}
		((struct g64_lock *)g2h(base, G_PENDING))->futex = tid;
	}
}

static uint32_t *lock_word(bool is32, uint64_t base, uint64_t g)
{
	return is32 ? &((struct th_lock32 *)g2h(base, g))->futex :
		      &((struct g64_lock *)g2h(base, g))->futex;
}

static void park(void)
{
	uint32_t never = 0;

	th_futex_wait(&never, 0, TH_TIMEOUT_MS, true);
}

/* The child: register job->head at job->base in slot 3, then wait for death. */
static int child_main(void *p)
{
	struct job *j = p;
	unsigned int cmd = j->is32 ? FUTEX_ROBUST_LIST_CMD_SET_32 :
				     FUTEX_ROBUST_LIST_CMD_SET_64;

	j->tid = th_gettid();
	if (j->plain_first) {
		th_list64_init(&j->plain_head, TH_OFF64);
		j->plain_lock.futex = j->tid;
		th_list64_add(&j->plain_head, &j->plain_lock, false);
		if (set_robust_list2(&j->plain_head, 0, TH_NATIVE, 0))
			j->err = errno;
	}
	if (robust_list2_set_based(j->head, j->base, 3, cmd))
		j->err = errno;
	th_set_flag(&j->ready, 1);
	park();
	return 0;
}

static struct robust_list2_stats st0;

static void stats_start(void)
{
	assert_int_equal(0, robust_list2_stats(&st0));
}

static uint64_t faults_since(void)
{
	struct robust_list2_stats st;

	assert_int_equal(0, robust_list2_stats(&st));
	return st.faults - st0.faults;
}

/*
 * Start the child, let it write its TID with @prepare (into the lists it
 * will own and the sentinels), kill it, and reap it.  @waiters: two waiter
 * threads on lock 0 of the list at good_base().
 */
static void run_child(void (*prepare)(uint32_t tid), struct th_waiter *w)
{
	pid_t pid;
	uint64_t head, base;
	unsigned int type;

	job->ready = 0;
	job->err = 0;
	job->tid = 0;
	pid = th_spawn_kid(child_main, job);
	assert_true(pid > 0);
	assert_true(th_wait_flag(&job->ready, 1, TH_TIMEOUT_MS));
	assert_int_equal(0, job->err);

	/* The child's slot as another thread sees it: guest head and base. */
	assert_int_equal(0, robust_list2_get_based(pid, 3, &head, &base, &type));
	assert_int_equal(job->head, head);
	assert_int_equal(job->base, base);
	assert_int_equal(job->is32 ? ROBUST_LIST2_TYPE_32 : ROBUST_LIST2_TYPE_64, type);
	if (job->plain_first) {
		assert_int_equal(0, robust_list2_get_based(pid, 0, &head, &base, &type));
		assert_int_equal((uintptr_t)&job->plain_head, head);
		assert_int_equal(0, base);
	}

	prepare(job->tid);
	for (int k = 0; w && k < 2; k++) {
		w[k].uaddr = lock_word(job->is32, good_base(), G_LOCK(0));
		w[k].val = *w[k].uaddr;
		w[k].private = false;
		w[k].timeout_ms = TH_TIMEOUT_MS;
		assert_int_equal(0, th_waiter_start(&w[k]));
	}
	kill(pid, SIGKILL);
	assert_int_equal(128 + SIGKILL, th_reap_kid(pid, TH_TIMEOUT_MS));
}

static void prepare_good(uint32_t tid)
{
	build_list(job->is32, good_base(), 0, tid);
}

/* Owner killed: every lock and the pending one marked, one waiter woken. */
static void owner_killed(bool is32)
{
	uint64_t b = good_base();
	struct th_waiter w[2] = { 0 };
	uint32_t *w0 = lock_word(is32, b, G_LOCK(0));

	TH_NEED_ROOT();
	job->is32 = is32;
	job->base = b;
	job->head = G_HEAD;
	stats_start();
	run_child(prepare_good, w);

	assert_int_equal(FUTEX_OWNER_DIED | FUTEX_WAITERS, *w0);
	for (int j = 1; j < NLOCKS; j++)
		assert_int_equal(FUTEX_OWNER_DIED, *lock_word(is32, b, G_LOCK(j)));
	assert_int_equal(FUTEX_OWNER_DIED, *lock_word(is32, b, G_PENDING));
	assert_int_equal(0, faults_since());
	/* Exactly one of the two waiters was woken by the walk. */
	assert_int_equal(1, th_futex_wake(w0, INT_MAX, false));
	assert_int_equal(0, th_waiter_join(&w[0]));
	assert_int_equal(0, th_waiter_join(&w[1]));
}

static void test_based32_owner_killed(void **state)
{
	owner_killed(true);
}

/*
 * A thread whose first base comes after a plain slot: its record is
 * replaced by one with bases (module/registry.c), and both lists are
 * still there for get and for the walk.
 */
static void test_based_after_plain_slot(void **state)
{
	job->plain_first = true;
	owner_killed(true);
	job->plain_first = false;
	assert_int_equal(FUTEX_OWNER_DIED, job->plain_lock.futex);
}

static void test_based64_owner_killed(void **state)
{
	if (!TH_LP64)
		skip();		/* SET_64 from a 32-bit process is EOPNOTSUPP */
	owner_killed(false);
}

/*
 * 32-bit wrap in guest space: entry G_LOCK(0) with futex_offset
 * -(G_LOCK(0) + 8) names guest 0xfffffff8, host base + 0xfffffff8; 64-bit
 * arithmetic would give base - 8, a sentinel word the child owns.  In a
 * 64-bit process the region reaches base + 4 GiB and the word there is
 * marked; in a 32-bit one base + 0xfffffff8 is above TASK_SIZE: the walk
 * ends quietly.
 */
static uint32_t *wrap_word, *wrap_sentinel;

static void prepare_wrap(uint32_t tid)
{
	struct robust_list_head32 *h = g2h(good_base(), G_HEAD);
	struct th_lock32 *l = g2h(good_base(), G_LOCK(0));

	h->futex_offset = -(int32_t)(G_LOCK(0) + 8);
	h->list_op_pending = 0;
	h->next = G_LOCK(0);
	l->list.next = G_HEAD;
	*wrap_sentinel = tid;
	if (wrap_word)
		*wrap_word = tid;
}

static void test_based32_wrap_in_guest_space(void **state)
{
	uint64_t b = good_base();

	TH_NEED_ROOT();
	wrap_sentinel = g2h(b, -8ULL);
	wrap_word = TH_LP64 ? g2h(b, 0xfffffff8ULL) : NULL;
	job->is32 = true;
	job->base = b;
	job->head = G_HEAD;
	stats_start();
	run_child(prepare_wrap, NULL);

	assert_int_equal(job->tid, *wrap_sentinel);
	if (wrap_word) {
		assert_int_equal(FUTEX_OWNER_DIED, *wrap_word);
		assert_int_equal(0, faults_since());
	} else {
		assert_int_equal(1, faults_since());
	}
}

/*
 * The sentinel list: a plain list with host pointers, owned by the child.
 * The registered guest pointers name it (as if the base were ignored, or
 * base + pointer wrapped around), the base moves them elsewhere.  Nothing
 * may be marked.
 */
static void prepare_sentinel(uint32_t tid)
{
	build_list(job->is32, sent_base(), sent_base(), tid);
}

static void check_sentinel_untouched(void)
{
	uint64_t sb = sent_base();

	assert_int_equal(job->tid | FUTEX_WAITERS, *lock_word(job->is32, sb, G_LOCK(0)));
	for (int j = 1; j < NLOCKS; j++)
		assert_int_equal(job->tid, *lock_word(job->is32, sb, G_LOCK(j)));
	assert_int_equal(job->tid, *lock_word(job->is32, sb, G_PENDING));
}

static void bad_base(bool is32, uint64_t base, uint64_t head)
{
	TH_NEED_ROOT();
	job->is32 = is32;
	job->base = base;
	job->head = head;
	stats_start();
	run_child(prepare_sentinel, NULL);
	check_sentinel_untouched();
	assert_int_equal(1, faults_since());
}

/* Sentinel guest head: without the base, it is the sentinel list's host head. */
static uint64_t sentinel_head(void)
{
	return sent_base() + G_HEAD;
}

/* A 32-bit caller passes a 64-bit base too. */
static void test_based_base_in_kernel_space(void **state)
{
	uint64_t kbase = 0xffff800000000000ULL;

	bad_base(true, kbase, sentinel_head());
	if (TH_LP64)
		bad_base(false, kbase, sentinel_head());
}

static void test_based_base_unmapped(void **state)
{
	char *hole = mmap(NULL, GSIZE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(hole != MAP_FAILED);
	assert_int_equal(0, munmap(hole, GSIZE));
	bad_base(true, (uint64_t)(uintptr_t)hole - GUEST0, G_HEAD);
}

/*
 * 64-bit guest pointers whose base + pointer wraps past 2^64 onto the
 * sentinel list: the head is good, its next pointer overflows.
 */
static void prepare_overflow(uint32_t tid)
{
	struct g64_head *h = g2h(good_base(), G_HEAD);

	prepare_sentinel(tid);
	h->futex_offset = offsetof(struct g64_lock, futex);
	h->pending = 0;
	/* base + next == sentinel lock 0, modulo 2^64. */
	h->next = sent_base() + G_LOCK(0) - good_base();
}

static void test_based64_pointer_overflow(void **state)
{
	if (!TH_LP64)
		skip();
	TH_NEED_ROOT();
	job->is32 = false;
	job->base = good_base();
	job->head = G_HEAD;
	stats_start();
	run_child(prepare_overflow, NULL);
	check_sentinel_untouched();
	assert_int_equal(1, faults_since());
}

/* Base 0 is today's set_robust_list2(). */
static void test_based_base0_is_set(void **state)
{
	struct robust_list_head32 *h = g2h(good_base(), G_HEAD);
	uint64_t head, base = 1;
	unsigned int type;
	void *got;

	assert_int_equal(0, robust_list2_set_based((uintptr_t)h, 0, 2,
						   TH_NATIVE) ? errno : 0);
	assert_int_equal(0, get_robust_list2(0, &got, 2, 0));
	assert_ptr_equal(h, got);
	assert_int_equal(0, robust_list2_get_based(0, 2, &head, &base, &type));
	assert_int_equal((uintptr_t)h, head);
	assert_int_equal(0, base);
	assert_int_equal(TH_LP64 ? ROBUST_LIST2_TYPE_64 : ROBUST_LIST2_TYPE_32, type);
	assert_int_equal(0, set_robust_list2(NULL, 2, TH_NATIVE, 0));
}

/* Base 0 walks like a plain slot: owner killed, list at host addresses. */
static void test_based_base0_owner_killed(void **state)
{
	uint64_t sb = sent_base();

	TH_NEED_ROOT();
	job->is32 = true;
	job->base = 0;
	job->head = sb + G_HEAD;
	stats_start();
	run_child(prepare_sentinel, NULL);
	for (int j = 0; j < NLOCKS; j++)
		assert_int_equal(FUTEX_OWNER_DIED | (j ? 0 : FUTEX_WAITERS),
				 *lock_word(job->is32, sb, G_LOCK(j)));
	assert_int_equal(0, faults_since());
}

/* Raw SET_BASED, for the fields the library always fills with 0. */
static int raw_set(uint64_t head, uint64_t base, uint32_t index, uint32_t cmd,
		   uint32_t flags, uint32_t pad)
{
	struct robust_list2_set_based a = {
		.head = head, .base = base, .index = index, .cmd = cmd,
		.flags = flags, .pad = pad,
	};
	int fd = robust_list2_fd();

	assert_true(fd >= 0);
	return ioctl(fd, ROBUST_LIST2_IOC_SET_BASED, &a) ? errno : 0;
}

static void test_based_errors(void **state)
{
	const uint32_t s32 = FUTEX_ROBUST_LIST_CMD_SET_32, s64 = FUTEX_ROBUST_LIST_CMD_SET_64;
	uint64_t b = good_base();
	struct robust_list2_info info;

	assert_int_equal(0, robust_list2_info(&info));
	assert_true(info.features & ROBUST_LIST2_F_BASED);

	assert_int_equal(EINVAL, raw_set(G_HEAD, b, 0, s32, 1, 0));
	assert_int_equal(EINVAL, raw_set(G_HEAD, b, 0, s32, 0, 1));
	assert_int_equal(EINVAL, raw_set(G_HEAD, b, 0, FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, 0, 0));
	assert_int_equal(EINVAL, raw_set(G_HEAD, b, 0, 3, 0, 0));
	assert_int_equal(EINVAL, raw_set(G_HEAD, b, ROBUST_LIST2_NR_SLOTS, s32, 0, 0));
	assert_int_equal(EINVAL, raw_set(G_HEAD + 2, b, 0, s32, 0, 0));
	assert_int_equal(EINVAL, raw_set(G_HEAD, b + 2, 0, s32, 0, 0));
	assert_int_equal(EINVAL, raw_set(1ULL << 32, b, 0, s32, 0, 0));
	/* base + head above 2^64 - 1 */
	assert_int_equal(EINVAL, raw_set(G_HEAD, -(uint64_t)G_HEAD + 4, 0, s32, 0, 0));
	if (TH_LP64) {
		assert_int_equal(EINVAL, raw_set(G_HEAD + 4, b, 0, s64, 0, 0));
		assert_int_equal(EINVAL, raw_set(G_HEAD, b + 4, 0, s64, 0, 0));
		assert_int_equal(0, raw_set(G_HEAD, b, 0, s64, 0, 0));
		assert_int_equal(0, raw_set(0, 0, 0, s64, 0, 0));
	} else {
		assert_int_equal(EOPNOTSUPP, raw_set(G_HEAD, b, 0, s64, 0, 0));
	}
	/* The base of an empty slot is ignored; empty stays empty. */
	assert_int_equal(0, raw_set(0, 12345, 0, s32, 0, 0));
	assert_int_equal(EINVAL, robust_list2_get_based(0, ROBUST_LIST2_NR_SLOTS, NULL, NULL, NULL) ?
			 errno : 0);
}

/* The same list (host address) in two slots is refused, whatever the bases. */
static void test_based_same_head_twice(void **state)
{
	const uint32_t s32 = FUTEX_ROBUST_LIST_CMD_SET_32;
	uint64_t b = good_base(), head, base;
	void *got;

	assert_int_equal(0, raw_set(G_HEAD, b, 0, s32, 0, 0));
	/* Plain slot, same host head. */
	assert_int_equal(EINVAL, set_robust_list2(g2h(b, G_HEAD), 1, TH_NATIVE, 0) ? errno : 0);
	/* Another base and guest head naming the same host head. */
	assert_int_equal(EINVAL, raw_set(G_HEAD + 0x40, b - 0x40, 1, s32, 0, 0));
	/* Same guest head, another base: another list. */
	assert_int_equal(0, raw_set(G_HEAD, b + 0x40, 1, s32, 0, 0));
	/* get answers the guest head as set; get_based the base too. */
	assert_int_equal(0, get_robust_list2(0, &got, 1, 0));
	assert_int_equal(G_HEAD, (uintptr_t)got);
	assert_int_equal(0, robust_list2_get_based(0, 1, &head, &base, NULL));
	assert_int_equal(G_HEAD, head);
	assert_int_equal(b + 0x40, base);
	/* Overwriting a based slot with a plain one drops its base. */
	assert_int_equal(0, set_robust_list2(g2h(b, G_HEAD + 0x80), 1, TH_NATIVE, 0));
	assert_int_equal(0, robust_list2_get_based(0, 1, &head, &base, NULL));
	assert_int_equal((uintptr_t)g2h(b, G_HEAD + 0x80), head);
	assert_int_equal(0, base);
	assert_int_equal(0, raw_set(0, 0, 0, s32, 0, 0));
	assert_int_equal(0, raw_set(0, 0, 1, s32, 0, 0));
}

static int setup(void **state)
{
	if (!th_have_device())
		return -1;
	/*
	 * 64-bit: GAP + 4 GiB + GSIZE, so guest 0xfffffff8 is mapped (shared
	 * memory is only allocated where touched).  32-bit: GAP + GSIZE.
	 */
	region_size = GAP + GSIZE + (TH_LP64 ? (size_t)(0x100000000ULL) : 0);
	region = mmap(NULL, region_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (region == MAP_FAILED)
		return -1;
	sent = th_shared_alloc(GSIZE, true);
	job = th_shared_alloc(4096, false);
	return job && sent ? 0 : -1;
}

static int teardown(void **state)
{
	munmap(region, region_size);
	th_free(sent, GSIZE);
	th_free(job, 4096);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_based32_owner_killed, th_kids_teardown),
		cmocka_unit_test_teardown(test_based_after_plain_slot, th_kids_teardown),
		cmocka_unit_test_teardown(test_based64_owner_killed, th_kids_teardown),
		cmocka_unit_test_teardown(test_based32_wrap_in_guest_space, th_kids_teardown),
		cmocka_unit_test_teardown(test_based_base_in_kernel_space, th_kids_teardown),
		cmocka_unit_test_teardown(test_based_base_unmapped, th_kids_teardown),
		cmocka_unit_test_teardown(test_based64_pointer_overflow, th_kids_teardown),
		cmocka_unit_test(test_based_base0_is_set),
		cmocka_unit_test_teardown(test_based_base0_owner_killed, th_kids_teardown),
		cmocka_unit_test(test_based_errors),
		cmocka_unit_test(test_based_same_head_twice),
	};

	TH_MODULE_ONLY_SUITE("based lists are ioctls of the module; the kernel series has no base");
	return cmocka_run_group_tests_name("based", tests, setup, teardown);
}
