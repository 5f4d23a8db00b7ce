/* SPDX-License-Identifier: GPL-2.0 */
/*
 * make fuzz: what the parts of the controller share (rl2fz.c has the map).
 *   rl2fz_input.c  the input: parse() turns bytes into a program
 *   rl2fz_model.c  the model of the walk: what the module must leave
 *   rl2fz_fuse.c   the hostile pages: the FUSE mounts and what the
 *                  controller sees of each list page
 *   rl2fz.c        one program: the servers, the check, libFuzzer's hooks
 */
#ifndef RL2FZ_INT_H
#define RL2FZ_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "rl2fz.h"

#define OWNER_DIED	0x40000000U
#define WAITERS		0x80000000U
#define TID_MASK	0x3fffffffU

#define ARENA_BYTES	(RL2FZ_PAGES * RL2FZ_PAGE)
#define ARENA_WORDS	(ARENA_BYTES / 4)
#define LISTS_LO	(RL2FZ_ARENA + RL2FZ_CTL_PAGES * RL2FZ_PAGE)
#define LISTS_HI	(RL2FZ_ARENA + ARENA_BYTES)

/* ---- the input (rl2fz_input.c) ---- */

struct prog {
	bool abi32, hostile;
	unsigned int death, nthreads;
};

struct list {
	bool is32, based;
	uint64_t ghead, base;	/* guest head; host = base + guest */
	unsigned int n;
	uint64_t entry[8];	/* guest addresses */
};

extern struct list lists[RL2FZ_LISTS];
extern unsigned int nlists, owner_pid_other;
extern struct rl2fz_ctl *const ctl;
extern uint8_t *const arena;

/* The program in @data into ctl and the arena's list pages. */
void parse(const uint8_t *data, size_t size, struct prog *pg, bool fuse);

/* ---- the hostile pages (rl2fz_fuse.c) ---- */

/* The FUSE mounts are up (else the hostile kinds are not used). */
bool fz_fuse_start(void);
bool fz_fuse_up(void);
void fz_fuse_stop(void);
/* The program's list pages into the files that back them. */
void fz_fuse_stage(void);
/* After the child is ready: start the writeback of its never-written pages. */
void fz_fuse_arm(void);
/* Then: what it sees (@child) and what we see (@ours). */
void fz_fuse_before(uint8_t *child, uint8_t *ours);
/* After its death: what we see now (@ours: what we saw before). */
void fz_fuse_after(uint8_t *now, const uint8_t *ours);
/* A program used the never-answering mount: remount it (aborting its stuck I/O). */
void fz_fuse_reset(void);
/* Can the controller read page @pg's words after the death? */
bool fz_observable(unsigned int pg);
bool fz_stall_kind(unsigned int k);

/* ---- the model of the walk (rl2fz_model.c) ---- */

enum {
	NAMED_RECOVER = 1,	/* the walk must leave ex.val there */
	NAMED_WAKE = 2,		/* and wake a waiter */
	NAMED_MAYBE = 4,	/* ex.val, or the word as it was (given up) */
};

struct expect {
	uint32_t val[ARENA_WORDS];	/* the words as the walks leave them */
	uint8_t named[ARENA_WORDS];	/* NAMED_* */
	bool unknown;			/* a list left what we can follow */
	unsigned int tmo_min, tmo_max;	/* io_timeouts the walks must / may count */
	unsigned int stalls;		/* walks that met a page never answered */
};

extern struct expect ex;
extern uint8_t before[ARENA_BYTES];	/* the child's memory when ready */

void read_maps(int pid);
void model(const struct prog *pg);

#endif /* RL2FZ_INT_H */
