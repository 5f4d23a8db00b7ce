/* SPDX-License-Identifier: GPL-2.0 */
/*
 * make fuzz: what the libFuzzer controller (rl2fz*.c) and its executor
 * servers (rl2fz_exec.c, built 64- and 32-bit) share.  The controller
 * maps a memfd of RL2FZ_PAGES pages at RL2FZ_ARENA, writes each program
 * into its first pages (struct rl2fz_ctl) and the lists into the others,
 * and starts the servers once with the memfd as descriptor 3; each maps
 * it at the same address (below 4 GiB, so 32-bit lists and 32-bit
 * executors reach it) and forks one child per program.  The layout is
 * the same for both ABIs (fixed-width fields, u64 aligned to 8 by hand;
 * checked by the static asserts below).
 */
#ifndef RL2FZ_H
#define RL2FZ_H

#include <stdint.h>
#include <stddef.h>

#define RL2FZ_ARENA	0x20000000UL
#define RL2FZ_PAGE	4096
#define RL2FZ_CTL_PAGES	2		/* struct rl2fz_ctl */
#define RL2FZ_PAGES	10		/* 2..9: lists; 6..9 may be hostile */
#define RL2FZ_PROT_FIRST 6
#define RL2FZ_FD	3

#define RL2FZ_THREADS	4		/* the owner (0) and up to 3 others */
#define RL2FZ_LISTS	4
#define RL2FZ_FILLS	160
#define RL2FZ_OPS	12
#define RL2FZ_FIELDS	9
#define RL2FZ_WAITERS	4
#define RL2FZ_SLOTS	8

typedef uint64_t rl2fz_u64 __attribute__((aligned(8)));

/* How the owner dies once the controller says go. */
enum { RL2FZ_DIE_EXIT, RL2FZ_DIE_EXIT_GROUP, RL2FZ_DIE_KILL, RL2FZ_DIE_EXEC, RL2FZ_DIE_NR };

/*
 * What backs list page 6..9 in the child.  The first four are the arena's
 * memfd page as it is, read-only, PROT_NONE or dropped (MADV_DONTNEED);
 * the others replace it with a page of a file of the controller's FUSE
 * mounts (RL2FZ_FUSE_*), page p - 6 of the file unless said otherwise:
 *   SHARED, PRIVATE   "s" (MAP_SHARED) or "v" (MAP_PRIVATE), answered at once
 *   RANDOM(_PRIV)     "m" page 0, MADV_RANDOM, read synchronously by the
 *                     walk's worker (nobody touches it before), answered
 *                     at once with the controller's content
 *   NOREAD(_PRIV)     "r", whose READ is never answered (PRIV: MAP_PRIVATE
 *                     and MADV_RANDOM)
 *   NOWRITE           "w0".."w3" page 0, whose WRITE is never answered:
 *                     its READ brings the child's words, the child dirties
 *                     it once, then the controller starts its writeback,
 *                     so that a store waits in fuse_page_mkwrite()
 */
enum {
	RL2FZ_K_RW, RL2FZ_K_RO, RL2FZ_K_NONE, RL2FZ_K_DONTNEED,
	RL2FZ_K_SHARED, RL2FZ_K_PRIVATE, RL2FZ_K_RANDOM, RL2FZ_K_RANDOM_PRIV,
	RL2FZ_K_NOREAD, RL2FZ_K_NOREAD_PRIV, RL2FZ_K_NOWRITE, RL2FZ_K_NR
};

/* The controller's FUSE mounts: answered at once, and never answered. */
#define RL2FZ_FUSE_PROMPT	"/tmp/rl2fz-fuse-p"
#define RL2FZ_FUSE_STALL	"/tmp/rl2fz-fuse-x"

/* An op's field: a value, or the TID of executor thread @val. */
enum { RL2FZ_F_VAL, RL2FZ_F_TID };

/* Where an op's argument points. */
enum { RL2FZ_ARG_BUF, RL2FZ_ARG_NULL, RL2FZ_ARG_PAGE6, RL2FZ_ARG_RAW, RL2FZ_ARG_KERNEL, RL2FZ_ARG_NR };

/* The commands an op calls, in uapi order, then a raw number. */
#define RL2FZ_NR_CMDS	10
#define RL2FZ_NR_RAW	RL2FZ_NR_CMDS

