// SPDX-License-Identifier: GPL-2.0
/*
 * Host-only unit tests of librobust_list2's calls: what each one puts in
 * its ioctl struct and how a kernel error comes back (-1 and errno, the
 * glibc convention), the version string, and the try-unlock functions.
 * Against the fake kernel of lib/shim_fake.c.
 *
 * The try-unlock functions need no kernel: they run for real on the host,
 * including a fault provoked inside their window to check what the module
 * relies on there (the instruction pointer, ZF and pop in (E)DX).
 *
 * Built twice: t_shim_unit_calls, and t_shim_unit_calls.m32 with -m32
 * against the -m32 library (try_unlock_i386.S; pointers zero-extended into
 * __u64).
 */
#include <errno.h>
#include <stdlib.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "robust_list2.h"
#include "shim_fake.h"

static void test_set_fills_struct(void **state)
{
	struct robust_list_head head;

	dirty_stack();
	assert_int_equal(0, set_robust_list2(&head, 7,
					     FUTEX_ROBUST_LIST_CMD_SET_32,
					     0xa5a5a5a5));
	assert_int_equal(ROBUST_LIST2_IOC_SET, fake.ioctl_req);
	assert_int_equal((uintptr_t)&head, fake.arg.set.head);
	assert_int_equal(7, fake.arg.set.index);
	assert_int_equal(ROBUST_LIST2_CMD_SET_32, fake.arg.set.cmd);
	assert_int_equal(0xa5a5a5a5, fake.arg.set.flags);
	assert_int_equal(0, fake.arg.set.pad);

	/* NULL empties a slot: head 0, not a truncated or tagged value. */
	dirty_stack();
	assert_int_equal(0, set_robust_list2(NULL, 3,
					     FUTEX_ROBUST_LIST_CMD_SET_64, 0));
	assert_int_equal(0, fake.arg.set.head);
	assert_int_equal(3, fake.arg.set.index);
	assert_int_equal(ROBUST_LIST2_CMD_SET_64, fake.arg.set.cmd);
	assert_int_equal(0, fake.arg.set.flags);
	assert_int_equal(0, fake.arg.set.pad);
}

static void test_get_fills_struct_and_returns_zero(void **state)
{
	struct robust_list_head registered;
	void *head = SENTINEL;

	fake.get_head = &registered;
	fake_ioctl_returns(1);		/* any non-negative ioctl value is success */
	dirty_stack();
	assert_int_equal(0, get_robust_list2(1234, &head, 6, 0));
	assert_int_equal(ROBUST_LIST2_IOC_GET, fake.ioctl_req);
	assert_int_equal((uintptr_t)&head, fake.arg.get.head_ptr);
	assert_int_equal(1234, fake.arg.get.pid);
	assert_int_equal(6, fake.arg.get.index);
	assert_int_equal(0, fake.arg.get.flags);
	assert_ptr_equal(&registered, head);

	/* Flags are the kernel's to judge; the library passes them on. */
	assert_int_equal(0, get_robust_list2(0, &head, 0, 0x80000000));
	assert_int_equal(0, fake.arg.get.pid);
	assert_int_equal(0x80000000, fake.arg.get.flags);
}

static void test_set_kernel_error_is_minus_one_errno(void **state)
{
	int err = *(int *)*state;

	fake_ioctl_returns(-err);
	errno = 0;
	expect_errno(err, set64());
	assert_int_equal(1, fake.nr_ioctl);	/* no retry, no reopen */
	assert_int_equal(1, fake.nr_open);
}

static void test_get_kernel_error_is_minus_one_errno(void **state)
{
	int err = *(int *)*state;
	void *head = SENTINEL;

	fake_ioctl_returns(-err);
	errno = 0;
	expect_errno(err, get_robust_list2(99, &head, 0, 0));
	assert_ptr_equal(SENTINEL, head);
	assert_int_equal(1, fake.nr_ioctl);
	assert_int_equal(1, fake.nr_open);
}

/*
 * The struct robust_list2_slot() sends is get_robust_list2()'s with flags
 * 0 and head_ptr at a buffer of its own; what it answers is the struct's
 * head and type, not what the module stored at head_ptr.
 */
