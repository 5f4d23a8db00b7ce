// SPDX-License-Identifier: GPL-2.0
/*
 * The exit and exec walk: when the owner of robust locks dies, by any
 * means, every lock it held in any slot is marked FUTEX_OWNER_DIED and
 * exactly one waiter per contended lock is woken.
 *
 * Each case forks a child that builds lists with its own TID in shared
 * memory below 4 GiB (so 32-bit lists work too), registers them, tells the
 * parent it is ready and waits for "go".  The parent puts two waiter
 * threads to sleep on each contended lock (checked through
 * /proc/<pid>/task/<tid>/syscall, no sleeps), lets the child die, and
 * after reaping it counts the waiters still asleep with FUTEX_WAKE: one of
 * two means exactly one was woken by the walk.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "helpers.h"

#define MAX_LOCKS	4

enum death {
	D_EXIT,			/* exit() */
	D_RETURN,		/* return from the child's main function */
	D_PTHREAD_EXIT,		/* owner is a thread that calls pthread_exit() */
	D_SIGKILL,
	D_SIGSEGV,
	D_EXIT_GROUP_SIBLING,	/* a sibling thread calls exit_group() */
	D_EXEC_SIBLING,		/* a sibling thread calls execve() */
	D_EXEC_SELF,		/* the owner itself execs: walk, then empty slots */
	D_EXEC_NONLEADER,	/* the owner is a non-leader thread that execs */
};

struct cfg {
	enum death death;
	unsigned int nslots;	/* slots 0 .. nslots-1 used */
	unsigned int nlocks;	/* locks per list */
	unsigned int mask32;	/* slots holding 32-bit lists */
	bool waiters;		/* two waiters on lock 0 of every list */
	bool legacy;		/* also a lock on the legacy set_robust_list list */
};

struct scene {
	uint32_t ready;
	uint32_t go;
	int32_t owner_tid;
	int32_t err;
	struct cfg cfg;
	struct robust_list_head h64[ROBUST_LIST2_NR_SLOTS];
	struct robust_list_head32 h32[ROBUST_LIST2_NR_SLOTS];
	struct th_lock64 l64[ROBUST_LIST2_NR_SLOTS][MAX_LOCKS];
	struct th_lock32 l32[ROBUST_LIST2_NR_SLOTS][MAX_LOCKS];
	struct robust_list_head legacy;
	struct th_lock64 legacy_lock;
	struct th_waiter w[ROBUST_LIST2_NR_SLOTS + 1][2];
};

#define SCENE_SIZE	(64 * 1024)

static char *self_exe = "/proc/self/exe";

static bool is32(const struct scene *s, unsigned int slot)
{
	return s->cfg.mask32 & (1u << slot);
}

static uint32_t *lock_word(struct scene *s, unsigned int slot, unsigned int j)
{
	return is32(s, slot) ? &s->l32[slot][j].futex : &s->l64[slot][j].futex;
}

static uint32_t initial_word(const struct scene *s, uint32_t tid, unsigned int j)
{
	return tid | (j == 0 && s->cfg.waiters ? FUTEX_WAITERS : 0);
}

/* In the owner thread: take every lock and register every list. */
static int owner_setup(struct scene *s)
{
	uint32_t tid = th_gettid();

	s->owner_tid = tid;
	for (unsigned int i = 0; i < s->cfg.nslots; i++) {
		long ret;

		if (is32(s, i)) {
			th_list32_init(&s->h32[i], TH_OFF32);
			for (unsigned int j = 0; j < s->cfg.nlocks; j++) {
				s->l32[i][j].futex = initial_word(s, tid, j);
				th_list32_add(&s->h32[i], &s->l32[i][j], false);
			}
			ret = set_robust_list2((void *)&s->h32[i], i, FUTEX_ROBUST_LIST_CMD_SET_32, 0);
		} else {
			th_list64_init(&s->h64[i], TH_OFF64);
			for (unsigned int j = 0; j < s->cfg.nlocks; j++) {
				s->l64[i][j].futex = initial_word(s, tid, j);
				th_list64_add(&s->h64[i], &s->l64[i][j], false);
			}
			ret = set_robust_list2(&s->h64[i], i, TH_NATIVE, 0);
		}
		if (ret)
			return 20 + i;
	}
	if (s->cfg.legacy) {
		th_list64_init(&s->legacy, TH_OFF64);
		s->legacy_lock.futex = tid | FUTEX_WAITERS;
		th_list64_add(&s->legacy, &s->legacy_lock, false);
		if (syscall(SYS_set_robust_list, &s->legacy, sizeof(s->legacy)))
			return 30;
	}
	return 0;
}

