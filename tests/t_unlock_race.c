// SPDX-License-Identifier: GPL-2.0
/*
 * The robust unlock race, made deterministic with ptrace: a child
 * single-steps through an unlock until the futex word reads 0, stays
 * stopped there with list_op_pending still naming the lock, the "memory"
 * is reused with a value equal to the child's TID, and the child is
 * killed.  With the plain user-space unlock the exit walk corrupts that
 * memory (the negative control: the test can see the bug); with
 * try-unlock the module finishes the unlock first and with the one-call
 * unlock there is no such moment at all.  The calls' own contracts are
 * t_unlock.c.
 *
 * Map: the racer child and how it is stopped per architecture (racer(),
 * step_store_exclusive(), run_race_at()), then the cases per unlock form
 * (library call, inline copy in the public header, a copy the module does
 * not know, LSE and exclusive forms on arm64), and the per-slot window
 * cases; main() lists them all in that order.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "helpers.h"
#include "try_unlock_copy.h"

/* ---- the race, deterministically ------------------------------------ */

/*
 * TRY32_BASED: TRY32 with the list in a guest address space (host = base +
 * guest).  TRY32_TWO_FDS: TRY32 on slot 0, set through the library's
 * descriptor, after slot 1 was set through a bare one: the library's
 * registered window must still count.  TRY32_TWO_WINDOWS: the same after
 * slot 1 was set through a descriptor with a window of its own (another
 * copy of the library): the record keeps both.  *_INLINE: the header's inline
 * try-unlock, a copy in this file; *_COPY: a copy in another object
 * (lib/try_unlock_copy.c), with the slot set through a descriptor of its
 * own that never registered a window: the module knows those copies by
 * their bytes only.  TRY32_FAR (x86): a copy whose jnz has the long form
 * (0f 85 rel32), with no window either.  *_LSE (arm64): the header's LSE
 * form; *_UNKNOWN (arm64): the exclusive form with a NOP in its window,
 * which the module must not know (the negative control).
 */
enum how { PLAIN, TRY64, TRY32, IOCTL, TRY32_BASED, TRY32_TWO_FDS, TRY32_TWO_WINDOWS,
	   TRY64_INLINE,
	   TRY32_INLINE, TRY64_COPY, TRY32_COPY, TRY32_FAR, TRY64_LSE, TRY32_LSE,
	   TRY64_UNKNOWN, TRY32_UNKNOWN, TRY64_LEGACY };

struct race {
	enum how how;
	int extra;			/* single steps past the release */
	uint32_t tid;
	int err;
	struct robust_list_head head;
	struct robust_list_head32 head32;
	struct robust_list_head32 other32;	/* TRY32_TWO_*'s slot 1: empty */
	struct th_lock64 lock;
	struct th_lock32 lock32;
	struct robust_list_head slot;	/* TRY64_LEGACY: an empty list in a slot */
};

static bool race_is32(struct race *r)
{
	return r->how == TRY32 || r->how == TRY32_BASED || r->how == TRY32_TWO_FDS ||
	       r->how == TRY32_TWO_WINDOWS ||
	       r->how == TRY32_INLINE || r->how == TRY32_COPY || r->how == TRY32_FAR ||
	       r->how == TRY32_LSE || r->how == TRY32_UNKNOWN;
}

static uint32_t *race_word(struct race *r)
{
	return race_is32(r) ? &r->lock32.futex : &r->lock.futex;
}

static bool race_pending_set(struct race *r)
{
	return race_is32(r) ? r->head32.list_op_pending != 0 : r->head.list_op_pending != NULL;
}

/* The base of TRY32_BASED: guest address = host address - base. */
static uint32_t race_g(struct race *r, const void *p)
{
	return (uint32_t)((uintptr_t)p - ((uintptr_t)r - 0x1000));
}

/* Set @head in slot @index through a new descriptor, with no window. */
static long set_without_window(void *head, unsigned int index, unsigned int cmd)
{
	struct robust_list2_set a = { .head = (uintptr_t)head, .index = index, .cmd = cmd };
	int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	return ioctl(fd, ROBUST_LIST2_IOC_SET, &a);	/* the fd stays open */
}

/*
 * Set @head in slot @index through a new descriptor with a window of its
 * own, elsewhere in memory: what a second copy of the library registers.
 */
