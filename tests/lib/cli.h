/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the suites of robust-list2, the command-line tool, share
 * (t_cli_show, t_cli_module).
 *
 * The tool is $RL2_CLI, else ../tools/robust-list2 next to the test binary
 * (tests/vm-files puts it in the guest); cli_group_setup() finds it.  It
 * runs by fork + exec with its stdout and stderr on pipes, not popen():
 * every wait is bounded, and the child can drop to another uid first.
 * The test process never opens the device itself (a descriptor would pin
 * the module and spoil the unload cases).
 *
 * A forked target process (setup_target(), tgt) holds known lists: its
 * leader a 64-bit list of three locks (one contended, one PI) in slot 2,
 * a second thread a 32-bit list below 4 GiB with a pending op in slot 5,
 * a third thread a list with a cycle that never returns to its head in
 * slot 0 and one that runs into unmapped memory in slot 7.
 */
#ifndef TH_CLI_H
#define TH_CLI_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "helpers.h"
#include "json.h"

#define NOBODY		65534
#define DEFAULT_LIMIT	(1 << 20)	/* the module's default walk_limit */
#define YAMA_SCOPE	"/proc/sys/kernel/yama/ptrace_scope"

extern char cli[PATH_MAX];		/* the tool */

static inline uint64_t addr(const void *p)
{
	return (uintptr_t)p;
}

struct run {
	int status;		/* exit status, 128 + signal, -1 on timeout */
	char *out;		/* stdout */
	char *err;		/* stderr */
	size_t nout, nerr;
};

void run_free(struct run *r);
/*
 * Run the tool as @uid (0: as we are) with the arguments in @fmt, split at
 * spaces.  Its output is echoed as TAP diagnostics.
 */
int __attribute__((format(printf, 3, 4)))
run_cli(struct run *r, uid_t uid, const char *fmt, ...);
/* Run with the arguments in @fmt and parse stdout as JSON; the caller frees both. */
struct jv *__attribute__((format(printf, 4, 5)))
run_json(struct run *r, int expect, uid_t uid, const char *fmt, ...);
bool module_loaded(void);

/* 64-bit lists, anywhere (normally above 4 GiB). */
struct target_hi {
	struct robust_list_head h64;	/* leader, slot 2 */
	struct th_lock64 l64[3];
	struct robust_list_head hcyc;	/* thread C, slot 0: cycle c0 c1 c2 c1 */
	struct th_lock64 cyc[3];
	struct robust_list_head hbad;	/* thread C, slot 7: bad -> BAD_ENTRY */
	struct th_lock64 bad;
};

#define BAD_ENTRY	0x1000ULL	/* never mapped (below mmap_min_addr) */

/* Control block and the 32-bit list, below 4 GiB. */
struct target_lo {
	uint32_t ready;			/* threads registered */
	uint32_t go;			/* parent: time to exit */
	int32_t err;
	pid_t pid, tid_a, tid_b, tid_c;
	uid_t uid;
	struct robust_list_head32 h32;	/* thread B, slot 5 */
	struct th_lock32 l32[3];	/* l32[2] is pending, not on the list */
};

struct target {
	struct target_hi *hi;
	struct target_lo *lo;
	pid_t pid;
};

extern struct target tgt;
/* ptrace_scope to restore in teardown_target(), "" if untouched. */
extern char yama_saved[16];

/* Start the target as @uid (0: as we are); 0 or -1. */
int target_start(uid_t uid);
/* Fixtures: a target as root or as NOBODY; teardown also restores Yama. */
int setup_target(void **state);
int setup_target_nobody(void **state);
int teardown_target(void **state);

/* First line of a small file, newline dropped; 0 or -1. */
int read_line(const char *path, char *buf, size_t len);

/* In show --json output: the one non-empty slot of thread @tid... */
const struct jv *only_slot(const struct jv *show, pid_t tid, long long index);
/* ... slot @index of thread @tid, which has @nr non-empty slots. */
const struct jv *slot_of(const struct jv *show, pid_t tid, size_t nr, long long index);
/* A lock entry: its address, futex address, PI bit, word and owner. */
void expect_word(const struct jv *e, const void *entry, const uint32_t *futex,
		 bool pi, uint32_t word, pid_t tid);
/* The text @fmt makes is in @text. */
void __attribute__((format(printf, 2, 3))) expect_in(const char *text, const char *fmt, ...);

/* Group setup: find the tool, make / reachable, check the module is loaded. */
int cli_group_setup(void **state);

#define WITH_TARGET(t)		cmocka_unit_test_setup_teardown(t, setup_target, teardown_target)
#define WITH_NOBODY_TARGET(t)	\
	cmocka_unit_test_setup_teardown(t, setup_target_nobody, teardown_target)

#endif /* TH_CLI_H */