static void signal_ready(struct scene *s)
{
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	th_futex_wake(&s->ready, INT_MAX, false);
}

/* Bounded: a child never outlives a broken test by more than this. */
static void wait_go(struct scene *s)
{
	for (int i = 0; i < 100 && !__atomic_load_n(&s->go, __ATOMIC_ACQUIRE); i++)
		th_futex_wait(&s->go, 0, 100, false);
}

static void park(void)
{
	uint32_t never = 0;

	th_futex_wait(&never, 0, TH_TIMEOUT_MS, true);
}

static void *owner_thread(void *p)
{
	struct scene *s = p;

	s->err = owner_setup(s);
	signal_ready(s);
	if (s->cfg.death == D_PTHREAD_EXIT) {
		wait_go(s);
		pthread_exit(NULL);
	}
	if (s->cfg.death == D_EXEC_NONLEADER) {
		char *argv[] = { "t_exit_walk", "--check-empty", NULL };

		/*
		 * de_thread() gives us the leader's TID before our exec walk
		 * runs; our locks carry the TID we had when we took them.
		 */
		wait_go(s);
		execv(self_exe, argv);
		s->err = 42;
		return NULL;
	}
	park();			/* killed by the sibling's exit_group() */
	s->err = 40;
	return NULL;
}

static void *exec_thread(void *p)
{
	struct scene *s = p;
	char *argv[] = { "t_exit_walk", "--exit0", NULL };

	wait_go(s);
	execv(self_exe, argv);
	s->err = 41;
	return NULL;
}

static int child_main(void *p)
{
	struct scene *s = p;
	struct rlimit no_core = { 0, 0 };
	pthread_t t;

	setrlimit(RLIMIT_CORE, &no_core);

	switch (s->cfg.death) {
	case D_PTHREAD_EXIT:
		if (pthread_create(&t, NULL, owner_thread, s))
			return 2;
		pthread_join(t, NULL);
		return 0;
	case D_EXIT_GROUP_SIBLING:
		if (pthread_create(&t, NULL, owner_thread, s))
			return 2;
		wait_go(s);
		syscall(SYS_exit_group, 0);
		return 3;
	case D_EXEC_NONLEADER:
		if (pthread_create(&t, NULL, owner_thread, s))
			return 2;
		park();		/* killed by de_thread() */
		return 3;
	default:
		break;
	}

	s->err = owner_setup(s);
	if (s->cfg.death == D_EXEC_SIBLING && pthread_create(&t, NULL, exec_thread, s))
		s->err = 2;
	signal_ready(s);
	if (s->err)
		return s->err;
	wait_go(s);

	switch (s->cfg.death) {
	case D_EXIT:
		exit(0);
	case D_SIGSEGV: {
		volatile int *volatile bad = (int *)8;

		*bad = 1;
		return 4;
	}
	case D_EXEC_SIBLING:
		park();		/* killed by de_thread() */
		return 5;
	case D_EXEC_SELF: {
		char *argv[] = { "t_exit_walk", "--check-empty", NULL };

		execv(self_exe, argv);
		return 6;
	}
	case D_SIGKILL:
		park();
		return 7;
	default:		/* D_RETURN */
		return 0;
	}
}

static struct scene *new_scene(struct cfg cfg)
{
	struct scene *s = th_shared_alloc(SCENE_SIZE, true);

	assert_non_null(s);
	assert_true(sizeof(*s) <= SCENE_SIZE);
	s->cfg = cfg;
	return s;
}

static void start_waiters(struct scene *s, unsigned int slot, uint32_t *word)
{
	for (int k = 0; k < 2; k++) {
		struct th_waiter *w = &s->w[slot][k];

		w->uaddr = word;
		w->val = *word;
		w->private = false;
		w->timeout_ms = TH_TIMEOUT_MS;
		assert_int_equal(0, th_waiter_start(w));
	}
}