static void test_slot_fills_struct_and_returns_head_and_type(void **state)
{
	const struct {
		uint64_t head;
		unsigned int type;
	} answers[] = {
		/* above 4 GiB: would not survive a trip through a 32-bit pointer */
		{ 0x00007ffd12345678ULL, ROBUST_LIST2_TYPE_64 },
		{ 0xfffff000ULL, ROBUST_LIST2_TYPE_32 },
		{ 0, ROBUST_LIST2_TYPE_EMPTY },
	};
	struct robust_list_head registered;

	for (size_t i = 0; i < sizeof(answers) / sizeof(answers[0]); i++) {
		uint64_t head = HEAD64_SENTINEL;
		unsigned int type = TYPE_SENTINEL;

		fake.get_head = &registered;	/* what lands at head_ptr */
		fake.get_head64 = answers[i].head;
		fake.get_type = answers[i].type;
		fake_ioctl_returns(1);		/* any non-negative value is success */
		dirty_stack();
		assert_int_equal(0, robust_list2_slot(1234, 6, &head, &type));
		assert_int_equal(ROBUST_LIST2_IOC_GET, fake.ioctl_req);
		assert_int_equal(1234, fake.arg.get.pid);
		assert_int_equal(6, fake.arg.get.index);
		assert_int_equal(0, fake.arg.get.flags);
		/* the out fields start zeroed, not as stack garbage */
		assert_int_equal(0, fake.arg.get.head);
		assert_int_equal(0, fake.arg.get.type);
		/* head_ptr: the library's own buffer, not one of the caller's */
		assert_true(fake.arg.get.head_ptr != 0);
		assert_true(fake.arg.get.head_ptr != (uintptr_t)&head);
		assert_true(fake.arg.get.head_ptr != (uintptr_t)&type);
		assert_int_equal(answers[i].head, head);
		assert_int_equal(answers[i].type, type);
	}
	assert_int_equal(3, fake.nr_ioctl);
	assert_int_equal(1, fake.nr_open);
}

/* Either output may be NULL; the other is still filled, from one request. */
static void test_slot_outputs_may_be_null(void **state)
{
	uint64_t head = HEAD64_SENTINEL;
	unsigned int type = TYPE_SENTINEL;

	fake.get_head64 = 0x1000;
	fake.get_type = ROBUST_LIST2_TYPE_32;
	assert_int_equal(0, robust_list2_slot(0, 0, &head, NULL));
	assert_int_equal(0x1000, head);
	assert_int_equal(0, robust_list2_slot(0, 1, NULL, &type));
	assert_int_equal(ROBUST_LIST2_TYPE_32, type);
	assert_int_equal(0, robust_list2_slot(0, 2, NULL, NULL));
	assert_int_equal(2, fake.arg.get.index);
	assert_int_equal(3, fake.nr_ioctl);
}

static void test_slot_kernel_error_is_minus_one_errno(void **state)
{
	int err = *(int *)*state;
	uint64_t head = HEAD64_SENTINEL;
	unsigned int type = TYPE_SENTINEL;

	fake.get_head64 = 0x1000;
	fake.get_type = ROBUST_LIST2_TYPE_64;
	fake_ioctl_returns(-err);
	errno = 0;
	expect_errno(err, robust_list2_slot(99, 0, &head, &type));
	assert_int_equal(ROBUST_LIST2_IOC_GET, fake.ioctl_req);
	assert_int_equal(HEAD64_SENTINEL, head);
	assert_int_equal(TYPE_SENTINEL, type);
	assert_int_equal(1, fake.nr_ioctl);
	assert_int_equal(1, fake.nr_open);
}

static void test_list_limit_value_passes_through(void **state)
{
	fake_ioctl_returns(ROBUST_LIST2_NR_SLOTS);
	assert_int_equal(ROBUST_LIST2_NR_SLOTS, set_robust_list2(NULL, 0,
				FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, 0));
	assert_int_equal(ROBUST_LIST2_CMD_LIST_LIMIT, fake.arg.set.cmd);
}

static void test_info_fills_caller_struct(void **state)
{
	struct robust_list2_info info;

	memset(&info, 0xcc, sizeof(info));
	assert_int_equal(0, robust_list2_info(&info));
	assert_int_equal(ROBUST_LIST2_IOC_INFO, fake.ioctl_req);
	assert_ptr_equal(&info, fake.ioctl_arg);
	assert_int_equal(ROBUST_LIST2_ABI_VERSION, info.abi_version);
	assert_int_equal(ROBUST_LIST2_NR_SLOTS, info.nr_slots);

	fake_ioctl_returns(-EFAULT);
	expect_errno(EFAULT, robust_list2_info(&info));
}

