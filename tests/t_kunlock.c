// SPDX-License-Identifier: GPL-2.0
/*
 * Beside the kernel's own robust unlock (Linux 7.2, x86): the vDSO
 * __vdso_futex_robust_list{64,32}_try_unlock() and FUTEX_ROBUST_UNLOCK.
 * On return to user space with a signal pending, 7.2 finishes a vDSO
 * try-unlock interrupted between its compare-exchange and its store
 * (ZF set, ip in the window): it clears the pending field whose address
 * is in %rdx, whatever list that field belongs to.
 *
 * A thread with all 8 slots holding a lock and the legacy list holding
 * one is killed, with the deterministic single-step method of t_unlock_race.c,
 * inside either window: the kernel's (unlocking a legacy-list lock
 * through the vDSO) or ours (a slot's lock through
 * robust_list2_try_unlock*()).  The released lock's memory, reused with
 * the thread's TID, must be left alone, every other lock recovered, and
 * a canary around them intact.  And the answer to "may a caller use the
 * kernel's vDSO try-unlock, or FUTEX_ROBUST_UNLOCK, for our slots?": yes
 * on 7.2, tested here (robust_list2_try_unlock64(3) says so).  Skipped
 * with the reason on kernels without them.
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
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "helpers.h"
#include "vdso.h"

#define NSLOTS		ROBUST_LIST2_NR_SLOTS
#define CANARY		0x5a5a5a5aU
#define OUR_SLOT	2	/* a native list (even) */
#define SLOT32		5	/* a 32-bit list in a 64-bit process */

enum way {
	VDSO_LEGACY,	/* the kernel's window, on the legacy list */
	OURS_SLOT,	/* our window, on slot OUR_SLOT */
	VDSO_SLOT,	/* the kernel's window, on slot OUR_SLOT */
	VDSO_SLOT32,	/* the kernel's 32-bit window, on slot SLOT32 */
	PLAIN_LEGACY,	/* negative control: two plain stores, legacy list */
};

struct kscene {
	enum way way;
	uint32_t tid;
	uint32_t canary0[16];
	struct robust_list_head legacy;
	struct th_lock64 legacy_held, legacy_pend;
	struct robust_list_head h[NSLOTS];		/* native lists */
	struct robust_list_head32 h32[NSLOTS];		/* 32-bit lists */
	struct th_lock64 l[NSLOTS];
	struct th_lock32 l32[NSLOTS];
	uint32_t canary1[16];
};

/* 32-bit lists in the odd slots of a 64-bit process */
static bool slot32(unsigned int i)
{
	return TH_LP64 && (i & 1);
}

static uint32_t *slot_word(struct kscene *s, unsigned int i)
{
	return slot32(i) ? &s->l32[i].futex : &s->l[i].futex;
}

static uint32_t *target_word(struct kscene *s)
{
	switch (s->way) {
	case VDSO_LEGACY:
	case PLAIN_LEGACY:
		return &s->legacy_pend.futex;
	case VDSO_SLOT32:
		return slot_word(s, SLOT32);
	default:
		return slot_word(s, OUR_SLOT);
	}
}

static bool target_pending(struct kscene *s)
{
	switch (s->way) {
	case VDSO_LEGACY:
	case PLAIN_LEGACY:
		return s->legacy.list_op_pending;
	case VDSO_SLOT32:
		return s->h32[SLOT32].list_op_pending;
	default:
		return s->h[OUR_SLOT].list_op_pending;
	}
}

static unsigned int target_slot(struct kscene *s)
{
	if (s->way == VDSO_LEGACY || s->way == PLAIN_LEGACY)
		return NSLOTS;
	return s->way == VDSO_SLOT32 ? SLOT32 : OUR_SLOT;
}

/* Take every lock and register every list; the target lock is pending. */
static int kscene_setup(struct kscene *s)
{
	uint32_t tid = th_gettid();
	unsigned int t = target_slot(s);

	s->tid = tid;
	th_list64_init(&s->legacy, TH_OFF64);
	s->legacy_held.futex = tid;
	th_list64_add(&s->legacy, &s->legacy_held, false);
	if (syscall(SYS_set_robust_list, &s->legacy, sizeof(s->legacy)))
		return 10;
	for (unsigned int i = 0; i < NSLOTS; i++) {
		long ret;

		if (slot32(i)) {
			th_list32_init(&s->h32[i], TH_OFF32);
			s->l32[i].futex = tid;
			if (i != t)
				th_list32_add(&s->h32[i], &s->l32[i], false);
			ret = set_robust_list2((void *)&s->h32[i], i, FUTEX_ROBUST_LIST_CMD_SET_32, 0);
		} else {
			th_list64_init(&s->h[i], TH_OFF64);
			s->l[i].futex = tid;
			if (i != t)
				th_list64_add(&s->h[i], &s->l[i], false);
			ret = set_robust_list2(&s->h[i], i, TH_NATIVE, 0);
		}
		if (ret)
			return 20 + i;
	}
	/* unlock steps 1 and 2 for the target: mark pending (it is unlinked) */
	switch (s->way) {
	case VDSO_LEGACY:
	case PLAIN_LEGACY:
		s->legacy_pend.futex = tid;
		s->legacy.list_op_pending = &s->legacy_pend.list;
		break;
	case VDSO_SLOT32:
		s->h32[SLOT32].list_op_pending = th_p32(&s->l32[SLOT32].list);
		break;
	default:
		s->h[OUR_SLOT].list_op_pending = &s->l[OUR_SLOT].list;
		break;
	}
	return 0;
}