static long set_with_other_window(void *head, unsigned int index, unsigned int cmd)
{
	static const char other[64];
	struct robust_list2_window w = {
		.start64 = (uintptr_t)other, .end64 = (uintptr_t)other + 16,
		.start32 = (uintptr_t)other + 32, .end32 = (uintptr_t)other + 48,
	};
	struct robust_list2_set a = { .head = (uintptr_t)head, .index = index, .cmd = cmd };
	int fd = open(ROBUST_LIST2_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, ROBUST_LIST2_IOC_SET_WINDOW, &w))
		return -1;
	return ioctl(fd, ROBUST_LIST2_IOC_SET, &a);	/* the fd stays open */
}

#ifdef ROBUST_LIST2_HAVE_TRY_UNLOCK_INLINE
static void try_unlock_inline(struct race *r, uint32_t tid)
{
	switch (r->how) {
	case TRY64_INLINE:
		robust_list2_try_unlock64_inline(&r->lock.futex, tid,
						 (uint64_t *)&r->head.list_op_pending);
		break;
	case TRY32_INLINE:
		robust_list2_try_unlock32_inline(&r->lock32.futex, tid,
						 &r->head32.list_op_pending);
		break;
	case TRY64_COPY:
		th_try_unlock64_copy(&r->lock.futex, tid, (uint64_t *)&r->head.list_op_pending);
		break;
	case TRY32_COPY:
		th_try_unlock32_copy(&r->lock32.futex, tid, &r->head32.list_op_pending);
		break;
#if defined(__x86_64__) || defined(__i386__)
	case TRY32_FAR:
		th_try_unlock32_far(&r->lock32.futex, tid, &r->head32.list_op_pending);
		break;
#endif
#ifdef __aarch64__
	case TRY64_LSE:
		th_try_unlock64_lse(&r->lock.futex, tid, (uint64_t *)&r->head.list_op_pending);
		break;
	case TRY32_LSE:
		th_try_unlock32_lse(&r->lock32.futex, tid, &r->head32.list_op_pending);
		break;
	case TRY64_UNKNOWN:
		th_try_unlock64_unknown(&r->lock.futex, tid,
					(uint64_t *)&r->head.list_op_pending);
		break;
	case TRY32_UNKNOWN:
		th_try_unlock32_unknown(&r->lock32.futex, tid, &r->head32.list_op_pending);
		break;
#endif
	default:
		abort();
	}
}
#else
static void try_unlock_inline(struct race *r, uint32_t tid)
{
	abort();	/* x86 only: the tests skip before racing */
}
#endif