/* The version is dkms.conf's PACKAGE_VERSION, the single source. */
static void test_version_is_package_version(void **state)
{
	char line[256], version[64] = "";
	FILE *f = fopen(RL2_TOP "/dkms.conf", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "PACKAGE_VERSION=\"%63[^\"]\"", version) == 1)
			break;
	fclose(f);
	assert_true(version[0]);
	assert_string_equal(version, robust_list2_version());
	assert_int_equal(0, fake.nr_open);
}

static void test_create_fills_struct_and_returns_index(void **state)
{
	struct robust_list_head head;

	fake_ioctl_returns(5);		/* the slot the kernel filled */
	dirty_stack();
	assert_int_equal(5, robust_list2_create(&head,
						FUTEX_ROBUST_LIST_CMD_SET_32));
	assert_int_equal(ROBUST_LIST2_IOC_CREATE, fake.ioctl_req);
	assert_int_equal((uintptr_t)&head, fake.arg.set.head);
	assert_int_equal(0, fake.arg.set.index);
	assert_int_equal(ROBUST_LIST2_CMD_SET_32, fake.arg.set.cmd);
	assert_int_equal(0, fake.arg.set.flags);
	assert_int_equal(0, fake.arg.set.pad);

	/* Slot 0 is an index like the others, not an error. */
	fake_ioctl_returns(0);
	dirty_stack();
	assert_int_equal(0, robust_list2_create(&head,
						FUTEX_ROBUST_LIST_CMD_SET_64));
	assert_int_equal(ROBUST_LIST2_CMD_SET_64, fake.arg.set.cmd);
	assert_int_equal(0, fake.arg.set.index);

	/* head and cmd are the kernel's to judge: passed on as they are. */
	fake_ioctl_returns(ROBUST_LIST2_NR_SLOTS - 1);
	dirty_stack();
	assert_int_equal(ROBUST_LIST2_NR_SLOTS - 1,
			 robust_list2_create(NULL, 0xa5a5a5a5));
	assert_int_equal(0, fake.arg.set.head);
	assert_int_equal(0xa5a5a5a5, fake.arg.set.cmd);
	assert_int_equal(0, fake.arg.set.index);
	assert_int_equal(0, fake.arg.set.flags);
	assert_int_equal(0, fake.arg.set.pad);
	assert_int_equal(3, fake.nr_ioctl);
}

static void test_create_kernel_error_is_minus_one_errno(void **state)
{
	struct robust_list_head head;
	int err = *(int *)*state;

	fake_ioctl_returns(-err);
	errno = 0;
	expect_errno(err, robust_list2_create(&head,
					      FUTEX_ROBUST_LIST_CMD_SET_64));
	assert_int_equal(ROBUST_LIST2_IOC_CREATE, fake.ioctl_req);
	assert_int_equal(1, fake.nr_ioctl);
	assert_int_equal(1, fake.nr_open);
}

static void test_unlock_fills_struct_and_returns_woken(void **state)
{
	uint32_t word = 1234;
	uint64_t pop64 = 0x1111;
	uint32_t pop32[2] = { 0x2222, 0x3333 };

	fake_ioctl_returns(1);		/* one waiter woken */
	dirty_stack();
	assert_int_equal(1, robust_list2_unlock(&word, 1234, &pop64,
						ROBUST_LIST2_UNLOCK_PRIVATE));
	assert_int_equal(ROBUST_LIST2_IOC_UNLOCK, fake.ioctl_req);
	assert_int_equal((uintptr_t)&word, fake.arg.unlock.uaddr);
	assert_int_equal((uintptr_t)&pop64, fake.arg.unlock.pop);
	assert_int_equal(1234, fake.arg.unlock.tid);
	assert_int_equal(ROBUST_LIST2_UNLOCK_PRIVATE, fake.arg.unlock.flags);
	assert_int_equal(1, fake.arg.unlock.nr_wake);
	assert_int_equal(0, fake.arg.unlock.old);
	/* The kernel does the work; the library touches neither field. */
	assert_int_equal(1234, word);
	assert_int_equal(0x1111, pop64);

	/* No pending field; PI and a 32-bit field; nobody woken. */
	fake_ioctl_returns(0);
	dirty_stack();
	assert_int_equal(0, robust_list2_unlock(&word, FUTEX_TID_MASK, NULL,
						ROBUST_LIST2_UNLOCK_PI |
						ROBUST_LIST2_UNLOCK_POP32));
	assert_int_equal(0, fake.arg.unlock.pop);
	assert_int_equal(FUTEX_TID_MASK, fake.arg.unlock.tid);
	assert_int_equal(ROBUST_LIST2_UNLOCK_PI | ROBUST_LIST2_UNLOCK_POP32,
			 fake.arg.unlock.flags);
	assert_int_equal(1, fake.arg.unlock.nr_wake);

	/* Unknown flags are the kernel's to refuse. */
	dirty_stack();
	assert_int_equal(0, robust_list2_unlock(&word, 1, &pop32[1],
						0x80000000));
	assert_int_equal((uintptr_t)&pop32[1], fake.arg.unlock.pop);
	assert_int_equal(0x80000000, fake.arg.unlock.flags);
	assert_int_equal(3, fake.nr_ioctl);
	assert_int_equal(0x2222, pop32[0]);
	assert_int_equal(0x3333, pop32[1]);
}

