/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * librobust_list2 — the proposed set_robust_list2()/get_robust_list2()
 * futex API on stock kernels, through /dev/robust_list2.
 *
 * Every function behaves like a glibc system call wrapper: a value >= 0 on
 * success, -1 with errno set on failure.  Code written against the proposed
 * system calls works unchanged.  When the device is absent (module not
 * loaded) every call fails with ENOSYS, exactly as a kernel without the
 * system calls answers.
 *
 * The device is opened lazily, once per process, with O_CLOEXEC.  A forked
 * child shares the parent's descriptor (the calls act on the calling thread,
 * not on the file, so that is correct); after exec the new image opens its
 * own on first use.  Slots are per thread and a new thread starts with all
 * slots empty.
 */
#ifndef ROBUST_LIST2_H
#define ROBUST_LIST2_H

#include <stdint.h>
#include <linux/futex.h>	/* struct robust_list, struct robust_list_head */
#include <linux/robust_list2.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The v6 proposal adds these to <linux/futex.h>.  No released kernel has
 * them; if yours does, define ROBUST_LIST2_HAVE_FUTEX_UAPI before including
 * this header and the kernel's definitions are used instead.
 */
#ifndef ROBUST_LIST2_HAVE_FUTEX_UAPI
struct robust_list32 {
	uint32_t next;
};

struct robust_list_head32 {
	union {
		struct robust_list32 list;	/* the v6 uapi spelling */
		uint32_t next;			/* same word, flat */
	};
	int32_t futex_offset;
	uint32_t list_op_pending;
};

enum robust_list2_cmd {
	FUTEX_ROBUST_LIST_CMD_SET_64 = ROBUST_LIST2_CMD_SET_64,
	FUTEX_ROBUST_LIST_CMD_SET_32 = ROBUST_LIST2_CMD_SET_32,
	FUTEX_ROBUST_LIST_CMD_LIST_LIMIT = ROBUST_LIST2_CMD_LIST_LIMIT,
	FUTEX_ROBUST_LIST_CMD_USER_MAX,		/* the first invalid command */
};
#endif

/* Register @head (or empty the slot when NULL) at @index for this thread. */
long set_robust_list2(struct robust_list_head *head, unsigned int index,
		      unsigned int cmd, unsigned int flags);

/* Store the head registered at @index of thread @pid (0: this thread). */
long get_robust_list2(int pid, void **head_ptr, unsigned int index,
		      unsigned int flags);

/*
 * Slot @index of thread @pid (0: this thread): its head, zero-extended to
 * 64 bits (0 when empty), in *@head and its kind, ROBUST_LIST2_TYPE_EMPTY,
 * _64 or _32, in *@type.  Either pointer may be NULL.  Errors as
 * get_robust_list2().
 */
int robust_list2_slot(int pid, unsigned int index, uint64_t *head,
		      unsigned int *type);

/*
 * Register @head in this thread's lowest empty slot; returns the slot
 * index (ENOSPC when all are in use).  Empty it with
 * set_robust_list2(NULL, index, cmd, 0).  @cmd: FUTEX_ROBUST_LIST_CMD_SET_64
 * or _SET_32.
 */
long robust_list2_create(struct robust_list_head *head, unsigned int cmd);

/*
 * Release robust futex @lock, owned by @tid, clear the pending-op field
 * @pop (NULL: none) and wake one waiter, in one system call.  @flags:
 * ROBUST_LIST2_UNLOCK_POP32 (pop is a 32-bit field), _PRIVATE, _PI.
 * Returns the number of waiters woken.
 */
long robust_list2_unlock(uint32_t *lock, uint32_t tid, void *pop,
			 unsigned int flags);

/*
 * Uncontended unlock without a system call (mainline vDSO contract):
 * returns the word seen; if it was @tid, the word is now 0 and *pop is
 * cleared.  Any other value (tid | FUTEX_WAITERS) means: still locked,
 * use robust_list2_unlock().  A thread that dies between the two stores
 * has its unlock finished by the module.
 */