/* Exactly one of the two waiters was woken by the walk. */
static void check_one_woken(struct scene *s, unsigned int slot, uint32_t *word)
{
	assert_int_equal(1, th_futex_wake(word, INT_MAX, false));
	assert_int_equal(0, th_waiter_join(&s->w[slot][0]));
	assert_int_equal(0, th_waiter_join(&s->w[slot][1]));
}

/* Run the scene; returns the child's wait status as th_wait_child() does. */
static int run_scene(struct scene *s)
{
	pid_t pid = th_spawn_child(child_main, s);

	assert_true(pid > 0);
	for (int i = 0; i < 100 && !__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE); i++)
		th_futex_wait(&s->ready, 0, 100, false);
	assert_int_equal(1, s->ready);
	assert_int_equal(0, s->err);

	if (s->cfg.waiters) {
		for (unsigned int i = 0; i < s->cfg.nslots; i++)
			start_waiters(s, i, lock_word(s, i, 0));
		if (s->cfg.legacy)
			start_waiters(s, ROBUST_LIST2_NR_SLOTS, &s->legacy_lock.futex);
	}

	if (s->cfg.death == D_SIGKILL) {
		kill(pid, SIGKILL);
	} else {
		__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
		th_futex_wake(&s->go, INT_MAX, false);
	}
	return th_wait_child(pid);
}

static void check_scene(struct scene *s)
{
	for (unsigned int i = 0; i < s->cfg.nslots; i++) {
		for (unsigned int j = 0; j < s->cfg.nlocks; j++) {
			uint32_t expect = FUTEX_OWNER_DIED |
					  (j == 0 && s->cfg.waiters ? FUTEX_WAITERS : 0);

			if (*lock_word(s, i, j) != expect)
				print_error("slot %u lock %u: %#x, expected %#x\n",
					    i, j, *lock_word(s, i, j), expect);
			assert_int_equal(expect, *lock_word(s, i, j));
		}
		if (s->cfg.waiters)
			check_one_woken(s, i, lock_word(s, i, 0));
	}
	if (s->cfg.legacy) {
		assert_int_equal(FUTEX_OWNER_DIED | FUTEX_WAITERS, s->legacy_lock.futex);
		if (s->cfg.waiters)
			check_one_woken(s, ROBUST_LIST2_NR_SLOTS, &s->legacy_lock.futex);
	}
}

static void run_death(struct cfg cfg, int expect_status)
{
	struct scene *s = new_scene(cfg);

	assert_int_equal(expect_status, run_scene(s));
	check_scene(s);
	th_free(s, SCENE_SIZE);
}

#define DEATH(d)	((struct cfg){ .death = (d), .nslots = 2, .nlocks = 3, .mask32 = 0x2, .waiters = true })

static void test_death_by_exit(void **state)
{
	run_death(DEATH(D_EXIT), 0);
}

static void test_death_by_return(void **state)
{
	run_death(DEATH(D_RETURN), 0);
}

static void test_death_by_pthread_exit(void **state)
{
	run_death(DEATH(D_PTHREAD_EXIT), 0);
}

static void test_death_by_sigkill(void **state)
{
	run_death(DEATH(D_SIGKILL), 128 + SIGKILL);
}

static void test_death_by_sigsegv(void **state)
{
	run_death(DEATH(D_SIGSEGV), 128 + SIGSEGV);
}

static void test_death_by_sibling_exit_group(void **state)
{
	run_death(DEATH(D_EXIT_GROUP_SIBLING), 0);
}

static void test_death_by_sibling_exec(void **state)
{
	run_death(DEATH(D_EXEC_SIBLING), 0);
}

static void test_exec_walks_and_empties_slots(void **state)
{
	/* the exec'd image exits 0 only if every slot reads empty */
	run_death(DEATH(D_EXEC_SELF), 0);
}

static void test_exec_by_nonleader_owner_recovers_its_locks(void **state)
{
	/*
	 * The module compares the TID the thread registered with; the kernel
	 * compares task_pid_vnr() at the walk, which after the exec of a
	 * non-leader is the leader's TID, as for the legacy list.
	 */
	TH_NATIVE_DIFFERS("the walk's owner TID is the TID after the exec (the leader's)");
	run_death(DEATH(D_EXEC_NONLEADER), 0);
}

