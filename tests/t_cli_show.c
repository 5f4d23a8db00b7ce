// SPDX-License-Identifier: GPL-2.0
/*
 * robust-list2 show, against a live target process (lib/cli.c): its
 * --json output checked against what the target built -- exact
 * addresses, owners, flags, bitness and the pending op (read with
 * lib/json.c: the guest has no JSON tools) --, the human-readable form,
 * the ends of a walk (cycle, fault, --max-entries), and the errors
 * (ESRCH, EPERM as another user, memory closed by Yama).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "cli.h"
#include "helpers.h"
#include "json.h"

static void test_show_json_64bit_list(void **state)
{
	struct target_hi *hi = tgt.hi;
	struct target_lo *lo = tgt.lo;
	const struct jv *s, *ents;
	struct run r;
	struct jv *v = run_json(&r, 0, 0, "show %d --json", tgt.pid);

	assert_int_equal(tgt.pid, jnum(v, "pid"));
	assert_int_equal(tgt.pid, jnum(v, "requested"));
	assert_true(jbool(v, "memory_readable"));
	assert_true(jnull(v, "memory_error"));
	assert_int_equal(8, jnum(v, "slots"));
	assert_int_equal(3, jarr(v, "threads")->n);
	assert_int_equal(lo->tid_a, jnum(jarr(v, "threads")->kids[0], "tid"));

	s = only_slot(v, lo->tid_a, 2);
	assert_int_equal(64, jnum(s, "bits"));
	assert_int_equal(addr(&hi->h64), jaddr(s, "head"));
	assert_int_equal(TH_OFF64, jnum(s, "futex_offset"));
	assert_int_equal(3, jnum(s, "entry_count"));
	assert_string_equal("head", jstr(s, "end"));
	assert_true(jnull(s, "end_address"));
	assert_true(jnull(s, "list_op_pending"));
	ents = jarr(s, "entries");
	assert_int_equal(3, ents->n);
	expect_word(ents->kids[0], &hi->l64[0], &hi->l64[0].futex, false, lo->tid_a, lo->tid_a);
	expect_word(ents->kids[1], &hi->l64[1], &hi->l64[1].futex, false,
		    lo->tid_a | FUTEX_WAITERS, lo->tid_a);
	expect_word(ents->kids[2], &hi->l64[2], &hi->l64[2].futex, true, lo->tid_a, lo->tid_a);
	j_free(v);
	run_free(&r);
}

static void test_show_json_32bit_list_and_pending(void **state)
{
	struct target_lo *lo = tgt.lo;
	const struct jv *s, *ents, *pend;
	struct run r;
	struct jv *v = run_json(&r, 0, 0, "show %d --json", tgt.pid);

	s = only_slot(v, lo->tid_b, 5);
	assert_int_equal(32, jnum(s, "bits"));
	assert_int_equal(addr(&lo->h32), jaddr(s, "head"));
	assert_true(jaddr(s, "head") < (1ULL << 32));
	assert_int_equal(TH_OFF32, jnum(s, "futex_offset"));
	assert_int_equal(2, jnum(s, "entry_count"));
	assert_string_equal("head", jstr(s, "end"));
	ents = jarr(s, "entries");
	assert_int_equal(2, ents->n);
	expect_word(ents->kids[0], &lo->l32[0], &lo->l32[0].futex, false, lo->tid_b, lo->tid_b);
	/* a word owned by another thread of the process: not this thread's */
	expect_word(ents->kids[1], &lo->l32[1], &lo->l32[1].futex, false, lo->tid_a, lo->tid_b);
	pend = jget(s, "list_op_pending");
	assert_int_equal(J_OBJ, pend->type);
	expect_word(pend, &lo->l32[2], &lo->l32[2].futex, false, lo->tid_b, lo->tid_b);
	assert_false(jbool(s, "pending_on_list"));
	j_free(v);
	run_free(&r);
}