uint32_t robust_list2_try_unlock64(uint32_t *lock, uint32_t tid, uint64_t *pop);
uint32_t robust_list2_try_unlock32(uint32_t *lock, uint32_t tid, uint32_t *pop);

/*
 * The same two functions inlined in the caller, on x86 (x86-64 and i386)
 * and AArch64 (ROBUST_LIST2_HAVE_TRY_UNLOCK_INLINE says they exist): no
 * call, about the cost of a plain compare-exchange unlock.  The
 * instructions of the window are fixed: written as .byte (x86) or .inst
 * (AArch64) with their operands pinned to the registers those encodings
 * name, so no compiler or assembler can change them; only the conditional
 * branch to the caller's slow path is the assembler's.  The module
 * recognises a copy by these bytes at a dying thread's instruction
 * pointer, with no registration, so every copy in every object of the
 * process is covered (a module with ROBUST_LIST2_F_INLINE_WINDOW in
 * robust_list2_info()'s features).  Returns @tid if the lock was released,
 * else the word as read right after the compare-exchange failed; should
 * that read be @tid (the word changed in between: a caller's bug),
 * FUTEX_WAITERS is added, so the caller releases it through
 * robust_list2_unlock() as for a waiter.
 *
 * AArch64 has two forms.  Built for a CPU with the LSE atomics (ARMv8.1
 * and later: __ARM_FEATURE_ATOMICS, e.g. -march=armv8.2-a), a "casl";
 * otherwise load/store-exclusive ("ldxr"/"stlxr"), which every ARMv8.0 CPU
 * runs (Cortex-A53, Cortex-A72: a Raspberry Pi 3 or 4) and LSE CPUs too,
 * at one or two instructions more.  A program built for ARMv8.0 (Debian's
 * default) gets the exclusive form, which is correct everywhere; the LSE
 * form stops with SIGILL on a CPU without LSE, like any code built for
 * ARMv8.1.  The module knows both, with either width of the pending field.
 */
#if (defined(__x86_64__) && !defined(__ILP32__)) || defined(__i386__) || \
	(defined(__aarch64__) && !defined(__ILP32__))
#define ROBUST_LIST2_HAVE_TRY_UNLOCK_INLINE 1

/* The slow path's answer: the word as read, never @tid. */
#define ROBUST_LIST2_TRY_UNLOCK_BUSY(lock, tid)				\
	__extension__ ({						\
		uint32_t rl2_old = __atomic_load_n((lock), __ATOMIC_RELAXED);	\
		rl2_old != (tid) ? rl2_old : rl2_old | FUTEX_WAITERS;	\
	})
#endif

#if (defined(__x86_64__) && !defined(__ILP32__)) || defined(__i386__)

#ifdef __x86_64__
/* lock cmpxchg %ecx, (%rdi) */
#define ROBUST_LIST2_TRY_UNLOCK_CAS ".byte 0xf0, 0x0f, 0xb1, 0x0f"
/* movq $0, (%rdx) */
#define ROBUST_LIST2_TRY_UNLOCK64_STORE ".byte 0x48, 0xc7, 0x02, 0x00, 0x00, 0x00, 0x00"
/* movl $0, (%rdx) */
#define ROBUST_LIST2_TRY_UNLOCK32_STORE ".byte 0xc7, 0x02, 0x00, 0x00, 0x00, 0x00"
#define ROBUST_LIST2_TRY_UNLOCK_REGS(lock, pop) "D" (lock), "c" (0U), "d" (pop)
#else
/* lock cmpxchg %ebx, (%ecx) */
#define ROBUST_LIST2_TRY_UNLOCK_CAS ".byte 0xf0, 0x0f, 0xb1, 0x19"
/* movl $0, (%edx); movl $0, 4(%edx) */
#define ROBUST_LIST2_TRY_UNLOCK64_STORE \
	".byte 0xc7, 0x02, 0x00, 0x00, 0x00, 0x00, 0xc7, 0x42, 0x04, 0x00, 0x00, 0x00, 0x00"