static void test_all_8_slots_64(void **state)
{
	run_death((struct cfg){ .death = D_EXIT, .nslots = 8, .nlocks = 2, .waiters = true }, 0);
}

static void test_all_8_slots_32(void **state)
{
	run_death((struct cfg){ .death = D_EXIT, .nslots = 8, .nlocks = 2, .mask32 = 0xff,
				.waiters = true }, 0);
}

static void test_all_8_slots_mixed_sigkill(void **state)
{
	run_death((struct cfg){ .death = D_SIGKILL, .nslots = 8, .nlocks = MAX_LOCKS,
				.mask32 = 0x55, .waiters = true }, 128 + SIGKILL);
}

static void test_legacy_list_recovered_beside(void **state)
{
	run_death((struct cfg){ .death = D_EXIT, .nslots = 2, .nlocks = 2, .mask32 = 0x1,
				.waiters = true, .legacy = true }, 0);
}

/*
 * Hand-built single-list cases: PI entries, pending ops, foreign owners.
 * The child builds what the case asks, then exits.
 */
enum special {
	SP_PI_MARKED_NOT_WOKEN,
	SP_PENDING_OWNED,
	SP_PENDING_UNOWNED_WAKE_ONLY,
	SP_PENDING_OTHER_OWNER_WAKE_ONLY,
	SP_PENDING_OTHER_OWNER_WAITERS_NO_WAKE,
	SP_PENDING_OWNER_DIED_WAKE_ONLY,
	SP_PENDING_PI_UNOWNED_LEFT_ALONE,
	SP_PENDING_ALSO_ON_LIST,
	SP_FOREIGN_OWNER_UNTOUCHED,
	SP_NO_WAITERS_BIT_NO_WAKE,
};

struct special_scene {
	uint32_t ready, go;
	int32_t tid;
	int32_t err;
	enum special kind;
	bool use32;
	struct robust_list_head h;
	struct robust_list_head32 h32;
	struct th_lock64 a, b;
	struct th_lock32 a32, b32;
	struct th_waiter w[2];
};

static uint32_t *sp_word(struct special_scene *s, int which)
{
	if (s->use32)
		return which ? &s->b32.futex : &s->a32.futex;
	return which ? &s->b.futex : &s->a.futex;
}

static void sp_add(struct special_scene *s, int which, bool pi)
{
	if (s->use32)
		th_list32_add(&s->h32, which ? &s->b32 : &s->a32, pi);
	else
		th_list64_add(&s->h, which ? &s->b : &s->a, pi);
}

static void sp_pending(struct special_scene *s, int which, bool pi)
{
	if (s->use32)
		s->h32.list_op_pending = th_p32(which ? &s->b32.list : &s->a32.list) | pi;
	else
		s->h.list_op_pending = (void *)((uintptr_t)(which ? &s->b.list : &s->a.list) | pi);
}