static int racer(void *p)
{
	struct race *r = p;
	uint32_t tid = th_gettid();
	long ret;

	r->tid = tid;
	if (r->how == TRY32_BASED) {
		r->lock32.futex = tid;
		r->head32.list.next = race_g(r, &r->lock32.list);
		r->lock32.list.next = race_g(r, &r->head32.list);
		ret = robust_list2_set_based(race_g(r, &r->head32), (uintptr_t)r - 0x1000, 4,
					     FUTEX_ROBUST_LIST_CMD_SET_32);
		r->head32.list_op_pending = race_g(r, &r->lock32.list);
		r->head32.list.next = race_g(r, &r->head32.list);
	} else if (race_is32(r)) {
		r->lock32.futex = tid;
		th_list32_add(&r->head32, &r->lock32, false);
		if (r->how == TRY32_COPY || r->how == TRY32_FAR)
			ret = set_without_window(&r->head32, 4, FUTEX_ROBUST_LIST_CMD_SET_32);
		else if (r->how == TRY32_TWO_FDS)
			ret = set_robust_list2((void *)&r->head32, 0,
					       FUTEX_ROBUST_LIST_CMD_SET_32, 0) ?:
			      set_without_window(&r->other32, 1, FUTEX_ROBUST_LIST_CMD_SET_32);
		else if (r->how == TRY32_TWO_WINDOWS)
			ret = set_with_other_window(&r->other32, 1, FUTEX_ROBUST_LIST_CMD_SET_32) ?:
			      set_robust_list2((void *)&r->head32, 0,
					       FUTEX_ROBUST_LIST_CMD_SET_32, 0);
		else
			ret = set_robust_list2((void *)&r->head32, 4,
					       FUTEX_ROBUST_LIST_CMD_SET_32, 0);
		/* unlock steps 1 and 2: mark pending, unlink */
		r->head32.list_op_pending = th_p32(&r->lock32.list);
		r->head32.list.next = th_p32(&r->head32.list);
	} else if (r->how == TRY64_LEGACY) {
		/* the lock on the legacy list; a slot only makes us walk the thread */
		r->lock.futex = tid;
		th_list64_add(&r->head, &r->lock, false);
		ret = syscall(SYS_set_robust_list, &r->head, sizeof(r->head));
		if (!ret)
			ret = set_robust_list2(&r->slot, 4, TH_NATIVE, 0);
		r->head.list_op_pending = &r->lock.list;
		r->head.list.next = &r->head.list;
	} else {
		r->lock.futex = tid;
		th_list64_add(&r->head, &r->lock, false);
		if (r->how == TRY64_COPY)
			ret = set_without_window(&r->head, 4, TH_NATIVE);
		else
			ret = set_robust_list2(&r->head, 4, TH_NATIVE, 0);
		r->head.list_op_pending = &r->lock.list;
		r->head.list.next = &r->head.list;
	}
	if (ret || ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		return 1;
	raise(SIGSTOP);		/* the parent single-steps us from here */

	/* step 3 (release) and step 4 (clear pending) */
	switch (r->how) {
	case PLAIN:
		__atomic_store_n(&r->lock.futex, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&r->head.list_op_pending, NULL, __ATOMIC_RELEASE);
		break;
	case TRY64:
	case TRY64_LEGACY:
		robust_list2_try_unlock64(&r->lock.futex, tid,
					  (uint64_t *)&r->head.list_op_pending);
		break;
	case TRY32:
	case TRY32_BASED:	/* host addresses, as an emulator passes them */
	case TRY32_TWO_FDS:
	case TRY32_TWO_WINDOWS:
		robust_list2_try_unlock32(&r->lock32.futex, tid, &r->head32.list_op_pending);
		break;
	case IOCTL:
		robust_list2_unlock(&r->lock.futex, tid, &r->head.list_op_pending, TH_POP_NATIVE);
		break;
	default:
		try_unlock_inline(r, tid);
		break;
	}
	return 0;
}

#if defined(__aarch64__)
#include <elf.h>
#include <sys/uio.h>
#include <asm/ptrace.h>

extern const char rl2__window64_start[] __attribute__((visibility("hidden")));
extern const char rl2__window32_start[] __attribute__((visibility("hidden")));

/*
 * Single steps never get through a load/store-exclusive pair: the
 * exception return of every step clears the exclusive monitor, so a
 * store-exclusive would fail forever.  When the child is about to execute
 * one (the library's, right before its window, or the inline exclusive
 * form's "stlxr w17, wzr, [x0]"), do what a successful one does: 0 into
 * the word, status 0 into its register (w3 or w17), pc past it.
 * Everything else the child executes itself.
 */
static void step_store_exclusive(pid_t pid, struct race *r)
{
	const char *win = race_is32(r) ? rl2__window32_start : rl2__window64_start;
	struct user_pt_regs regs;
	struct iovec iov = { &regs, sizeof(regs) };

	assert_int_equal(0, ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov));
	if (regs.pc == (uintptr_t)win - 4)
		regs.regs[3] = 0;
	else if (*(const uint32_t *)(uintptr_t)regs.pc == TH_A64_STLXR_W17)
		regs.regs[17] = 0;	/* the same code is mapped here: fork */
	else
		return;
	__atomic_store_n(race_word(r), 0, __ATOMIC_RELEASE);
	regs.pc += 4;
	assert_int_equal(0, ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, &iov));
}
#elif defined(__arm__)
#include <sys/user.h>

extern const char rl2__window64_start[] __attribute__((visibility("hidden")));
extern const char rl2__window32_start[] __attribute__((visibility("hidden")));

/* The same for an armhf program: its strex, status in r3 (try_unlock_arm.S). */
static void step_store_exclusive(pid_t pid, struct race *r)
{
	const char *win = race_is32(r) ? rl2__window32_start : rl2__window64_start;
	struct user_regs regs;

	if (r->how != TRY64 && !race_is32(r))
		return;
	assert_int_equal(0, ptrace(PTRACE_GETREGS, pid, NULL, &regs));
	if (regs.uregs[15] != (uintptr_t)win - 4)
		return;
	__atomic_store_n(race_word(r), 0, __ATOMIC_RELEASE);
	regs.uregs[3] = 0;
	regs.uregs[15] = (uintptr_t)win;
	assert_int_equal(0, ptrace(PTRACE_SETREGS, pid, NULL, &regs));
}
#else
/* x86: lock cmpxchg releases the word in one single-stepped instruction */
static void step_store_exclusive(pid_t pid, struct race *r)
{
}
#endif