/* movl $0, (%edx) */
#define ROBUST_LIST2_TRY_UNLOCK32_STORE ".byte 0xc7, 0x02, 0x00, 0x00, 0x00, 0x00"
#define ROBUST_LIST2_TRY_UNLOCK_REGS(lock, pop) "c" (lock), "b" (0U), "d" (pop)
#endif

/*
 * Expected value (@tid) into %eax, then the compare-exchange; on failure
 * to @busy, else the store.  "memory": the release orders the critical
 * section's accesses before it, as any unlock must.
 */
#define ROBUST_LIST2_TRY_UNLOCK_ASM(store, tid, lock, pop, busy)		\
	__asm__ __volatile__ goto("mov{l %k[rl2_tid], %%eax| eax, %k[rl2_tid]}\n\t" \
				  ROBUST_LIST2_TRY_UNLOCK_CAS "\n\t"		\
				  "jnz %l[" #busy "]\n\t"			\
				  store						\
				  : /* no outputs */				\
				  : [rl2_tid] "r" (tid),			\
				    ROBUST_LIST2_TRY_UNLOCK_REGS(lock, pop)	\
				  : "eax", "memory", "cc"			\
				  : busy)
#endif

#if defined(__aarch64__) && !defined(__ILP32__)
/*
 * The lock in x0, the tid in w1, pop in x2; w16 and w17 are scratch (the
 * registers the encodings below name).  The exclusive form:
 *
 *	1: ldxr  w16, [x0]
 *	   cmp   w16, w1
 *	   b.ne  <caller's slow path>
 *	   stlxr w17, wzr, [x0]		release: earlier accesses first
 *	   cbnz  w17, 1b		lost the reservation: again
 *	   str   xzr, [x2]		(str wzr for a 32-bit field)
 *
 * released once the stlxr stored (w17 = 0), so its window is the cbnz and
 * the str.  The LSE form:
 *
 *	   mov   w16, w1
 *	   casl  w16, wzr, [x0]		release; w16 = the word seen
 *	   cmp   w16, w1
 *	   b.ne  <caller's slow path>
 *	   str   xzr, [x2]
 *
 * released if w16 equals w1 after the casl: the cmp, the b.ne and the str.
 */
#define ROBUST_LIST2_TRY_UNLOCK_LLSC_HEAD ".inst 0x885f7c10, 0x6b01021f"
#define ROBUST_LIST2_TRY_UNLOCK_LLSC_TAIL ".inst 0x8811fc1f, 0x35ffff91"
#define ROBUST_LIST2_TRY_UNLOCK_LSE_HEAD ".inst 0x2a0103f0, 0x88b0fc1f, 0x6b01021f"
#define ROBUST_LIST2_TRY_UNLOCK64_STORE ".inst 0xf900005f"
#define ROBUST_LIST2_TRY_UNLOCK32_STORE ".inst 0xb900005f"

/* Both forms; "memory": the release orders the critical section before it. */
#define ROBUST_LIST2_TRY_UNLOCK_ASM_FORM(head, tail, store, tid, lock, pop, busy)	\
	do {									\
		register uint32_t *rl2_x0 __asm__("x0") = (lock);		\
		register uint64_t rl2_x1 __asm__("x1") = (tid);			\
		register void *rl2_x2 __asm__("x2") = (pop);			\
		__asm__ __volatile__ goto(head "\n\t"				\
					  "b.ne %l[" #busy "]\n\t"		\
					  tail "\n\t"				\
					  store					\
					  : /* no outputs */			\
					  : "r" (rl2_x0), "r" (rl2_x1), "r" (rl2_x2) \
					  : "x16", "x17", "memory", "cc"	\
					  : busy);				\
	} while (0)

#define ROBUST_LIST2_TRY_UNLOCK_ASM_LLSC(store, tid, lock, pop, busy)		\
	ROBUST_LIST2_TRY_UNLOCK_ASM_FORM(ROBUST_LIST2_TRY_UNLOCK_LLSC_HEAD,	\
					 ROBUST_LIST2_TRY_UNLOCK_LLSC_TAIL,	\
					 store, tid, lock, pop, busy)