/* A cycle that misses the head: shown once, with a note, and the walk ends. */
static void test_show_cycle_terminates_with_note(void **state)
{
	struct target_hi *hi = tgt.hi;
	const struct jv *s, *ents;
	struct run r;
	struct jv *v = run_json(&r, 0, 0, "show %d --json", tgt.lo->tid_c);

	assert_int_equal(tgt.pid, jnum(v, "pid"));
	assert_int_equal(1, jarr(v, "threads")->n);
	s = slot_of(v, tgt.lo->tid_c, 2, 0);
	assert_string_equal("cycle", jstr(s, "end"));
	assert_int_equal(addr(&hi->cyc[1]), jaddr(s, "end_address"));
	assert_int_equal(3, jnum(s, "entry_count"));
	ents = jarr(s, "entries");
	for (int i = 0; i < 3; i++)
		assert_int_equal(addr(&hi->cyc[i]), jaddr(ents->kids[i], "address"));
	j_free(v);
	run_free(&r);

	assert_int_equal(0, run_cli(&r, 0, "show %d", tgt.lo->tid_c));
	assert_non_null(strstr(r.out, "cycle detected"));
	run_free(&r);
}

/* An unmapped entry ends the walk, as it ends the module's. */
static void test_show_unreadable_entry_ends_walk(void **state)
{
	const struct jv *s, *bad;
	struct run r;
	struct jv *v = run_json(&r, 0, 0, "show %d --json", tgt.lo->tid_c);

	s = slot_of(v, tgt.lo->tid_c, 2, 7);
	assert_string_equal("fault", jstr(s, "end"));
	assert_int_equal(BAD_ENTRY + TH_OFF64, jaddr(s, "end_address"));
	assert_int_equal(2, jnum(s, "entry_count"));
	expect_word(jarr(s, "entries")->kids[0], &tgt.hi->bad, &tgt.hi->bad.futex, false,
		    tgt.lo->tid_c, tgt.lo->tid_c);
	bad = jarr(s, "entries")->kids[1];
	assert_int_equal(BAD_ENTRY, jaddr(bad, "address"));
	assert_true(jnull(bad, "word"));
	assert_string_equal("unreadable", jstr(bad, "error"));
	j_free(v);
	run_free(&r);
}

/* --max-entries cuts a list short and says where. */
static void test_show_max_entries_caps_output(void **state)
{
	const struct jv *s;
	struct run r;
	struct jv *v = run_json(&r, 0, 0, "show %d --json --max-entries 2", tgt.pid);

	assert_int_equal(2, jnum(v, "max_entries"));
	s = only_slot(v, tgt.lo->tid_a, 2);
	assert_int_equal(2, jnum(s, "entry_count"));
	assert_string_equal("max_entries", jstr(s, "end"));
	assert_int_equal(addr(&tgt.hi->l64[2]), jaddr(s, "end_address"));
	j_free(v);
	run_free(&r);

	assert_int_equal(0, run_cli(&r, 0, "show %d --max-entries 2", tgt.pid));
	expect_in(r.out, "... more entries from 0x%" PRIx64 " not shown", addr(&tgt.hi->l64[2]));
	run_free(&r);
}

/* A TID that is not a leader: that thread only, named with its process. */
static void test_show_tid_is_that_thread_only(void **state)
{
	struct run r;
	struct jv *v = run_json(&r, 0, 0, "show %d --json", tgt.lo->tid_b);

	assert_int_equal(tgt.pid, jnum(v, "pid"));
	assert_int_equal(tgt.lo->tid_b, jnum(v, "requested"));
	assert_int_equal(1, jarr(v, "threads")->n);
	only_slot(v, tgt.lo->tid_b, 5);
	j_free(v);
	run_free(&r);
}

static void test_show_text_names_heads_and_owners(void **state)
{
	struct target_lo *lo = tgt.lo;
	struct run r;

	assert_int_equal(0, run_cli(&r, 0, "show %d", tgt.pid));
	expect_in(r.out, "slot 2: 64-bit list, head 0x%" PRIx64 ",", addr(&tgt.hi->h64));
	expect_in(r.out, "slot 5: 32-bit list, head 0x%" PRIx64 ",", addr(&lo->h32));
	expect_in(r.out, "owner %d (this thread) WAITERS", lo->tid_a);
	expect_in(r.out, "0x%" PRIx64 " PI ", addr(&tgt.hi->l64[2]));
	expect_in(r.out, "pending 0x%" PRIx64, addr(&lo->l32[2]));
	expect_in(r.out, "cycle detected");
	assert_int_equal(0, r.nerr);
	run_free(&r);
}