/*
 * Run the racer until the word has just been released, reuse the memory
 * with the racer's TID, kill it; returns the word the exit walk left.
 */
static uint32_t run_race_at(enum how how, int extra, bool *pending_when_released,
			    uint64_t *fixups, uint32_t *tid)
{
	struct race *r;
	struct robust_list2_stats before = { 0 }, after = { 0 };
	bool native = th_native();
	uint32_t word;
	int status;
	pid_t pid;
	long steps;

	/*
	 * Forms that need a descriptor of the module: a based slot, a slot
	 * set through a bare descriptor or one with another window, the
	 * unlock ioctl.
	 */
	if (how == TRY32_BASED || how == TRY32_TWO_FDS || how == TRY32_TWO_WINDOWS ||
	    how == TRY64_COPY || how == TRY32_COPY || how == TRY32_FAR || how == IOCTL)
		TH_MODULE_ONLY("a descriptor, a base or the unlock ioctl of the module");
	r = th_shared_alloc(4096, true);
	assert_non_null(r);
	r->how = how;
	r->extra = extra;
	th_list64_init(&r->head, TH_OFF64);
	th_list32_init(&r->head32, TH_OFF32);
	th_list32_init(&r->other32, TH_OFF32);
	th_list64_init(&r->slot, TH_OFF64);
	if (!native)
		assert_int_equal(0, robust_list2_stats(&before));

	pid = th_spawn_child(racer, r);
	assert_true(pid > 0);
	assert_int_equal(pid, waitpid(pid, &status, 0));
	assert_true(WIFSTOPPED(status));

	for (steps = 0; steps < 1000000 && *race_word(r) != 0; steps++) {
		step_store_exclusive(pid, r);
		if (*race_word(r) == 0)
			break;
		assert_int_equal(0, ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL));
		assert_int_equal(pid, waitpid(pid, &status, 0));
		assert_true(WIFSTOPPED(status));
	}
	assert_int_equal(0, *race_word(r));
	for (int k = 0; k < r->extra; k++) {	/* e.g. on to the store */
		assert_int_equal(0, ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL));
		assert_int_equal(pid, waitpid(pid, &status, 0));
		assert_true(WIFSTOPPED(status));
	}
	*pending_when_released = race_pending_set(r);

	/* another thread frees the lock; the memory now holds this value */
	*race_word(r) = r->tid;
	kill(pid, SIGKILL);
	assert_int_equal(pid, waitpid(pid, &status, 0));
	assert_true(WIFSIGNALED(status));

	word = *race_word(r);
	*tid = r->tid;
	if (!native)
		assert_int_equal(0, robust_list2_stats(&after));
	*fixups = after.fixups - before.fixups;
	th_free(r, 4096);
	return word;
}

static uint32_t run_race(enum how how, bool *pending_when_released, uint64_t *fixups,
			 uint32_t *tid)
{
	return run_race_at(how, 0, pending_when_released, fixups, tid);
}

/* ---- the cases: one per unlock form and stopping point ---------------- */

/*
 * The verdict on a thread killed inside a try-unlock the module knows: it
 * finished the unlock (fixups +1) and the word -- memory the lock's owner
 * may have reused -- holds what the next owner wrote, untouched.  The
 * native kernel has no such fix-up (kernel-series/README.md, differences):
 * there the race stays as real as with a plain unlock, which is asserted.
 */
static void expect_fixed_up(uint64_t fixups, uint32_t tid, uint32_t word)
{
	if (th_native()) {
		print_message("# native kernel: no try-unlock fix-up, the reused word is marked\n");
		assert_int_equal(FUTEX_OWNER_DIED, word);
		return;
	}
	assert_int_equal(1, fixups);	/* the module finished the unlock */
	assert_int_equal(tid, word);	/* the reused memory is untouched */
}