#define ROBUST_LIST2_TRY_UNLOCK_ASM_LSE(store, tid, lock, pop, busy)		\
	ROBUST_LIST2_TRY_UNLOCK_ASM_FORM(ROBUST_LIST2_TRY_UNLOCK_LSE_HEAD, "",	\
					 store, tid, lock, pop, busy)

#ifdef __ARM_FEATURE_ATOMICS
#define ROBUST_LIST2_TRY_UNLOCK_ASM ROBUST_LIST2_TRY_UNLOCK_ASM_LSE
#else
#define ROBUST_LIST2_TRY_UNLOCK_ASM ROBUST_LIST2_TRY_UNLOCK_ASM_LLSC
#endif
#endif

/*
 * One definition for every architecture: each block above gives the
 * window's instructions (ROBUST_LIST2_TRY_UNLOCK_ASM and the two stores).
 */
#ifdef ROBUST_LIST2_HAVE_TRY_UNLOCK_INLINE
static inline uint32_t robust_list2_try_unlock64_inline(uint32_t *lock, uint32_t tid,
							 uint64_t *pop)
{
	ROBUST_LIST2_TRY_UNLOCK_ASM(ROBUST_LIST2_TRY_UNLOCK64_STORE, tid, lock, pop, rl2_busy);
	return tid;
rl2_busy:
	return ROBUST_LIST2_TRY_UNLOCK_BUSY(lock, tid);
}

static inline uint32_t robust_list2_try_unlock32_inline(uint32_t *lock, uint32_t tid,
							 uint32_t *pop)
{
	ROBUST_LIST2_TRY_UNLOCK_ASM(ROBUST_LIST2_TRY_UNLOCK32_STORE, tid, lock, pop, rl2_busy);
	return tid;
rl2_busy:
	return ROBUST_LIST2_TRY_UNLOCK_BUSY(lock, tid);
}
#endif

/*
 * Register, at @index of this thread, a list that lives in a guest address
 * space (an emulator's guest): @head and every pointer in the list are
 * guest addresses, host address = @base + guest address.  @cmd:
 * FUTEX_ROBUST_LIST_CMD_SET_64 or _SET_32.  @head 0 empties the slot;
 * @base 0 is set_robust_list2().
 */
int robust_list2_set_based(uint64_t head, uint64_t base, unsigned int index,
			   unsigned int cmd);

/*
 * Slot @index of thread @pid (0: this thread): its head as set (the guest
 * address for a based slot), its base (0: none) and kind.  Any pointer may
 * be NULL.
 */
int robust_list2_get_based(int pid, unsigned int index, uint64_t *head,
			   uint64_t *base, unsigned int *type);

/* The library's version string (PACKAGE_VERSION of dkms.conf). */
const char *robust_list2_version(void);

/* The device descriptor (opened on demand), or -1 with errno set. */
int robust_list2_fd(void);

/* Values of robust_list2_backend(). */
#define ROBUST_LIST2_BACKEND_DEVICE	1	/* /dev/robust_list2, the module */
#define ROBUST_LIST2_BACKEND_SYSCALL	2	/* the kernel's own system calls */

/*
 * Which backend answers set_robust_list2(), get_robust_list2(),
 * robust_list2_create() and robust_list2_info() in this process: the
 * kernel's system calls (only in a library built with NATIVE=, on a kernel
 * that has them), else the device; -1 with errno ENOSYS when neither is
 * there.
 */
int robust_list2_backend(void);

/* Fill @info from the module (ROBUST_LIST2_IOC_INFO). */
int robust_list2_info(struct robust_list2_info *info);

/* Fill @st with the module's counters (ROBUST_LIST2_IOC_STATS). */
int robust_list2_stats(struct robust_list2_stats *st);

/*
 * Fill @f with the fault-ins the caller's user has in flight for its
 * exits, and their limits (ROBUST_LIST2_IOC_FAULTS).
 */
int robust_list2_faults(struct robust_list2_faults *f);

#ifdef __cplusplus
}
#endif

#endif /* ROBUST_LIST2_H */