static void test_show_missing_pid_is_esrch(void **state)
{
	char buf[32] = "";
	struct run r;
	struct jv *v;
	int pid_max;

	/* PIDs are below pid_max: this one cannot exist */
	assert_int_equal(0, read_line("/proc/sys/kernel/pid_max", buf, sizeof(buf)));
	pid_max = atoi(buf);
	assert_true(pid_max > 1);

	assert_int_equal(1, run_cli(&r, 0, "show %d", pid_max));
	expect_in(r.err, "ESRCH");
	assert_int_equal(0, r.nout);
	run_free(&r);

	v = run_json(&r, 1, 0, "show %d --json", pid_max);
	assert_string_equal("ESRCH", jstr(v, "errno"));
	assert_int_equal(1, jnum(v, "exit_status"));
	j_free(v);
	run_free(&r);
}

/* Another user may not read the lists of our root-owned target. */
static void test_show_as_other_uid_is_eperm(void **state)
{
	struct run r;
	struct jv *v;

	assert_int_equal(1, run_cli(&r, NOBODY, "show %d", tgt.pid));
	expect_in(r.err, "EPERM");
	run_free(&r);
	v = run_json(&r, 1, NOBODY, "--json show %d", tgt.lo->tid_b);
	assert_string_equal("EPERM", jstr(v, "errno"));
	j_free(v);
	run_free(&r);
	/* status needs no permission */
	assert_int_equal(0, run_cli(&r, NOBODY, "status"));
	run_free(&r);
}

/*
 * Slots readable, memory not: Yama's ptrace_scope 1 limits attach (what
 * process_vm_readv needs) to ancestors but leaves read access alone.  Same
 * user, not an ancestor: the slots are shown, the lists are not.
 */
static void test_show_without_memory_access_still_shows_slots(void **state)
{
	struct run r;
	struct jv *v;
	const struct jv *s;

	if (read_line(YAMA_SCOPE, yama_saved, sizeof(yama_saved)) ||
	    th_write_file(YAMA_SCOPE, "1")) {
		fprintf(stderr, "# no Yama, or ptrace_scope locked: cannot close memory only\n");
		yama_saved[0] = 0;
		skip();
	}

	v = run_json(&r, 0, NOBODY, "show %d --json", tgt.pid);
	assert_false(jbool(v, "memory_readable"));
	assert_false(jnull(v, "memory_error"));
	assert_int_equal(3, jarr(v, "threads")->n);
	s = only_slot(v, tgt.lo->tid_a, 2);
	assert_int_equal(addr(&tgt.hi->h64), jaddr(s, "head"));
	assert_int_equal(64, jnum(s, "bits"));
	assert_int_equal(0, jnum(s, "entry_count"));
	assert_string_equal("unread", jstr(s, "end"));
	s = only_slot(v, tgt.lo->tid_b, 5);
	assert_int_equal(32, jnum(s, "bits"));
	assert_int_equal(addr(&tgt.lo->h32), jaddr(s, "head"));
	j_free(v);
	run_free(&r);

	assert_int_equal(0, run_cli(&r, NOBODY, "show %d", tgt.pid));
	expect_in(r.out, "head 0x%" PRIx64, addr(&tgt.hi->h64));
	expect_in(r.out, "note: list contents not shown");
	run_free(&r);
}

/*
 * A list in a guest address space (robust_list2_set_based()): the guest's
 * addresses are shown as the list holds them, with the base, and the words
 * are read at base + address.
 */
#define G0	((uint64_t)0x8000)	/* guest address of the region's first byte */

struct based_ctl {
	uint32_t ready;
	int32_t err;
	pid_t tid;
	uint64_t base;
};