static void test_race_plain_unlock_corrupts_reused_memory(void **state)
{
	bool pending;
	uint64_t fixups;
	uint32_t tid;

	/* negative control: this is the bug, and the test sees it */
	assert_int_equal(FUTEX_OWNER_DIED, run_race(PLAIN, &pending, &fixups, &tid));
	assert_true(pending);
	assert_int_equal(0, fixups);
}

static void test_race_try_unlock64_leaves_memory_alone(void **state)
{
	bool pending;
	uint64_t fixups;
	uint32_t tid, word;

	if (!TH_LP64)
		skip();		/* no 64-bit lists in a 32-bit process */
	word = run_race(TRY64, &pending, &fixups, &tid);

	assert_true(pending);		/* stopped inside the window */
	expect_fixed_up(fixups, tid, word);
}

/*
 * The common verdict: the thread was stopped inside the try-unlock's
 * window (pending still set), the module finished the unlock (fixups
 * +1), and the word -- memory the lock's owner may have reused -- holds
 * what the next owner wrote, untouched.
 */
static void race_fixed_up(enum how how)
{
	bool pending;
	uint64_t fixups;
	uint32_t tid;
	uint32_t word = run_race(how, &pending, &fixups, &tid);

	assert_true(pending);
	expect_fixed_up(fixups, tid, word);
}

static void test_race_try_unlock32_leaves_memory_alone(void **state)
{
	race_fixed_up(TRY32);
}

/*
 * A lock on the legacy list (set_robust_list()) unlocked with our
 * try-unlock by a thread that also has a slot: the kernel walks that list
 * right after us, so the fix-up clears its pending field too, else the
 * kernel would mark the reused word.
 */
static void test_race_try_unlock64_legacy_list_leaves_memory_alone(void **state)
{
	bool pending;
	uint64_t fixups;
	uint32_t tid, word;

	if (!TH_LP64)
		skip();		/* a 32-bit process's legacy list is the compat one */
	word = run_race(TRY64_LEGACY, &pending, &fixups, &tid);

	assert_true(pending);
	expect_fixed_up(fixups, tid, word);
}

/* The fix-up finds a based slot's pending field by its host address. */
static void test_race_try_unlock32_based_leaves_memory_alone(void **state)
{
	race_fixed_up(TRY32_BASED);
}

/*
 * The header's inline try-unlock: stopped at the jnz (extra 0) or at the
 * store (extra 1), both inside the window, and killed; on arm64 the
 * exclusive form at the cbnz (extra 0) or the str (1), the LSE form at the
 * cmp (0), the b.ne (1) or the str (2).  An *_UNKNOWN copy is not known to
 * the module: its thread's released word must be marked, as with PLAIN.
 */
static void race_inline_case(enum how how, int extra)
{
	bool known = how != TRY64_UNKNOWN && how != TRY32_UNKNOWN;
	bool pending;
	uint64_t fixups;
	uint32_t tid, word;

#ifndef ROBUST_LIST2_HAVE_TRY_UNLOCK_INLINE
	skip();			/* the header offers it on x86 and arm64 */
#endif
#if !defined(__x86_64__) && !defined(__i386__)
	if (how == TRY32_FAR)
		skip();		/* an x86 encoding */
#endif
#ifdef __aarch64__
	if ((how == TRY64_LSE || how == TRY32_LSE) && !th_have_lse()) {
		print_message("# this CPU has no LSE atomics (the exclusive form is tested)\n");
		skip();
	}
#else
	if (how >= TRY64_LSE)
		skip();		/* arm64 encodings */
#endif
	if (!race_is32(&(struct race){ .how = how }) && !TH_LP64)
		skip();		/* no 64-bit lists in a 32-bit process */
	word = run_race_at(how, extra, &pending, &fixups, &tid);

	assert_true(pending);		/* stopped inside the window */
	if (known) {
		expect_fixed_up(fixups, tid, word);	/* the module recognised it */
	} else {
		assert_int_equal(0, fixups);	/* not recognised: the race is real */
		assert_int_equal(FUTEX_OWNER_DIED, word);
	}
}

static void test_race_try_unlock64_inline_leaves_memory_alone(void **state)
{
	race_inline_case(TRY64_INLINE, 0);
}

static void test_race_try_unlock64_inline_at_store(void **state)
{
	race_inline_case(TRY64_INLINE, 1);
}

static void test_race_try_unlock32_inline_leaves_memory_alone(void **state)
{
	race_inline_case(TRY32_INLINE, 0);
}

