/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * robust_list2 — the ioctl ABI of /dev/robust_list2.
 *
 * The device delivers the proposed set_robust_list2()/get_robust_list2()
 * futex API (v6 series) to stock kernels.  Every call acts on the calling
 * *thread*, never on the file: the fd is only a door into the module, so it
 * may be shared across fork() and between threads freely.
 *
 * Layout rules: fixed-width fields only, every struct a multiple of 8 bytes
 * and identical for 32- and 64-bit callers (so compat_ioctl needs no
 * translation), user addresses carried in __u64, padding and unknown flags
 * rejected with EINVAL so they can be given meaning later.  A struct that
 * grows gets a new command (the size is part of the number).
 *
 * ioctl type 0xBE, numbers 0x00-0x1F.  Checked against the newest
 * Documentation/userspace-api/ioctl/ioctl-number.rst we could read (Linux
 * 7.x): 0xB2 (papr), 0xB8 (mshv), 0xBA (liveupdate) and 0xBB are taken,
 * 0xBC-0xBF and 0xC1-0xC9 are unassigned.
 *
 * Commands, with direction from the caller's point of view and every errno:
 *
 * ROBUST_LIST2_IOC_INFO   (out)  struct robust_list2_info
 *	What this module offers.  EFAULT: bad pointer.
 *
 * ROBUST_LIST2_IOC_CREATE (in)   struct robust_list2_set
 *	Like SET with the lowest empty slot (index is ignored and must be 0):
 *	returns the slot used.  ENOSPC: all slots in use; EINVAL and
 *	EOPNOTSUPP as SET (cmd LIST_LIMIT and head 0 are EINVAL here).
 *
 * ROBUST_LIST2_IOC_UNLOCK (in/out) struct robust_list2_unlock
 *	Release a robust futex in one call: the word at @uaddr, owned by
 *	@tid, is set to 0 (FUTEX_UNLOCK_PI with ROBUST_LIST2_UNLOCK_PI), the
 *	pending-op field at @pop (if non-zero; 4 bytes with
 *	ROBUST_LIST2_UNLOCK_POP32, else 8) is cleared, then, if the word had
 *	FUTEX_WAITERS set, up to @nr_wake waiters are woken.  A thread
 *	cannot die inside a system call, so no exit walk sees the word
 *	released with the pending field still set.
 *	Returns the number of waiters woken (0 for PI); @old is the word seen.
 *	EINVAL: unknown flags, @uaddr not 4-byte aligned, @pop not aligned
 *		to its width, @nr_wake 0 (non-PI).
 *	EPERM:  the owner TID in the word is not @tid (nothing changed).
 *	EFAULT: @uaddr or @pop not writable (if @pop faults, the word is
 *		already released and the waiters woken, as with mainline
 *		FUTEX_ROBUST_UNLOCK).
 *	Other threads changing the word meanwhile (setting FUTEX_WAITERS)
 *	make it retry until it wins; only a fatal signal ends that (EINTR,
 *	never seen: the thread dies holding the lock, which its exit walk
 *	recovers).
 *	Errors of FUTEX_UNLOCK_PI for ROBUST_LIST2_UNLOCK_PI.
 *
 * ROBUST_LIST2_IOC_SET_WINDOW (in) struct robust_list2_window
 *	Tell the module where this process's try-unlock code keeps the
 *	pending pointer between its successful compare-exchange and the store
 *	that clears *pop (see libshim/try_unlock_*.S).  Stored in the open
 *	file; slots set through that file use it.  If a thread dies with its
 *	user ip in a window and ZF set, the module finishes the unlock (clears
 *	the pending field (E)DX points to, if it is one of the thread's
 *	registered pending fields) before walking, so the released word is
 *	never touched.  EINVAL: start > end, a window over 64 bytes, non-zero
 *	flags or reserved; EBUSY: this file already has a window.
 *
 * ROBUST_LIST2_IOC_STATS  (out)  struct robust_list2_stats
 *	Module-wide counters since load (for status tools and tests).
 *	EPERM:  the caller lacks CAP_SYS_ADMIN (the counters describe every
 *		user's threads).
 *	EFAULT: bad pointer.
 *
 * ROBUST_LIST2_IOC_FAULTS (out)  struct robust_list2_faults
 *	The fault-ins that exits of the caller's user (its account: a kuid,
 *	with every user namespace it made) have in flight, and the limits
 *	they are held to.  Anyone may ask, for their own account only.
 *	EFAULT: bad pointer.
 *
 * ROBUST_LIST2_IOC_SET    (in)   struct robust_list2_set
 *	set_robust_list2(head, index, cmd, flags) for the calling thread.
 *	Returns 0, or the number of slots for ROBUST_LIST2_CMD_LIST_LIMIT.
 *	EINVAL: flags or pad non-zero, cmd unknown, index >= slot count,
 *		head not 8-byte aligned (SET_64) or 4-byte aligned (SET_32),
 *		a SET_32 head above 4 GiB (its list's pointers are 32-bit),
 *		a head already registered in another slot of this thread.
 *		Checked in that order, as the v6 syscall does.
 *	EOPNOTSUPP: ROBUST_LIST2_CMD_SET_64 from a 32-bit (compat) caller.
 *	ENOMEM: no memory for the thread's slot table.
 *	ETOOMANYREFS: this file has a try-unlock window and the thread's
 *		slots were set through files with ROBUST_LIST2_NR_SLOTS other
 *		windows already (nothing changed; a file without a window
 *		sets the slot, as the library does then).  Also for CREATE
 *		and SET_BASED.
 *	EFAULT: bad pointer to the struct.
 *	head == 0 empties the slot.  Setting a slot twice overwrites it.
 *
 * ROBUST_LIST2_IOC_GET    (in/out) struct robust_list2_get
 *	get_robust_list2(pid, head_ptr, index, flags).  On success the head is
 *	stored at head_ptr as a pointer of the *caller's* width (8 bytes, or 4
 *	for a 32-bit caller), zero-extended, NULL for an empty slot; it is also
 *	returned in @head and its kind in @type.
 *	EINVAL: index >= slot count, flags non-zero (in that order).
 *	ESRCH:  no thread with TID @pid in the caller's pid namespace.
 *	EPERM:  the caller may not ptrace-read the target
 *		(PTRACE_MODE_READ_REALCREDS, LSMs included; checked under the
 *		target's exec_update_lock, after taking a reference on it).
 *	EINTR:  a fatal signal arrived while waiting for exec_update_lock.
 *	EOVERFLOW: a 32-bit caller asked for a 64-bit head above 4 GiB.
 *	EFAULT: head_ptr (or the struct) is not writable.
 *
 * ROBUST_LIST2_IOC_SET_BASED (in) struct robust_list2_set_based
 *	Like SET (SET_64 or SET_32) for a list that lives in a guest address
 *	space, as an emulator that does not map guest memory 1:1 keeps it
 *	(qemu-user's guest_base): @head and every pointer read from the list
 *	(next, list_op_pending, and the futex word address after
 *	futex_offset, wrapped at 32 bits in guest space for SET_32) are guest
 *	addresses, and the module reads and writes host address @base +
 *	guest.  The walk ends quietly (counted in @faults) where base +
 *	pointer overflows or is not below the dying process's TASK_SIZE.
 *	The base grants nothing new: it is only arithmetic on addresses of
 *	the dying thread's own address space, which the walk reaches with the
 *	thread's own user access rights, as with any list; a base into kernel
 *	space or unmapped memory ends the walk.  @base 0 is SET exactly.
 *	GET (and get_robust_list2()) answers the guest head as set;
 *	GET_BASED also answers the base.  The "same head in two slots" rule
 *	compares host addresses (base + head).  @head 0 empties the slot
 *	(@base is then ignored).  Returns 0.
 *	EINVAL: flags or pad non-zero, cmd not SET_64 or SET_32, index >=
 *		slot count, head not 8-byte aligned (SET_64) or 4-byte
 *		aligned (SET_32), a SET_32 head above 4 GiB, base not aligned
 *		as the head must be, base + head above 2^64 - 1, the list
 *		already registered in another slot of this thread.
 *	EOPNOTSUPP: ROBUST_LIST2_CMD_SET_64 from a 32-bit (compat) caller.
 *	ENOMEM: no memory for the thread's slot table or base table.
 *	EFAULT: bad pointer to the struct.
 *
 * ROBUST_LIST2_IOC_GET_BASED (in/out) struct robust_list2_get_based
 *	A slot's guest head, base and kind: GET without a head_ptr, for
 *	based slots (a slot set without a base answers base 0).
 *	EINVAL, ESRCH, EPERM, EINTR: as GET.
 *	EFAULT: bad pointer to the struct.
 */
#ifndef _UAPI_LINUX_ROBUST_LIST2_H
#define _UAPI_LINUX_ROBUST_LIST2_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define ROBUST_LIST2_DEVICE		"/dev/robust_list2"
/*
 * Raised when something user-visible changes.  2: the prctl(2) fast path
 * and its feature bit are gone (ROBUST_LIST2_F_PRCTL's bit 8 is not reused).
 */
#define ROBUST_LIST2_ABI_VERSION	2

/* Slots per thread: what ROBUST_LIST2_CMD_LIST_LIMIT returns. */
#define ROBUST_LIST2_NR_SLOTS		8

/* Values of robust_list2_set.cmd: the v6 FUTEX_ROBUST_LIST_CMD_* numbers. */
#define ROBUST_LIST2_CMD_SET_64		0
#define ROBUST_LIST2_CMD_SET_32		1
#define ROBUST_LIST2_CMD_LIST_LIMIT	2

/* Values of robust_list2_get.type. */
#define ROBUST_LIST2_TYPE_EMPTY		0
#define ROBUST_LIST2_TYPE_64		1
#define ROBUST_LIST2_TYPE_32		2

/* Bits of robust_list2_info.features. */
#define ROBUST_LIST2_F_LIST64		(1ULL << 0) /* SET_64 (64-bit callers) */
#define ROBUST_LIST2_F_LIST32		(1ULL << 1) /* SET_32 */
#define ROBUST_LIST2_F_CYCLE_SAFE	(1ULL << 2) /* cycles detected, no 2048 cap */
#define ROBUST_LIST2_F_PRIVATE_WAKE	(1ULL << 3) /* also wakes FUTEX_WAIT_PRIVATE waiters */
#define ROBUST_LIST2_F_EXEC_WALK	(1ULL << 4) /* exec walks and empties slots */
#define ROBUST_LIST2_F_CREATE		(1ULL << 5) /* ROBUST_LIST2_IOC_CREATE */
#define ROBUST_LIST2_F_UNLOCK		(1ULL << 6) /* ROBUST_LIST2_IOC_UNLOCK */
#define ROBUST_LIST2_F_UNLOCK_WINDOW	(1ULL << 7) /* ROBUST_LIST2_IOC_SET_WINDOW */
/* bit 8: the prctl(2) fast path of ABI version 1, removed; never reused */
#define ROBUST_LIST2_F_BASED		(1ULL << 9) /* ROBUST_LIST2_IOC_SET_BASED, _GET_BASED */
#define ROBUST_LIST2_F_INLINE_WINDOW	(1ULL << 10) /* try-unlock copies known by their bytes */
#define ROBUST_LIST2_F_FAULTS		(1ULL << 11) /* ROBUST_LIST2_IOC_FAULTS, info.io_wait_ms */

/* Bits of robust_list2_unlock.flags. */
#define ROBUST_LIST2_UNLOCK_POP32	(1U << 0) /* @pop is a 32-bit field */
#define ROBUST_LIST2_UNLOCK_PRIVATE	(1U << 1) /* FUTEX_PRIVATE_FLAG semantics */
#define ROBUST_LIST2_UNLOCK_PI		(1U << 2) /* FUTEX_UNLOCK_PI, not store + wake */

struct robust_list2_info {
	__u32 abi_version;	/* out: ROBUST_LIST2_ABI_VERSION */
	__u32 nr_slots;		/* out: slots per thread (8) */
	__u64 walk_limit;	/* out: most entries walked per exit, all slots */
	__u64 features;		/* out: ROBUST_LIST2_F_* */
	__u32 io_wait_ms;	/* out: an exit waits for no page past this, from its walk's start */
	__u32 pad;		/* out: zero */
	__u64 reserved[4];	/* out: zero */
};

struct robust_list2_set {
	__u64 head;		/* in: list head address, 0 empties the slot */
	__u32 index;		/* in: slot, 0 .. nr_slots - 1 */
	__u32 cmd;		/* in: ROBUST_LIST2_CMD_* */
	__u32 flags;		/* in: must be 0 */
	__u32 pad;		/* in: must be 0 */
};

struct robust_list2_get {
	__u64 head_ptr;		/* in: where to store the head (caller-sized) */
	__u64 head;		/* out: head address, 0 when the slot is empty */
	__s32 pid;		/* in: thread id, 0 for the calling thread */
	__u32 index;		/* in: slot */
	__u32 flags;		/* in: must be 0 */
	__u32 type;		/* out: ROBUST_LIST2_TYPE_* */
};

struct robust_list2_unlock {
	__u64 uaddr;		/* in: the futex word */
	__u64 pop;		/* in: the list_op_pending field, or 0 */
	__u32 tid;		/* in: the owner TID the word must hold */
	__u32 flags;		/* in: ROBUST_LIST2_UNLOCK_* */
	__u32 nr_wake;		/* in: waiters to wake (non-PI) */
	__u32 old;		/* out: the word before the unlock */
};

struct robust_list2_window {
	__u64 start64;		/* in: window of the 64-bit-pending variant */
	__u64 end64;		/*     [start64, end64) */
	__u64 start32;		/* in: window of the 32-bit-pending variant */
	__u64 end32;
	__u32 flags;		/* in: must be 0 */
	__u32 pad;		/* in: must be 0 */
	__u64 reserved[3];	/* in: must be 0 */
};

struct robust_list2_set_based {
	__u64 head;		/* in: guest address of the head, 0 empties the slot */
	__u64 base;		/* in: host address = base + guest address */
	__u32 index;		/* in: slot, 0 .. nr_slots - 1 */
	__u32 cmd;		/* in: ROBUST_LIST2_CMD_SET_64 or _SET_32 */
	__u32 flags;		/* in: must be 0 */
	__u32 pad;		/* in: must be 0 */
};

struct robust_list2_get_based {
	__u64 head;		/* out: guest head as set, 0 when the slot is empty */
	__u64 base;		/* out: its base, 0 for a slot set without one */
	__s32 pid;		/* in: thread id, 0 for the calling thread */
	__u32 index;		/* in: slot */
	__u32 flags;		/* in: must be 0 */
	__u32 type;		/* out: ROBUST_LIST2_TYPE_* */
};

struct robust_list2_stats {
	__u64 tasks;		/* out: threads with at least one slot in use */
	__u64 walks;		/* out: lists walked at exit or exec */
	__u64 entries;		/* out: list entries visited */
	__u64 recovered;	/* out: futex words marked FUTEX_OWNER_DIED */
	__u64 woken;		/* out: waiters woken by the walks */
	__u64 cycles;		/* out: walks ended by cycle detection */
	__u64 limited;		/* out: walks ended by walk_limit */
	__u64 faults;		/* out: walks ended by a fault or bad pointer */
	__u64 fixups;		/* out: try-unlocks finished for dying threads */
	__u64 io_timeouts;	/* out: accesses given up at their exit's deadline */
	__u64 faults_in_flight;	/* out: fault-ins queued or running, all users */
	__u64 faults_pinned;	/* out: of those, running on alone (each pins its mm) */
	__u64 reserved[4];	/* out: zero */
};

struct robust_list2_faults {
	__u32 in_flight;	/* out: the account's fault-ins queued or running */
	__u32 pinned;		/* out: of those, running on after their thread gave up */
	__u32 per_user;		/* out: the account's limit (faults_per_user) */
	__u32 per_mm;		/* out: one process's limit (faults_per_mm) */
	__u32 shared;		/* out: beyond each account's first, all accounts together */
	__u32 pad;		/* out: zero */
	__u64 reserved[3];	/* out: zero */
};

#define ROBUST_LIST2_IOC_TYPE	0xBE

#define ROBUST_LIST2_IOC_INFO	_IOR (ROBUST_LIST2_IOC_TYPE, 0x00, struct robust_list2_info)
#define ROBUST_LIST2_IOC_SET	_IOW (ROBUST_LIST2_IOC_TYPE, 0x01, struct robust_list2_set)
#define ROBUST_LIST2_IOC_GET	_IOWR(ROBUST_LIST2_IOC_TYPE, 0x02, struct robust_list2_get)
#define ROBUST_LIST2_IOC_STATS	_IOR (ROBUST_LIST2_IOC_TYPE, 0x03, struct robust_list2_stats)
#define ROBUST_LIST2_IOC_CREATE	_IOW (ROBUST_LIST2_IOC_TYPE, 0x04, struct robust_list2_set)
#define ROBUST_LIST2_IOC_UNLOCK	_IOWR(ROBUST_LIST2_IOC_TYPE, 0x05, struct robust_list2_unlock)
#define ROBUST_LIST2_IOC_SET_WINDOW _IOW (ROBUST_LIST2_IOC_TYPE, 0x06, struct robust_list2_window)
#define ROBUST_LIST2_IOC_SET_BASED _IOW (ROBUST_LIST2_IOC_TYPE, 0x07, struct robust_list2_set_based)
#define ROBUST_LIST2_IOC_GET_BASED _IOWR(ROBUST_LIST2_IOC_TYPE, 0x08, struct robust_list2_get_based)
#define ROBUST_LIST2_IOC_FAULTS	_IOR (ROBUST_LIST2_IOC_TYPE, 0x09, struct robust_list2_faults)

#endif /* _UAPI_LINUX_ROBUST_LIST2_H */