static int special_child(void *p)
{
	struct special_scene *s = p;
	uint32_t tid = th_gettid();
	long ret;

	s->tid = tid;
	th_list64_init(&s->h, TH_OFF64);
	th_list32_init(&s->h32, TH_OFF32);
	switch (s->kind) {
	case SP_PI_MARKED_NOT_WOKEN:
		*sp_word(s, 0) = tid | FUTEX_WAITERS;
		sp_add(s, 0, true);
		break;
	case SP_PENDING_OWNED:		/* lock taken, not yet linked */
		*sp_word(s, 0) = tid | FUTEX_WAITERS;
		sp_pending(s, 0, false);
		break;
	case SP_PENDING_UNOWNED_WAKE_ONLY:	/* released, wake not yet done */
		*sp_word(s, 0) = FUTEX_WAITERS;
		sp_pending(s, 0, false);
		break;
	case SP_PENDING_OTHER_OWNER_WAKE_ONLY:	/* state B: taken by another */
		*sp_word(s, 0) = tid + 1;
		sp_pending(s, 0, false);
		break;
	case SP_PENDING_OTHER_OWNER_WAITERS_NO_WAKE:	/* state C */
		*sp_word(s, 0) = (tid + 1) | FUTEX_WAITERS;
		sp_pending(s, 0, false);
		break;
	case SP_PENDING_OWNER_DIED_WAKE_ONLY:	/* state D: owner part 0 */
		*sp_word(s, 0) = FUTEX_OWNER_DIED;
		sp_pending(s, 0, false);
		break;
	case SP_PENDING_PI_UNOWNED_LEFT_ALONE:
		*sp_word(s, 0) = FUTEX_WAITERS;
		sp_pending(s, 0, true);
		break;
	case SP_PENDING_ALSO_ON_LIST:
		*sp_word(s, 0) = tid | FUTEX_WAITERS;
		*sp_word(s, 1) = tid;
		sp_add(s, 1, false);
		sp_add(s, 0, false);
		sp_pending(s, 0, false);
		break;
	case SP_FOREIGN_OWNER_UNTOUCHED:
		*sp_word(s, 0) = (tid + 1) | FUTEX_WAITERS;
		*sp_word(s, 1) = tid;
		sp_add(s, 0, false);
		sp_add(s, 1, false);
		break;
	case SP_NO_WAITERS_BIT_NO_WAKE:
		*sp_word(s, 0) = tid;
		sp_add(s, 0, false);
		break;
	}
	if (s->use32)
		ret = set_robust_list2((void *)&s->h32, 5, FUTEX_ROBUST_LIST_CMD_SET_32, 0);
	else
		ret = set_robust_list2(&s->h, 5, TH_NATIVE, 0);
	s->err = ret ? 1 : 0;
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	th_futex_wake(&s->ready, INT_MAX, false);
	for (int i = 0; i < 100 && !__atomic_load_n(&s->go, __ATOMIC_ACQUIRE); i++)
		th_futex_wait(&s->go, 0, 100, false);
	return 0;
}

/* Runs the case; returns how many of the two waiters on word 0 were woken. */
static int run_special(struct special_scene *s)
{
	uint32_t *w0 = sp_word(s, 0);
	pid_t pid = th_spawn_child(special_child, s);
	int still_asleep;

	for (int i = 0; i < 100 && !__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE); i++)
		th_futex_wait(&s->ready, 0, 100, false);
	assert_int_equal(0, s->err);
	for (int k = 0; k < 2; k++) {
		s->w[k] = (struct th_waiter){ .uaddr = w0, .val = *w0, .timeout_ms = TH_TIMEOUT_MS };
		assert_int_equal(0, th_waiter_start(&s->w[k]));
	}
	__atomic_store_n(&s->go, 1, __ATOMIC_RELEASE);
	th_futex_wake(&s->go, INT_MAX, false);
	assert_int_equal(0, th_wait_child(pid));
	still_asleep = th_futex_wake(w0, INT_MAX, false);
	assert_int_equal(0, th_waiter_join(&s->w[0]));
	assert_int_equal(0, th_waiter_join(&s->w[1]));
	return 2 - still_asleep;
}

static void special(enum special kind, bool use32, uint32_t want_w0, uint32_t want_w1,
		    bool check_w1, int want_woken)
{
	struct special_scene *s = th_shared_alloc(sizeof(*s), true);

	assert_non_null(s);
	s->kind = kind;
	s->use32 = use32;
	assert_int_equal(want_woken, run_special(s));
	if (want_w0 == UINT32_MAX)	/* "the foreign owner's word" */
		want_w0 = (uint32_t)(s->tid + 1) | FUTEX_WAITERS;
	else if (want_w0 == UINT32_MAX - 1)	/* the same, no waiters bit */
		want_w0 = (uint32_t)(s->tid + 1);
	assert_int_equal(want_w0, *sp_word(s, 0));
	if (check_w1)
		assert_int_equal(want_w1, *sp_word(s, 1));
	th_free(s, sizeof(*s));
}

static void test_pi_entry_marked_not_woken(void **state)
{
	/* PI waiters are the kernel's PI exit code's business, not ours */
	special(SP_PI_MARKED_NOT_WOKEN, false, FUTEX_OWNER_DIED | FUTEX_WAITERS, 0, false, 0);
	special(SP_PI_MARKED_NOT_WOKEN, true, FUTEX_OWNER_DIED | FUTEX_WAITERS, 0, false, 0);
}