static int kracer(void *p)
{
	struct kscene *s = p;
	th_vdso_try_unlock_fn native = th_vdso_try_unlock(TH_LP64 ? 64 : 32);
	th_vdso_try_unlock_fn v32 = th_vdso_try_unlock(32);
	int err = kscene_setup(s);

	if (err || ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		return err ? err : 1;
	raise(SIGSTOP);		/* the parent single-steps us from here */

	/* step 3 (release) and step 4 (clear pending) */
	switch (s->way) {
	case VDSO_LEGACY:
		native(&s->legacy_pend.futex, s->tid, &s->legacy.list_op_pending);
		break;
	case OURS_SLOT:
#if __SIZEOF_POINTER__ == 8
		robust_list2_try_unlock64(&s->l[OUR_SLOT].futex, s->tid,
					  (uint64_t *)&s->h[OUR_SLOT].list_op_pending);
#else
		robust_list2_try_unlock32(&s->l[OUR_SLOT].futex, s->tid,
					  (uint32_t *)&s->h[OUR_SLOT].list_op_pending);
#endif
		break;
	case VDSO_SLOT:
		native(&s->l[OUR_SLOT].futex, s->tid, &s->h[OUR_SLOT].list_op_pending);
		break;
	case VDSO_SLOT32:
		v32(&s->l32[SLOT32].futex, s->tid, &s->h32[SLOT32].list_op_pending);
		break;
	case PLAIN_LEGACY:
		__atomic_store_n(&s->legacy_pend.futex, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&s->legacy.list_op_pending, NULL, __ATOMIC_RELEASE);
		break;
	}
	return 0;
}

static void need_kernel_unlock(void)
{
	const char *why = "no __vdso_futex_robust_list*_try_unlock in the vDSO (Linux 7.2+, x86)";

	TH_NEED_ROOT();		/* the module-wide counters are root's */
	if (!th_vdso_try_unlock(TH_LP64 ? 64 : 32) || !th_have_robust_unlock(&why)) {
		print_message("# skipped: %s\n", why);
		skip();
	}
}

/*
 * Stop the racer in its window (the word has just become 0), reuse the
 * memory with its TID, kill it, and check that no other lock was lost
 * and nothing around them corrupted.  Returns the released lock's word
 * after the death (its TID if left alone), whether the pending field was
 * still set when the racer stopped, and the module's fix-ups.
 */
static uint32_t run_kill_in_window(enum way way, bool *pending_at_stop, uint64_t *fixups)
{
	struct kscene *s = th_shared_alloc(8192, true);
	struct robust_list2_stats before, after;
	unsigned int recovered = 0;
	uint32_t word;
	int status;
	pid_t pid;
	long steps;

	assert_non_null(s);
	assert_true(sizeof(*s) <= 8192);
	s->way = way;
	for (int i = 0; i < 16; i++)
		s->canary0[i] = s->canary1[i] = CANARY;
	assert_int_equal(0, robust_list2_stats(&before));

	pid = th_spawn_child(kracer, s);
	assert_true(pid > 0);
	assert_int_equal(pid, waitpid(pid, &status, 0));
	assert_true(WIFSTOPPED(status));
	for (steps = 0; steps < 1000000 && (!s->tid || *target_word(s) != 0); steps++) {
		assert_int_equal(0, ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL));
		assert_int_equal(pid, waitpid(pid, &status, 0));
		assert_true(WIFSTOPPED(status));
	}
	assert_int_equal(0, *target_word(s));
	*pending_at_stop = target_pending(s);

	/* another thread frees the lock; the memory now holds this value */
	*target_word(s) = s->tid;
	kill(pid, SIGKILL);
	assert_int_equal(pid, waitpid(pid, &status, 0));
	assert_true(WIFSIGNALED(status));
	assert_int_equal(0, robust_list2_stats(&after));

	word = *target_word(s);
	assert_int_equal(FUTEX_OWNER_DIED, s->legacy_held.futex);	/* the kernel's walk */
	for (unsigned int i = 0; i < NSLOTS; i++) {
		if (i == target_slot(s))
			continue;
		assert_int_equal(FUTEX_OWNER_DIED, *slot_word(s, i));	/* ours */
		recovered++;
	}
	assert_int_equal(recovered, after.recovered - before.recovered);
	assert_int_equal(NSLOTS, after.walks - before.walks);
	for (int i = 0; i < 16; i++) {
		assert_int_equal(CANARY, s->canary0[i]);
		assert_int_equal(CANARY, s->canary1[i]);
	}
	*fixups = after.fixups - before.fixups;
	if (word == s->tid)
		assert_false(target_pending(s));
	word = word == s->tid ? 0 : word;
	th_free(s, 8192);
	return word;	/* 0: left alone */
}