static void test_unlock_kernel_error_is_minus_one_errno(void **state)
{
	int err = *(int *)*state;
	uint32_t word = 7;
	uint64_t pop = 0;

	fake_ioctl_returns(-err);
	errno = 0;
	expect_errno(err, robust_list2_unlock(&word, 8, &pop, 0));
	assert_int_equal(ROBUST_LIST2_IOC_UNLOCK, fake.ioctl_req);
	assert_int_equal(1, fake.nr_ioctl);
	assert_int_equal(1, fake.nr_open);
}

/* Try-unlock: no kernel, no device, run for real. */

#define POP64_SENTINEL	0xdeadbeefcafef00dULL
#define POP32_SENTINEL	0xcafef00dU
#define WORD_SENTINEL	0xa5a5a5a5U

/* @mode 64, 32: the library's functions; -64, -32: the header's inline ones. */
static uint32_t try_unlock(int mode, uint32_t *word, uint32_t tid, void *pop)
{
#ifdef ROBUST_LIST2_HAVE_TRY_UNLOCK_INLINE
	if (mode == -64)
		return robust_list2_try_unlock64_inline(word, tid, pop);
	if (mode == -32)
		return robust_list2_try_unlock32_inline(word, tid, pop);
#else
	if (mode < 0)
		skip();		/* the header offers them on x86 only */
#endif
	return mode == 64 ? robust_list2_try_unlock64(word, tid, pop) :
			    robust_list2_try_unlock32(word, tid, pop);
}

/*
 * Pending fields with sentinels on both sides: a 64-bit one in the middle
 * of three, and 32-bit ones at both halves of an 8-byte unit (so a store
 * of the wrong width or place hits a neighbour).
 */
struct pops {
	uint64_t p64[3];
	uint32_t p32[4];
};

static void pops_fill(struct pops *p)
{
	for (int i = 0; i < 3; i++)
		p->p64[i] = POP64_SENTINEL;
	for (int i = 0; i < 4; i++)
		p->p32[i] = POP32_SENTINEL;
}

/* Check every field of @p is a sentinel, except @cleared, which is 0. */
static void pops_check(const struct pops *p, const void *cleared)
{
	for (int i = 0; i < 3; i++)
		assert_int_equal(&p->p64[i] == cleared ? 0 : POP64_SENTINEL,
				 p->p64[i]);
	for (int i = 0; i < 4; i++)
		assert_int_equal(&p->p32[i] == cleared ? 0 : POP32_SENTINEL,
				 p->p32[i]);
}

static void test_try_unlock_own_word_released_and_pop_cleared(void **state)
{
	int mode = *(int *)*state, width = abs(mode);
	const uint32_t tids[] = { (uint32_t)gettid(), 1, FUTEX_TID_MASK };
	struct pops p;

	for (size_t t = 0; t < sizeof(tids) / sizeof(tids[0]); t++) {
		for (int slot = 1; slot <= 2; slot++) {
			void *pop = width == 64 ? (void *)&p.p64[1] :
						  (void *)&p.p32[slot];
			uint32_t word = tids[t];

			pops_fill(&p);
			assert_int_equal(tids[t],
					 try_unlock(mode, &word, tids[t], pop));
			assert_int_equal(0, word);
			pops_check(&p, pop);
		}
	}
	/* No system call, no device. */
	assert_int_equal(0, fake.nr_open);
	assert_int_equal(0, fake.nr_ioctl);
}