static int based_child(void *p)
{
	struct based_ctl *c = p;
	char *g = (char *)(uintptr_t)(c->base + G0);	/* guest G0 at host g */
	struct robust_list_head32 *h = (void *)(g + 0x100);
	struct th_lock32 *l = (void *)(g + 0x200);
	uint32_t never = 0;

	c->tid = th_gettid();
	h->futex_offset = TH_OFF32;
	h->next = G0 + 0x200;
	l[0].list.next = G0 + 0x200 + sizeof(*l);
	l[1].list.next = G0 + 0x100;
	l[2].list.next = 0;
	h->list_op_pending = G0 + 0x200 + 2 * sizeof(*l);
	l[0].futex = c->tid | FUTEX_WAITERS;
	l[1].futex = c->tid;
	l[2].futex = c->tid;
	if (robust_list2_set_based(G0 + 0x100, c->base, 1, FUTEX_ROBUST_LIST_CMD_SET_32))
		c->err = errno;
	th_set_flag(&c->ready, 1);
	th_futex_wait(&never, 0, TH_TIMEOUT_MS, true);
	return 0;
}

static void test_show_based_list_in_guest_addresses(void **state)
{
	struct based_ctl *c = th_shared_alloc(4096, false);
	char *region = th_shared_alloc(0x10000, false);
	const struct jv *s, *ents;
	struct jv *v;
	struct run r;
	pid_t pid;

	assert_non_null(c);
	assert_non_null(region);
	c->base = addr(region) - G0;
	pid = th_spawn_kid(based_child, c);
	assert_true(pid > 0);
	assert_true(th_wait_flag(&c->ready, 1, TH_TIMEOUT_MS));
	assert_int_equal(0, c->err);

	v = run_json(&r, 0, 0, "show %d --json", pid);
	s = only_slot(v, c->tid, 1);
	assert_int_equal(32, jnum(s, "bits"));
	assert_int_equal(G0 + 0x100, jaddr(s, "head"));
	assert_int_equal(c->base, jaddr(s, "base"));
	assert_int_equal(TH_OFF32, jnum(s, "futex_offset"));
	assert_int_equal(2, jnum(s, "entry_count"));
	assert_string_equal("head", jstr(s, "end"));
	ents = jarr(s, "entries");
	for (int j = 0; j < 2; j++) {
		uint64_t e = G0 + 0x200 + j * sizeof(struct th_lock32);

		assert_int_equal(e, jaddr(ents->kids[j], "address"));
		assert_int_equal(e + TH_OFF32, jaddr(ents->kids[j], "futex"));
		assert_int_equal(c->tid | (j ? 0 : FUTEX_WAITERS), jnum(ents->kids[j], "word"));
		assert_true(jbool(ents->kids[j], "owned_by_thread"));
	}
	assert_int_equal(G0 + 0x200 + 2 * sizeof(struct th_lock32),
			 jaddr(jget(s, "list_op_pending"), "address"));
	assert_int_equal(c->tid, jnum(jget(s, "list_op_pending"), "word"));
	j_free(v);
	run_free(&r);

	assert_int_equal(0, run_cli(&r, 0, "show %d", pid));
	expect_in(r.out, "head 0x%" PRIx64 ", base 0x%" PRIx64, G0 + 0x100, c->base);
	run_free(&r);
	kill(pid, SIGKILL);
	assert_int_equal(128 + SIGKILL, th_reap_kid(pid, TH_TIMEOUT_MS));
	th_free(region, 0x10000);
	th_free(c, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		WITH_TARGET(test_show_json_64bit_list),
		WITH_TARGET(test_show_json_32bit_list_and_pending),
		WITH_TARGET(test_show_cycle_terminates_with_note),
		WITH_TARGET(test_show_unreadable_entry_ends_walk),
		WITH_TARGET(test_show_max_entries_caps_output),
		WITH_TARGET(test_show_tid_is_that_thread_only),
		WITH_TARGET(test_show_text_names_heads_and_owners),
		cmocka_unit_test(test_show_missing_pid_is_esrch),
		WITH_TARGET(test_show_as_other_uid_is_eperm),
		WITH_NOBODY_TARGET(test_show_without_memory_access_still_shows_slots),
		cmocka_unit_test_teardown(test_show_based_list_in_guest_addresses,
					  th_kids_teardown),
	};

	if (sizeof(void *) != 8) {
		fprintf(stderr, "# t_cli_show: 64-bit only (the tool reads 64-bit lists)\n");
		return 77;
	}
	TH_MODULE_ONLY_SUITE("robust-list2 show reads slots with robust_list2_slot() "
	                     "and the based-list ioctl, which the kernel's calls do not offer");
	return cmocka_run_group_tests_name("cli_show", tests, cli_group_setup, NULL);
}