static void test_plain_unlock_corrupts_reused_memory(void **state)
{
	bool pending;
	uint64_t fixups;

	need_kernel_unlock();
	/* negative control: in this scene the test sees the bug */
	assert_int_equal(FUTEX_OWNER_DIED, run_kill_in_window(PLAIN_LEGACY, &pending, &fixups));
	assert_true(pending);
	assert_int_equal(0, fixups);
}

static void test_killed_in_kernel_window_beside_slots(void **state)
{
	bool pending;
	uint64_t fixups;

	need_kernel_unlock();
	assert_int_equal(0, run_kill_in_window(VDSO_LEGACY, &pending, &fixups));	/* left alone */
	/* the kernel finished the unlock when the single-step trap stopped it */
	print_message("# vDSO window: pending field %s at the stop\n",
		      pending ? "still set" : "already cleared by the kernel");
	assert_int_equal(0, fixups);
}

static void test_killed_in_our_window_beside_kernel_list(void **state)
{
	bool pending;
	uint64_t fixups;

	need_kernel_unlock();
	assert_int_equal(0, run_kill_in_window(OURS_SLOT, &pending, &fixups));	/* left alone */
	assert_true(pending);		/* the kernel does not know our window */
	assert_int_equal(1, fixups);	/* the module finished it */
}

/* The kernel's vDSO try-unlock on a slot of ours: its fix-up clears our field. */
static void test_vdso_try_unlock_for_our_slot(void **state)
{
	bool pending;
	uint64_t fixups;

	need_kernel_unlock();
	assert_int_equal(0, run_kill_in_window(VDSO_SLOT, &pending, &fixups));	/* left alone */
	print_message("# vDSO on slot %d: pending field %s at the stop\n", OUR_SLOT,
		      pending ? "still set" : "already cleared by the kernel");
	assert_int_equal(0, fixups);
}

static void test_vdso_try_unlock32_for_our_32bit_slot(void **state)
{
	bool pending;
	uint64_t fixups;

	if (!TH_LP64)
		skip();		/* the same as the native case in a 32-bit process */
	need_kernel_unlock();
	if (!th_vdso_try_unlock(32)) {
		print_message("# skipped: no 32-bit vDSO try-unlock (CONFIG_COMPAT off)\n");
		skip();
	}
	assert_int_equal(0, run_kill_in_window(VDSO_SLOT32, &pending, &fixups));	/* left alone */
	assert_int_equal(0, fixups);
}

/* FUTEX_WAKE | FUTEX_ROBUST_UNLOCK on a slot of ours: release, clear, wake. */
static void test_futex_robust_unlock_for_our_slot(void **state)
{
	struct kscene *s = th_shared_alloc(8192, true);
	struct th_waiter w;
	long woken;

	need_kernel_unlock();
	assert_non_null(s);
	s->tid = th_gettid();
	th_list64_init(&s->h[OUR_SLOT], TH_OFF64);
	assert_int_equal(0, set_robust_list2(&s->h[OUR_SLOT], OUR_SLOT, TH_NATIVE, 0));
	s->l[OUR_SLOT].futex = s->tid | FUTEX_WAITERS;
	s->h[OUR_SLOT].list_op_pending = &s->l[OUR_SLOT].list;
	w = (struct th_waiter){ .uaddr = &s->l[OUR_SLOT].futex, .val = s->l[OUR_SLOT].futex,
				.timeout_ms = TH_TIMEOUT_MS };
	assert_int_equal(0, th_waiter_start(&w));
	woken = syscall(SYS_futex, &s->l[OUR_SLOT].futex,
			FUTEX_WAKE | FUTEX_ROBUST_UNLOCK | (TH_LP64 ? 0 : FUTEX_ROBUST_LIST32), 1,
			NULL, &s->h[OUR_SLOT].list_op_pending, 0);
	assert_int_equal(1, woken);
	assert_int_equal(0, th_waiter_join(&w));
	assert_int_equal(0, s->l[OUR_SLOT].futex);
	assert_null(s->h[OUR_SLOT].list_op_pending);
	assert_int_equal(0, set_robust_list2(NULL, OUR_SLOT, TH_NATIVE, 0));
	th_free(s, 8192);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_unlock_corrupts_reused_memory),
		cmocka_unit_test(test_killed_in_kernel_window_beside_slots),
		cmocka_unit_test(test_killed_in_our_window_beside_kernel_list),
		cmocka_unit_test(test_vdso_try_unlock_for_our_slot),
		cmocka_unit_test(test_vdso_try_unlock32_for_our_32bit_slot),
		cmocka_unit_test(test_futex_robust_unlock_for_our_slot),
	};

	TH_MODULE_ONLY_SUITE("7.2's robust unlock beside the module's slots and "
	                     "try-unlock windows");
	if (!th_have_device())
		return 77;
	return cmocka_run_group_tests_name("kunlock", tests, NULL, NULL);
}