/*
 * A word that is not exactly tid is returned and nothing is written: the
 * caller still owns a contended lock and must use robust_list2_unlock().
 * *pop is also on a PROT_NONE page once, so even reading it would fault.
 */
static void test_try_unlock_other_word_untouched(void **state)
{
	int mode = *(int *)*state, width = abs(mode);
	const uint32_t tid = 0x1234, other = 0x4321;
	const uint32_t words[] = {
		tid | FUTEX_WAITERS,
		tid | FUTEX_OWNER_DIED,
		tid | FUTEX_WAITERS | FUTEX_OWNER_DIED,
		other,
		other | FUTEX_WAITERS,
		FUTEX_OWNER_DIED,
		FUTEX_WAITERS,
		0,
	};
	long page = sysconf(_SC_PAGESIZE);
	char *none = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	struct pops p;

	assert_true(none != MAP_FAILED);
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		void *pop = width == 64 ? (void *)&p.p64[1] :
					  (void *)&p.p32[1];
		uint32_t word = words[i];

		pops_fill(&p);
		assert_int_equal(words[i], try_unlock(mode, &word, tid, pop));
		assert_int_equal(words[i], word);
		pops_check(&p, NULL);

		word = words[i];
		assert_int_equal(words[i], try_unlock(mode, &word, tid, none));
		assert_int_equal(words[i], word);
	}
	munmap(none, page);
	assert_int_equal(0, fake.nr_ioctl);
}

/* What a SIGSEGV inside the window saw. */
static sigjmp_buf window_jmp;
static volatile uintptr_t window_ip, window_dx, window_addr;
static volatile unsigned long window_flags;

static void window_segv(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

#if defined(__x86_64__)
	window_ip = uc->uc_mcontext.gregs[REG_RIP];
	window_dx = uc->uc_mcontext.gregs[REG_RDX];
#else
	window_ip = uc->uc_mcontext.gregs[REG_EIP];
	window_dx = uc->uc_mcontext.gregs[REG_EDX];
#endif
	window_flags = uc->uc_mcontext.gregs[REG_EFL];
	window_addr = (uintptr_t)si->si_addr;
	siglongjmp(window_jmp, 1);
}

#define X86_EFLAGS_ZF	0x40

/* Run a try-unlock whose store to @pop must fault; 1 if it did. */
static int __attribute__((noinline))
try_unlock_faults(int width, uint32_t *word, uint32_t tid, void *pop)
{
	if (sigsetjmp(window_jmp, 1))
		return 1;
	try_unlock(width, word, tid, pop);
	return 0;
}

/*
 * The module's contract with try_unlock_*.S: a thread stopped between the
 * release and the end of the store to *pop has its instruction pointer in
 * the registered window, ZF set and pop in (E)DX.  Make the store fault
 * (pop on a PROT_NONE page; for the 64-bit field also straddling into it,
 * which on i386 faults on the second of its two stores) and look.
 */
static void test_try_unlock_window_holds_ip_zf_and_pop(void **state)
{
	int width = *(int *)*state;
	uintptr_t start = (uintptr_t)(width == 64 ? rl2__window64_start :
						    rl2__window32_start);
	uintptr_t end = (uintptr_t)(width == 64 ? rl2__window64_end :
						  rl2__window32_end);
	long page = sysconf(_SC_PAGESIZE);
	struct sigaction sa = { .sa_sigaction = window_segv,
				.sa_flags = SA_SIGINFO }, old;
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *pops[2] = { map + page, map + page - 4 };
	int nr_pops = width == 64 ? 2 : 1;

	assert_true(map != MAP_FAILED);
	assert_int_equal(0, mprotect(map + page, page, PROT_NONE));
	assert_int_equal(0, sigaction(SIGSEGV, &sa, &old));
	for (int i = 0; i < nr_pops; i++) {
		uint32_t word = 77;
		int faulted;

		window_ip = window_dx = window_addr = 0;
		window_flags = 0;
		faulted = try_unlock_faults(width, &word, 77, pops[i]);
		if (!faulted)
			sigaction(SIGSEGV, &old, NULL);
		assert_true(faulted);
		assert_true(window_ip >= start);
		assert_true(window_ip < end);
		assert_true(window_flags & X86_EFLAGS_ZF);
		assert_int_equal((uintptr_t)pops[i], window_dx);
		assert_int_equal((uintptr_t)(map + page), window_addr);
		assert_int_equal(0, word);	/* released: what the module repairs */
	}
	assert_int_equal(0, sigaction(SIGSEGV, &old, NULL));
	munmap(map, 2 * page);
}