static void test_pending_owned_lock_recovered(void **state)
{
	special(SP_PENDING_OWNED, false, FUTEX_OWNER_DIED | FUTEX_WAITERS, 0, false, 1);
	special(SP_PENDING_OWNED, true, FUTEX_OWNER_DIED | FUTEX_WAITERS, 0, false, 1);
}

static void test_pending_unowned_gets_wake_only(void **state)
{
	special(SP_PENDING_UNOWNED_WAKE_ONLY, false, FUTEX_WAITERS, 0, false, 1);
	special(SP_PENDING_UNOWNED_WAKE_ONLY, true, FUTEX_WAITERS, 0, false, 1);
}

/*
 * handle_futex_death()'s states B and D (Debian's 6.1.192): the dying thread
 * was a woken waiter with the lock pending, and another thread took the
 * lock without setting FUTEX_WAITERS (B), or the owner died (D).  The next
 * waiter must get the wake the dead one would have passed on, and the word
 * is not ours to change.  In state C (FUTEX_WAITERS set) the owner's unlock
 * wakes them: no wake from us.
 */
static void test_pending_other_owner_no_waiters_gets_wake_only(void **state)
{
	special(SP_PENDING_OTHER_OWNER_WAKE_ONLY, false, UINT32_MAX - 1, 0, false, 1);
	special(SP_PENDING_OTHER_OWNER_WAKE_ONLY, true, UINT32_MAX - 1, 0, false, 1);
}

static void test_pending_other_owner_with_waiters_no_wake(void **state)
{
	special(SP_PENDING_OTHER_OWNER_WAITERS_NO_WAKE, false, UINT32_MAX, 0, false, 0);
	special(SP_PENDING_OTHER_OWNER_WAITERS_NO_WAKE, true, UINT32_MAX, 0, false, 0);
}

static void test_pending_owner_died_gets_wake_only(void **state)
{
	special(SP_PENDING_OWNER_DIED_WAKE_ONLY, false, FUTEX_OWNER_DIED, 0, false, 1);
	special(SP_PENDING_OWNER_DIED_WAKE_ONLY, true, FUTEX_OWNER_DIED, 0, false, 1);
}

static void test_pending_pi_unowned_left_alone(void **state)
{
	special(SP_PENDING_PI_UNOWNED_LEFT_ALONE, false, FUTEX_WAITERS, 0, false, 0);
}

static void test_pending_also_on_list_handled_once(void **state)
{
	special(SP_PENDING_ALSO_ON_LIST, false, FUTEX_OWNER_DIED | FUTEX_WAITERS,
		FUTEX_OWNER_DIED, true, 1);
	special(SP_PENDING_ALSO_ON_LIST, true, FUTEX_OWNER_DIED | FUTEX_WAITERS,
		FUTEX_OWNER_DIED, true, 1);
}

static void test_foreign_owner_untouched(void **state)
{
	special(SP_FOREIGN_OWNER_UNTOUCHED, false, UINT32_MAX, FUTEX_OWNER_DIED, true, 0);
}

static void test_no_waiters_bit_means_no_wake(void **state)
{
	/* the kernel wakes only when FUTEX_WAITERS was set; so do we */
	special(SP_NO_WAITERS_BIT_NO_WAKE, false, FUTEX_OWNER_DIED, 0, false, 0);
}

/*
 * A waiter of the dying thread's own process that used FUTEX_WAIT_PRIVATE:
 * the kernel's walk would leave it asleep (private and shared keys
 * differ); ours wakes it.
 */
struct private_scene {
	struct robust_list_head h;
	struct th_lock64 l;
	uint32_t ready;
	bool also_shared;	/* a shared waiter too: still one wake in all */
};

static void *private_owner(void *p)
{
	struct private_scene *s = p;

	th_list64_init(&s->h, TH_OFF64);
	s->l.futex = th_gettid() | FUTEX_WAITERS;
	th_list64_add(&s->h, &s->l, false);
	if (set_robust_list2(&s->h, 0, TH_NATIVE, 0))
		return (void *)1;
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	th_futex_wake(&s->ready, 1, true);
	for (int i = 0; i < 100 && __atomic_load_n(&s->ready, __ATOMIC_ACQUIRE) != 2; i++)
		th_futex_wait(&s->ready, 1, 100, true);
	pthread_exit(NULL);
}