static void test_race_try_unlock64_copy_without_window(void **state)
{
	race_inline_case(TRY64_COPY, 0);
}

static void test_race_try_unlock32_copy_without_window(void **state)
{
	race_inline_case(TRY32_COPY, 0);
}

static void test_race_try_unlock32_copy_at_store(void **state)
{
	race_inline_case(TRY32_COPY, 1);
}

static void test_race_try_unlock32_far_jump(void **state)
{
	race_inline_case(TRY32_FAR, 0);
}

static void test_race_try_unlock32_far_jump_at_store(void **state)
{
	race_inline_case(TRY32_FAR, 1);
}

static void test_race_try_unlock64_lse_at_cmp(void **state)
{
	race_inline_case(TRY64_LSE, 0);
}

static void test_race_try_unlock64_lse_at_branch(void **state)
{
	race_inline_case(TRY64_LSE, 1);
}

static void test_race_try_unlock32_lse_at_store(void **state)
{
	race_inline_case(TRY32_LSE, 2);
}

static void test_race_try_unlock32_inline_at_store(void **state)
{
	race_inline_case(TRY32_INLINE, 1);
}

static void test_race_unknown_copy64_is_not_fixed(void **state)
{
	race_inline_case(TRY64_UNKNOWN, 0);
}

static void test_race_unknown_copy32_is_not_fixed(void **state)
{
	race_inline_case(TRY32_UNKNOWN, 0);
}

/*
 * Slot 0 set through the library's descriptor (its window registered),
 * slot 1 through a bare one after it: a thread killed inside the library's
 * try-unlock on slot 0 still has its unlock finished.  On arm64 and armhf
 * the library's copy is known by its registered window only.
 */
static void test_race_window_kept_after_bare_descriptor(void **state)
{
	race_fixed_up(TRY32_TWO_FDS);
}

/*
 * Slot 1 set through a descriptor with a window of its own (a second copy
 * of the library), then slot 0 through the library's: the record keeps
 * both windows, and a thread killed inside the library's try-unlock on
 * slot 0 has its unlock finished.
 */
static void test_race_window_kept_beside_another_window(void **state)
{
	race_fixed_up(TRY32_TWO_WINDOWS);
}

static void test_race_unlock_call_has_no_window(void **state)
{
	bool pending;
	uint64_t fixups;
	uint32_t tid;
	uint32_t word = run_race(IOCTL, &pending, &fixups, &tid);

	/* the step that released the word also cleared the pending field */
	assert_false(pending);
	assert_int_equal(0, fixups);
	assert_int_equal(tid, word);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_race_plain_unlock_corrupts_reused_memory),
		cmocka_unit_test(test_race_try_unlock64_leaves_memory_alone),
		cmocka_unit_test(test_race_try_unlock32_leaves_memory_alone),
		cmocka_unit_test(test_race_try_unlock64_legacy_list_leaves_memory_alone),
		cmocka_unit_test(test_race_try_unlock32_based_leaves_memory_alone),
		cmocka_unit_test(test_race_try_unlock64_inline_leaves_memory_alone),
		cmocka_unit_test(test_race_try_unlock64_inline_at_store),
		cmocka_unit_test(test_race_try_unlock32_inline_leaves_memory_alone),
		cmocka_unit_test(test_race_try_unlock64_copy_without_window),
		cmocka_unit_test(test_race_try_unlock32_copy_without_window),
		cmocka_unit_test(test_race_try_unlock32_copy_at_store),
		cmocka_unit_test(test_race_try_unlock32_far_jump),
		cmocka_unit_test(test_race_try_unlock32_far_jump_at_store),
		cmocka_unit_test(test_race_try_unlock32_inline_at_store),
		cmocka_unit_test(test_race_try_unlock64_lse_at_cmp),
		cmocka_unit_test(test_race_try_unlock64_lse_at_branch),
		cmocka_unit_test(test_race_try_unlock32_lse_at_store),
		cmocka_unit_test(test_race_unknown_copy64_is_not_fixed),
		cmocka_unit_test(test_race_unknown_copy32_is_not_fixed),
		cmocka_unit_test(test_race_window_kept_after_bare_descriptor),
		cmocka_unit_test(test_race_window_kept_beside_another_window),
		cmocka_unit_test(test_race_unlock_call_has_no_window),
	};

	return cmocka_run_group_tests_name("unlock_race", tests, NULL, NULL);
}