/* ---- one entry: the ioctl ------------------------------------------ */

static struct robust_list_head one_head;

/* Set and get are one ioctl each, whatever the ABI: no other way in. */
static void test_set_and_get_are_one_ioctl_each(void **state)
{
	void *head;

	assert_int_equal(0, set_robust_list2(&one_head, 3, FUTEX_ROBUST_LIST_CMD_SET_32, 0));
	assert_int_equal(1, fake.nr_ioctl);
	assert_int_equal(ROBUST_LIST2_IOC_SET, fake.ioctl_req);
	assert_int_equal(0, get_robust_list2(0, &head, 3, 0));
	assert_int_equal(2, fake.nr_ioctl);
	assert_int_equal(ROBUST_LIST2_IOC_GET, fake.ioctl_req);
	assert_int_equal(1, fake.nr_window);	/* sent once, on open */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_set_and_get_are_one_ioctl_each),
		T(test_set_fills_struct),
		T(test_get_fills_struct_and_returns_zero),
		TE(test_set_kernel_error_is_minus_one_errno, EINVAL),
		TE(test_set_kernel_error_is_minus_one_errno, EOPNOTSUPP),
		TE(test_set_kernel_error_is_minus_one_errno, ENOMEM),
		TE(test_set_kernel_error_is_minus_one_errno, EFAULT),
		TE(test_get_kernel_error_is_minus_one_errno, EINVAL),
		TE(test_get_kernel_error_is_minus_one_errno, EPERM),
		TE(test_get_kernel_error_is_minus_one_errno, ESRCH),
		TE(test_get_kernel_error_is_minus_one_errno, EINTR),
		TE(test_get_kernel_error_is_minus_one_errno, EOVERFLOW),
		TE(test_get_kernel_error_is_minus_one_errno, EFAULT),
		T(test_slot_fills_struct_and_returns_head_and_type),
		T(test_slot_outputs_may_be_null),
		TE(test_slot_kernel_error_is_minus_one_errno, EINVAL),
		TE(test_slot_kernel_error_is_minus_one_errno, EPERM),
		TE(test_slot_kernel_error_is_minus_one_errno, ESRCH),
		TE(test_slot_kernel_error_is_minus_one_errno, EINTR),
		TE(test_slot_kernel_error_is_minus_one_errno, EOVERFLOW),
		TE(test_slot_kernel_error_is_minus_one_errno, EFAULT),
		TE(test_slot_kernel_error_is_minus_one_errno, ENOTTY),
		T(test_list_limit_value_passes_through),
		T(test_info_fills_caller_struct),
		T(test_version_is_package_version),
		T(test_create_fills_struct_and_returns_index),
		TE(test_create_kernel_error_is_minus_one_errno, ENOSPC),
		TE(test_create_kernel_error_is_minus_one_errno, EINVAL),
		TE(test_create_kernel_error_is_minus_one_errno, EOPNOTSUPP),
		TE(test_create_kernel_error_is_minus_one_errno, ENOMEM),
		TE(test_create_kernel_error_is_minus_one_errno, ENOTTY),
		T(test_unlock_fills_struct_and_returns_woken),
		TE(test_unlock_kernel_error_is_minus_one_errno, EPERM),
		TE(test_unlock_kernel_error_is_minus_one_errno, EINVAL),
		TE(test_unlock_kernel_error_is_minus_one_errno, EFAULT),
		TE(test_unlock_kernel_error_is_minus_one_errno, EAGAIN),
		TE(test_unlock_kernel_error_is_minus_one_errno, ENOTTY),
		TW(test_try_unlock_own_word_released_and_pop_cleared, 64),
		TW(test_try_unlock_own_word_released_and_pop_cleared, 32),
		TW(test_try_unlock_other_word_untouched, 64),
		TW(test_try_unlock_other_word_untouched, 32),
		TW(test_try_unlock_own_word_released_and_pop_cleared, -64),
		TW(test_try_unlock_own_word_released_and_pop_cleared, -32),
		TW(test_try_unlock_other_word_untouched, -64),
		TW(test_try_unlock_other_word_untouched, -32),
		TW(test_try_unlock_window_holds_ip_zf_and_pop, 64),
		TW(test_try_unlock_window_holds_ip_zf_and_pop, 32),
	};

	return cmocka_run_group_tests_name("shim_unit_calls", tests, NULL, NULL);
}