static int private_child(void *arg)
{
	struct private_scene *s = arg;
	struct th_waiter w, ws;
	pthread_t owner;
	void *ret = NULL;
	int left;

	if (pthread_create(&owner, NULL, private_owner, s))
		return 2;
	for (int i = 0; i < 100 && !__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE); i++)
		th_futex_wait(&s->ready, 0, 100, true);
	w = (struct th_waiter){ .uaddr = &s->l.futex, .val = s->l.futex, .private = true,
				.timeout_ms = TH_TIMEOUT_MS };
	if (th_waiter_start(&w))
		return 3;
	ws = w;
	ws.private = false;
	if (s->also_shared && th_waiter_start(&ws))
		return 3;
	__atomic_store_n(&s->ready, 2, __ATOMIC_RELEASE);
	th_futex_wake(&s->ready, 1, true);
	pthread_join(owner, &ret);
	if (ret)
		return 4;
	/*
	 * The walk ran before join returned.  One death wakes one waiter:
	 * the private one alone, or the shared one when there are both.
	 */
	left = th_futex_wake(&s->l.futex, INT_MAX, true);
	if (s->also_shared)
		left += th_futex_wake(&s->l.futex, INT_MAX, false);
	if (left != (s->also_shared ? 1 : 0))
		return 5;
	if (th_waiter_join(&w) != 0)
		return 6;
	if (s->also_shared && th_waiter_join(&ws) != 0)
		return 6;
	return s->l.futex == (FUTEX_OWNER_DIED | FUTEX_WAITERS) ? 0 : 7;
}

static void test_private_waiter_woken(void **state)
{
	struct private_scene *s = th_shared_alloc(4096, false);

	assert_int_equal(0, th_wait_child(th_spawn_child(private_child, s)));
	th_free(s, 4096);
}

static void test_private_and_shared_waiters_one_wake(void **state)
{
	struct private_scene *s = th_shared_alloc(4096, false);

	s->also_shared = true;
	assert_int_equal(0, th_wait_child(th_spawn_child(private_child, s)));
	th_free(s, 4096);
}

static int check_empty_main(void)
{
	for (unsigned int i = 0; i < ROBUST_LIST2_NR_SLOTS; i++) {
		void *head = (void *)1;

		if (get_robust_list2(0, &head, i, 0) || head)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_death_by_exit),
		cmocka_unit_test(test_death_by_return),
		cmocka_unit_test(test_death_by_pthread_exit),
		cmocka_unit_test(test_death_by_sigkill),
		cmocka_unit_test(test_death_by_sigsegv),
		cmocka_unit_test(test_death_by_sibling_exit_group),
		cmocka_unit_test(test_death_by_sibling_exec),
		cmocka_unit_test(test_exec_walks_and_empties_slots),
		cmocka_unit_test(test_exec_by_nonleader_owner_recovers_its_locks),
		cmocka_unit_test(test_all_8_slots_64),
		cmocka_unit_test(test_all_8_slots_32),
		cmocka_unit_test(test_all_8_slots_mixed_sigkill),
		cmocka_unit_test(test_legacy_list_recovered_beside),
		cmocka_unit_test(test_pi_entry_marked_not_woken),
		cmocka_unit_test(test_pending_owned_lock_recovered),
		cmocka_unit_test(test_pending_unowned_gets_wake_only),
		cmocka_unit_test(test_pending_other_owner_no_waiters_gets_wake_only),
		cmocka_unit_test(test_pending_other_owner_with_waiters_no_wake),
		cmocka_unit_test(test_pending_owner_died_gets_wake_only),
		cmocka_unit_test(test_pending_pi_unowned_left_alone),
		cmocka_unit_test(test_pending_also_on_list_handled_once),
		cmocka_unit_test(test_foreign_owner_untouched),
		cmocka_unit_test(test_no_waiters_bit_means_no_wake),
		cmocka_unit_test(test_private_waiter_woken),
		cmocka_unit_test(test_private_and_shared_waiters_one_wake),
	};

	if (argc > 1 && !strcmp(argv[1], "--exit0"))
		return 0;
	if (argc > 1 && !strcmp(argv[1], "--check-empty"))
		return check_empty_main();
	return cmocka_run_group_tests_name("exit_walk", tests, NULL, NULL);
}