struct rl2fz_fill {			/* *(u32 *)(ARENA + off) = val | (self ? owner TID : 0) */
	uint32_t off, val, self, pad;
};

struct rl2fz_reg {			/* the owner registers list k */
	rl2fz_u64 head;			/* guest address */
	rl2fz_u64 base;
	uint32_t slot, how;		/* how: 0 SET, 1 CREATE, 2 SET_BASED */
	uint32_t is32, pad;
};

struct rl2fz_op {
	uint32_t thread, nr;		/* nr: the commands, RL2FZ_NR_RAW raw */
	uint32_t raw_cmd, arg;		/* arg: RL2FZ_ARG_* */
	rl2fz_u64 arg_raw;
	uint32_t size[RL2FZ_FIELDS];	/* field widths (4 or 8), 0 ends */
	uint32_t kind[RL2FZ_FIELDS];
	rl2fz_u64 val[RL2FZ_FIELDS];
	int32_t ret, err;		/* out */
};

struct rl2fz_slot {			/* out: GET_BASED of each thread's slot */
	rl2fz_u64 head, base;
	uint32_t type;
	int32_t err;
};

struct rl2fz_wait {
	uint32_t off, val;		/* in: the word, its value when the waiter sleeps */
	uint32_t tid, state;		/* out: RL2FZ_W_* */
};

enum { RL2FZ_W_IDLE, RL2FZ_W_WAITING, RL2FZ_W_WOKEN, RL2FZ_W_CHANGED, RL2FZ_W_TIMEOUT, RL2FZ_W_OTHER };

/*
 * A persistent server and the controller, through futex words: the
 * controller bumps @seq, the server answers by setting @done to it.  An
 * executor server (rl2fz-exec --serve) reads the module's counters, forks
 * the child that runs the program (@pid), reaps it, reads the counters
 * again and answers (@status: the child's wait status).  The waiter
 * server (rl2fz-exec --wait) starts one thread per waiter at an odd @seq
 * and joins them at the next, even, one.
 */
struct rl2fz_srv {
	uint32_t seq, done;
	int32_t pid, status;
	uint32_t fuse_gen;		/* controller: the stalling mount changed */
	uint32_t up;			/* server: started, files open */
};

struct rl2fz_ctl {
	uint32_t ready, go, done;	/* child: set up; controller: die; threads done */
	uint32_t death, nthreads;
	uint32_t tids[RL2FZ_THREADS];
	uint32_t kind[RL2FZ_PAGES];	/* RL2FZ_K_* */
	uint32_t nfill, nreg, nops, nwait;
	uint32_t bad_op, bad_errno;	/* out: 1 + op that got an undocumented errno */
	struct rl2fz_fill fill[RL2FZ_FILLS];
	struct rl2fz_reg reg[RL2FZ_LISTS];
	struct rl2fz_op ops[RL2FZ_OPS];
	struct rl2fz_slot slots[RL2FZ_THREADS][RL2FZ_SLOTS];
	struct rl2fz_wait wait[RL2FZ_WAITERS];
	uint32_t wait_ready, pad;
	/* the servers: the two executors (64, 32-bit), the waiters */
	struct rl2fz_srv srv[2], wsrv;
	rl2fz_u64 io_timeouts[2];	/* the module's, before the child and after */
	rl2fz_u64 faults_in_flight;	/* after */
	uint32_t fuse_ok, pad2;		/* controller: the FUSE mounts are up */
	rl2fz_u64 t_ns[8];		/* where the server's and child's time goes */
};

_Static_assert(sizeof(struct rl2fz_ctl) <= RL2FZ_CTL_PAGES * RL2FZ_PAGE, "the program fits");
_Static_assert(sizeof(struct rl2fz_op) == 176, "one layout for both ABIs");
_Static_assert(sizeof(struct rl2fz_ctl) == 5912, "one layout for both ABIs");
_Static_assert(offsetof(struct rl2fz_ctl, reg) % 8 == 0, "one layout for both ABIs");
_Static_assert(offsetof(struct rl2fz_ctl, io_timeouts) % 8 == 0, "one layout for both ABIs");

#endif /* RL2FZ_H */
