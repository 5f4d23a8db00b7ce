// SPDX-License-Identifier: GPL-2.0
/*
 * robust-list2, the command-line tool, against live processes.
 *
 * A forked target process holds known lists: its leader a 64-bit list of
 * three locks (one contended, one PI) in slot 2, a second thread a 32-bit
 * list below 4 GiB with a pending op in slot 5, a third thread a list with
 * a cycle that never returns to its head in slot 0 and one that runs into
 * unmapped memory in slot 7.  The tool's output is checked against what
 * the target built: exact addresses, owners, flags, bitness and the
 * pending op (--json, read with the small JSON reader below: the guest
 * has no JSON tools), the human-readable form, the ends of a walk (cycle,
 * fault, --max-entries, walk_limit), the errors (ESRCH, EPERM as another
 * user, memory closed by Yama), unload refused while slots are held, and
 * a real unload / load cycle with a module parameter.
 *
 * The tool is $RL2_CLI, else ../tools/robust-list2 next to this binary
 * (tests/vm-files puts it in the guest).  It runs by fork + exec with its
 * stdout and stderr on pipes, not popen(): every wait is bounded, and the
 * child can drop to another uid first.  This process never opens the
 * device itself (a descriptor would pin the module and spoil the unload
 * cases).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "helpers.h"

#define NOBODY		65534
#define OUT_MAX		(8 << 20)	/* a 10000-entry list is ~3 MiB of JSON */
#define DEFAULT_LIMIT	(1 << 20)	/* the module's default walk_limit */
#define YAMA_SCOPE	"/proc/sys/kernel/yama/ptrace_scope"

static char cli[PATH_MAX];

/* ---- a minimal JSON reader ------------------------------------------------ */

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype type;
	char *key;		/* member name, inside an object */
	char *str;
	long long num;
	bool b;
	struct jv **kids;
	size_t n;
};

static void j_free(struct jv *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++)
		j_free(v->kids[i]);
	free(v->kids);
	free(v->key);
	free(v->str);
	free(v);
}

static void j_ws(const char **p)
{
	while (isspace((unsigned char)**p))
		(*p)++;
}

/* At the opening quote; ASCII \u escapes only (the tool writes no others). */
static char *j_string(const char **p)
{
	const char *q = *p + 1;
	unsigned int u;
	char *out, *o;

	while (*q && *q != '"')		/* an upper bound of the decoded length */
		q += q[0] == '\\' && q[1] ? 2 : 1;
	out = o = malloc(q - *p);

	for ((*p)++; out && **p && **p != '"'; (*p)++) {
		char c = **p;

		if ((unsigned char)c < 0x20)
			goto bad;
		if (c == '\\') {
			c = *++*p;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case '"': case '\\': case '/': break;
			case 'u':
				if (sscanf(*p + 1, "%4x", &u) != 1 || u > 0x7f)
					goto bad;
				c = (char)u;
				*p += 4;
				break;
			default:
				goto bad;
			}
		}
		*o++ = c;
	}
	if (!out || **p != '"')
		goto bad;
	(*p)++;
	*o = 0;
	return out;
bad:
	free(out);
	return NULL;
}

static bool j_word(const char **p, const char *w)
{
	size_t n = strlen(w);

	if (strncmp(*p, w, n))
		return false;
	*p += n;
	return true;
}

static struct jv *j_value(const char **p, int depth);

static bool j_add(struct jv *v, struct jv *kid)
{
	struct jv **k = realloc(v->kids, (v->n + 1) * sizeof(*k));

	if (!k)
		return false;
	v->kids = k;
	v->kids[v->n++] = kid;
	return true;
}

static bool j_members(const char **p, struct jv *v, int depth)
{
	char close = v->type == J_OBJ ? '}' : ']';

	j_ws(p);
	if (**p == close) {
		(*p)++;
		return true;
	}
	for (;;) {
		char *key = NULL;
		struct jv *kid;

		j_ws(p);
		if (v->type == J_OBJ) {
			if (**p != '"' || !(key = j_string(p)))
				return false;
			j_ws(p);
			if (*(*p)++ != ':') {
				free(key);
				return false;
			}
		}
		kid = j_value(p, depth + 1);
		if (!kid) {
			free(key);
			return false;
		}
		kid->key = key;
		if (!j_add(v, kid)) {
			j_free(kid);
			return false;
		}
		j_ws(p);
		if (**p == ',') {
			(*p)++;
			continue;
		}
		return *(*p)++ == close;
	}
}

static struct jv *j_value(const char **p, int depth)
{
	struct jv *v = calloc(1, sizeof(*v));
	char *end;

	j_ws(p);
	if (!v || depth > 32)
		goto bad;
	if (**p == '{' || **p == '[') {
		v->type = *(*p)++ == '{' ? J_OBJ : J_ARR;
		if (!j_members(p, v, depth))
			goto bad;
	} else if (**p == '"') {
		v->type = J_STR;
		v->str = j_string(p);
		if (!v->str)
			goto bad;
	} else if (j_word(p, "true")) {
		v->type = J_BOOL;
		v->b = true;
	} else if (j_word(p, "false")) {
		v->type = J_BOOL;
	} else if (j_word(p, "null")) {
		v->type = J_NULL;
	} else {
		v->type = J_NUM;
		errno = 0;
		v->num = strtoll(*p, &end, 10);
		if (end == *p || errno || *end == '.' || *end == 'e' || *end == 'E')
			goto bad;
		*p = end;
	}
	return v;
bad:
	j_free(v);
	return NULL;
}

/* The whole text must be one value. */
static struct jv *json_parse(const char *s)
{
	const char *p = s;
	struct jv *v = j_value(&p, 0);

	j_ws(&p);
	if (v && *p) {
		j_free(v);
		v = NULL;
	}
	if (!v)
		fprintf(stderr, "# not JSON:\n%s\n", s);
	return v;
}

static struct jv *jget(const struct jv *o, const char *key)
{
	assert_non_null(o);
	assert_int_equal(J_OBJ, o->type);
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->kids[i]->key, key))
			return o->kids[i];
	fail_msg("no member \"%s\"", key);
	return NULL;
}

static struct jv *jtyped(const struct jv *o, const char *key, enum jtype t)
{
	struct jv *v = jget(o, key);

	if (v->type != t)
		fail_msg("member \"%s\" has type %d, not %d", key, v->type, t);
	return v;
}

static long long jnum(const struct jv *o, const char *key)
{
	return jtyped(o, key, J_NUM)->num;
}

static const char *jstr(const struct jv *o, const char *key)
{
	return jtyped(o, key, J_STR)->str;
}

static bool jbool(const struct jv *o, const char *key)
{
	return jtyped(o, key, J_BOOL)->b;
}

static bool jnull(const struct jv *o, const char *key)
{
	return jget(o, key)->type == J_NULL;
}

static struct jv *jarr(const struct jv *o, const char *key)
{
	return jtyped(o, key, J_ARR);
}

/* An address member: a "0x..." string. */
static uint64_t jaddr(const struct jv *o, const char *key)
{
	const char *s = jstr(o, key);

	assert_memory_equal("0x", s, 2);
	return strtoull(s + 2, NULL, 16);
}

static uint64_t addr(const void *p)
{
	return (uintptr_t)p;
}

/* ---- running the tool ------------------------------------------------------ */

struct run {
	int status;		/* exit status, 128 + signal, -1 on timeout */
	char *out;		/* stdout */
	char *err;		/* stderr */
	size_t nout, nerr;
};

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

static void child_exec(int out, int err, uid_t uid, char **argv)
{
	if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid)))
		_exit(126);
	if (dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	execv(cli, argv);
	_exit(127);
}

/*
 * Read both pipes to their end, within the deadline.  Output beyond
 * OUT_MAX is read and dropped, so the tool never blocks on a full pipe.
 */
static void drain(struct run *r, int out, int err, long deadline)
{
	struct pollfd pfd[2] = { { .fd = out, .events = POLLIN }, { .fd = err, .events = POLLIN } };
	int open = 2;

	while (open && th_now_ms() < deadline) {
		if (poll(pfd, 2, 100) <= 0)
			continue;
		for (int i = 0; i < 2; i++) {
			char **buf = i ? &r->err : &r->out;
			size_t *n = i ? &r->nerr : &r->nout;
			char spill[4096];
			ssize_t got;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			if (*n < OUT_MAX - 1)
				got = read(pfd[i].fd, *buf + *n, OUT_MAX - 1 - *n);
			else
				got = read(pfd[i].fd, spill, sizeof(spill));
			if (got <= 0) {
				pfd[i].fd = -1;
				open--;
				continue;
			}
			if (*n < OUT_MAX - 1) {
				*n += got;
				(*buf)[*n] = 0;
			}
		}
	}
}

/*
 * Run the tool as @uid (0: as we are) with the arguments in @fmt, split at
 * spaces.  Its output is echoed as TAP diagnostics.
 */
static int __attribute__((format(printf, 3, 4)))
run_cli(struct run *r, uid_t uid, const char *fmt, ...)
{
	char line[1024], shown[1024], *argv[16] = { cli };
	int argc = 1, out[2], err[2];
	long deadline = th_now_ms() + TH_TIMEOUT_MS;
	va_list ap;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	memcpy(shown, line, sizeof(shown));
	for (char *s = strtok(line, " "); s && argc < 15; s = strtok(NULL, " "))
		argv[argc++] = s;

	memset(r, 0, sizeof(*r));
	r->out = calloc(1, OUT_MAX);
	r->err = calloc(1, OUT_MAX);
	assert_non_null(r->out);
	assert_non_null(r->err);
	assert_int_equal(0, pipe2(out, O_CLOEXEC));
	assert_int_equal(0, pipe2(err, O_CLOEXEC));
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		child_exec(out[1], err[1], uid, argv);
	close(out[1]);
	close(err[1]);
	drain(r, out[0], err[0], deadline);
	close(out[0]);
	close(err[0]);
	r->status = th_wait_child_ms(pid, (int)(deadline > th_now_ms() ? deadline - th_now_ms() : 1));
	fprintf(stderr, "# robust-list2 %s%s -> %d\n%s%s", uid ? "(uid 65534) " : "",
		shown, r->status, r->err, r->nout < 4096 ? r->out : "");
	return r->status;
}

/* Run with the arguments in @fmt and parse stdout as JSON; the caller frees both. */
static struct jv *__attribute__((format(printf, 4, 5)))
run_json(struct run *r, int expect, uid_t uid, const char *fmt, ...)
{
	char args[512];
	struct jv *v;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	assert_int_equal(expect, run_cli(r, uid, "%s", args));
	v = json_parse(r->out);
	assert_non_null(v);
	return v;
}

static bool module_loaded(void)
{
	struct stat st;

	return stat("/sys/module/robust_list2", &st) == 0;
}

/* ---- the target process ---------------------------------------------------- */

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

static struct target tgt;
static char yama_saved[16];

static void target_ready(struct target_lo *lo)
{
	__atomic_add_fetch(&lo->ready, 1, __ATOMIC_RELEASE);
	th_futex_wake(&lo->ready, INT_MAX, false);
}

static void target_wait_go(struct target_lo *lo)
{
	for (int i = 0; i < 300 && !__atomic_load_n(&lo->go, __ATOMIC_ACQUIRE); i++)
		th_futex_wait(&lo->go, 0, 100, false);
}

static void target_fail(struct target_lo *lo, int code)
{
	__atomic_store_n(&lo->err, code, __ATOMIC_RELEASE);
	target_ready(lo);
}

/* Thread B: a 32-bit list m0 -> m1 and a pending op on m2. */
static void *target_b(void *p)
{
	struct target_lo *lo = p;

	lo->tid_b = th_gettid();
	th_list32_init(&lo->h32, TH_OFF32);
	lo->l32[1].futex = lo->tid_a;		/* held by another thread */
	th_list32_add(&lo->h32, &lo->l32[1], false);
	lo->l32[0].futex = lo->tid_b;
	th_list32_add(&lo->h32, &lo->l32[0], false);
	lo->l32[2].futex = lo->tid_b;
	lo->h32.list_op_pending = th_p32(&lo->l32[2].list);
	if (set_robust_list2((void *)&lo->h32, 5, FUTEX_ROBUST_LIST_CMD_SET_32, 0))
		target_fail(lo, 20 + errno);
	else
		target_ready(lo);
	target_wait_go(lo);
	return NULL;
}

/*
 * Thread C: head -> c0 -> c1 -> c2 -> c1, never back to the head, and a
 * second list whose second entry is unmapped.
 */
static void *target_c(void *p)
{
	struct target_hi *hi = tgt.hi;
	struct target_lo *lo = p;

	lo->tid_c = th_gettid();
	th_list64_init(&hi->hcyc, TH_OFF64);
	hi->hcyc.list.next = &hi->cyc[0].list;
	hi->cyc[0].list.next = &hi->cyc[1].list;
	hi->cyc[1].list.next = &hi->cyc[2].list;
	hi->cyc[2].list.next = &hi->cyc[1].list;
	hi->cyc[0].futex = lo->tid_c;
	th_list64_init(&hi->hbad, TH_OFF64);
	hi->hbad.list.next = &hi->bad.list;
	hi->bad.list.next = (struct robust_list *)(uintptr_t)BAD_ENTRY;
	hi->bad.futex = lo->tid_c;
	if (set_robust_list2(&hi->hcyc, 0, FUTEX_ROBUST_LIST_CMD_SET_64, 0) ||
	    set_robust_list2(&hi->hbad, 7, FUTEX_ROBUST_LIST_CMD_SET_64, 0))
		target_fail(lo, 30 + errno);
	else
		target_ready(lo);
	target_wait_go(lo);
	return NULL;
}

/* The leader: l0 -> l1 (contended) -> l2 (PI), then threads B and C. */
static int target_main(void *p)
{
	struct target_hi *hi = tgt.hi;
	struct target_lo *lo = p;
	pthread_t b, c;

	if (lo->uid && (setgroups(0, NULL) || setresgid(lo->uid, lo->uid, lo->uid) ||
			setresuid(lo->uid, lo->uid, lo->uid) ||
			prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)))
		return 9;
	lo->pid = getpid();
	lo->tid_a = th_gettid();
	th_list64_init(&hi->h64, TH_OFF64);
	hi->l64[2].futex = lo->tid_a;
	th_list64_add(&hi->h64, &hi->l64[2], true);
	hi->l64[1].futex = lo->tid_a | FUTEX_WAITERS;
	th_list64_add(&hi->h64, &hi->l64[1], false);
	hi->l64[0].futex = lo->tid_a;
	th_list64_add(&hi->h64, &hi->l64[0], false);
	if (set_robust_list2(&hi->h64, 2, FUTEX_ROBUST_LIST_CMD_SET_64, 0)) {
		target_fail(lo, 10 + errno);
		return 1;
	}
	target_ready(lo);
	if (pthread_create(&b, NULL, target_b, lo))
		return 2;
	if (pthread_create(&c, NULL, target_c, lo))
		return 3;
	pthread_join(b, NULL);
	pthread_join(c, NULL);
	return 0;
}

static int target_start(uid_t uid)
{
	tgt.hi = th_shared_alloc(4096, false);
	tgt.lo = th_shared_alloc(4096, true);
	if (!tgt.hi || !tgt.lo)
		return -1;
	tgt.lo->uid = uid;
	tgt.pid = th_spawn_child(target_main, tgt.lo);
	for (int i = 0; i < 100; i++) {
		uint32_t n = __atomic_load_n(&tgt.lo->ready, __ATOMIC_ACQUIRE);

		if (n >= 3 || tgt.lo->err)
			break;
		th_futex_wait(&tgt.lo->ready, n, 100, false);
	}
	if (tgt.lo->ready != 3 || tgt.lo->err || tgt.lo->pid != tgt.pid) {
		fprintf(stderr, "# target: %u threads ready, error %d\n", tgt.lo->ready,
			tgt.lo->err);
		return -1;
	}
	return 0;
}

static int setup_target(void **state)
{
	return target_start(0);
}

static int setup_target_nobody(void **state)
{
	return target_start(NOBODY);
}

/* First line of a small file, newline dropped; 0 or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int teardown_target(void **state)
{
	int rc = 0;

	if (yama_saved[0]) {
		th_write_file(YAMA_SCOPE, yama_saved);
		yama_saved[0] = 0;
	}
	if (tgt.pid > 0) {
		__atomic_store_n(&tgt.lo->go, 1, __ATOMIC_RELEASE);
		th_futex_wake(&tgt.lo->go, INT_MAX, false);
		rc = th_wait_child(tgt.pid);
	}
	th_free(tgt.hi, 4096);
	th_free(tgt.lo, 4096);
	memset(&tgt, 0, sizeof(tgt));
	return rc ? -1 : 0;
}

/* ---- show ------------------------------------------------------------------ */

static const struct jv *find_thread(const struct jv *show, pid_t tid)
{
	const struct jv *threads = jarr(show, "threads");

	for (size_t i = 0; i < threads->n; i++)
		if (jnum(threads->kids[i], "tid") == tid)
			return threads->kids[i];
	fail_msg("thread %d not in the output", tid);
	return NULL;
}

/* The one non-empty slot of thread @tid. */
static const struct jv *only_slot(const struct jv *show, pid_t tid, long long index)
{
	const struct jv *slots = jarr(find_thread(show, tid), "slots");

	assert_int_equal(1, slots->n);
	assert_int_equal(index, jnum(slots->kids[0], "slot"));
	return slots->kids[0];
}

/* Slot @index of thread @tid, which has @nr non-empty slots. */
static const struct jv *slot_of(const struct jv *show, pid_t tid, size_t nr, long long index)
{
	const struct jv *slots = jarr(find_thread(show, tid), "slots");

	assert_int_equal(nr, slots->n);
	for (size_t i = 0; i < slots->n; i++)
		if (jnum(slots->kids[i], "slot") == index)
			return slots->kids[i];
	fail_msg("thread %d has no slot %lld", tid, index);
	return NULL;
}

static void expect_in(const char *text, const char *fmt, ...)
{
	char want[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	if (!strstr(text, want))
		fail_msg("\"%s\" not in the output", want);
}

static void expect_word(const struct jv *e, const void *entry, const uint32_t *futex,
			bool pi, uint32_t word, pid_t tid)
{
	pid_t owner = word & FUTEX_TID_MASK;

	assert_int_equal(addr(entry), jaddr(e, "address"));
	assert_int_equal(pi, jbool(e, "pi"));
	assert_int_equal(addr(futex), jaddr(e, "futex"));
	assert_int_equal(word, jnum(e, "word"));
	assert_int_equal(owner, jnum(e, "owner"));
	assert_int_equal(!!(word & FUTEX_WAITERS), jbool(e, "waiters"));
	assert_int_equal(!!(word & FUTEX_OWNER_DIED), jbool(e, "owner_died"));
	assert_int_equal(owner == tid, jbool(e, "owned_by_thread"));
	assert_true(jnull(e, "error"));
}

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

static void test_status_json_counts_live_registrations(void **state)
{
	const struct jv *features, *stats;
	bool list32 = false, cycle_safe = false;
	struct run r;
	struct jv *v = run_json(&r, 0, 0, "status --json");

	assert_true(jbool(v, "loaded"));
	assert_string_equal("live", jstr(v, "state"));
	assert_string_equal(robust_list2_version(), jstr(v, "version"));
	assert_string_equal(robust_list2_version(), jstr(v, "library_version"));
	assert_int_equal(ROBUST_LIST2_ABI_VERSION, jnum(v, "abi_version"));
	assert_int_equal(8, jnum(v, "slots"));
	assert_int_equal(DEFAULT_LIMIT, jnum(v, "walk_limit"));
	/* three threads hold slots, each pins the module */
	assert_true(jnum(v, "refcount") >= 3);
	features = jarr(v, "features");
	for (size_t i = 0; i < features->n; i++) {
		list32 |= !strcmp(features->kids[i]->str, "list32");
		cycle_safe |= !strcmp(features->kids[i]->str, "cycle_safe");
	}
	assert_true(list32 && cycle_safe);
	stats = jget(v, "stats");
	assert_true(jnum(stats, "tasks") >= 3);
	for (const char *const *k = (const char *const[]){ "walks", "entries", "recovered",
		"woken", "cycles", "limited", "faults", "fixups", NULL }; *k; k++)
		assert_true(jnum(stats, *k) >= 0);
	j_free(v);
	run_free(&r);

	assert_int_equal(0, run_cli(&r, 0, "status"));
	expect_in(r.out, "robust_list2: loaded (live), version %s", robust_list2_version());
	expect_in(r.out, "live registrations: ");
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

static void test_unload_refused_while_slots_are_held(void **state)
{
	struct run r;

	assert_int_equal(1, run_cli(&r, 0, "unload"));
	expect_in(r.err, "in use: ");
	expect_in(r.err, "3 threads hold slots, " ROBUST_LIST2_DEVICE " open 1 time");
	assert_true(module_loaded());
	run_free(&r);
	/* and the module still answers */
	assert_int_equal(0, run_cli(&r, 0, "show %d", tgt.pid));
	run_free(&r);
}

static void test_usage_errors_exit_2(void **state)
{
	struct run r;
	char want[64];

	assert_int_equal(2, run_cli(&r, 0, "show"));
	run_free(&r);
	assert_int_equal(2, run_cli(&r, 0, "show abc"));
	run_free(&r);
	assert_int_equal(2, run_cli(&r, 0, "show 0"));
	run_free(&r);
	assert_int_equal(2, run_cli(&r, 0, "frobnicate"));
	run_free(&r);
	assert_int_equal(2, run_cli(&r, 0, "load --param walk_limit"));
	run_free(&r);
	assert_int_equal(0, run_cli(&r, 0, "--help"));
	expect_in(r.out, "usage: ");
	run_free(&r);
	assert_int_equal(0, run_cli(&r, 0, "--version"));
	snprintf(want, sizeof(want), "robust-list2 %s\n", robust_list2_version());
	assert_string_equal(want, r.out);
	run_free(&r);
}

static const char *ko_path(void)
{
	return getenv("RL2_KO") ?: "/lib/robust_list2/robust_list2.ko";
}

/* Unload, everything that needs the module says so, load with a parameter. */
static void test_unload_then_load_with_param(void **state)
{
	const char *ko = ko_path();
	const struct jv *s;
	struct run r;
	struct jv *v;

	if (access(ko, R_OK))
		skip();
	assert_int_equal(0, run_cli(&r, 0, "unload"));
	assert_false(module_loaded());
	run_free(&r);

	v = run_json(&r, 3, 0, "status --json");
	assert_false(jbool(v, "loaded"));
	expect_in(r.err, "status: module robust_list2 is not loaded (try: robust-list2 load)");
	j_free(v);
	run_free(&r);
	assert_int_equal(3, run_cli(&r, 0, "status"));
	expect_in(r.out, "robust_list2: not loaded");
	expect_in(r.err, "(try: robust-list2 load)");
	run_free(&r);
	assert_int_equal(3, run_cli(&r, 0, "show 1"));
	run_free(&r);
	assert_int_equal(3, run_cli(&r, 0, "unload"));
	run_free(&r);

	v = run_json(&r, 0, 0, "load --json --path %s --param walk_limit=2", ko);
	assert_true(jbool(v, "loaded"));
	assert_false(jbool(v, "already_loaded"));
	assert_string_equal(robust_list2_version(), jstr(v, "version"));
	j_free(v);
	run_free(&r);
	assert_int_equal(0, access(ROBUST_LIST2_DEVICE, R_OK | W_OK));

	v = run_json(&r, 0, 0, "status --json");
	assert_int_equal(2, jnum(v, "walk_limit"));
	j_free(v);
	run_free(&r);

	/* the module stops after 2 entries: show says so at the same place */
	assert_int_equal(0, target_start(0));
	v = run_json(&r, 0, 0, "show %d --json", tgt.pid);
	assert_int_equal(2, jnum(v, "walk_limit"));
	s = only_slot(v, tgt.lo->tid_a, 2);
	assert_int_equal(2, jnum(s, "entry_count"));
	assert_string_equal("walk_limit", jstr(s, "end"));
	assert_int_equal(addr(&tgt.hi->l64[2]), jaddr(s, "end_address"));
	j_free(v);
	run_free(&r);
	assert_int_equal(0, teardown_target(state));

	/* loaded already: fine without parameters, an error with them */
	assert_int_equal(0, run_cli(&r, 0, "load --path %s", ko));
	expect_in(r.out, "already loaded");
	run_free(&r);
	assert_int_equal(1, run_cli(&r, 0, "load --path %s --param walk_limit=5", ko));
	run_free(&r);

	/* back to the default */
	assert_int_equal(0, run_cli(&r, 0, "unload"));
	run_free(&r);
	assert_int_equal(0, run_cli(&r, 0, "load --path %s", ko));
	run_free(&r);
	v = run_json(&r, 0, 0, "status --json");
	assert_int_equal(DEFAULT_LIMIT, jnum(v, "walk_limit"));
	j_free(v);
	run_free(&r);
}

/* Whatever a case did, the module is loaded afterwards. */
static int teardown_reload(void **state)
{
	int fd;
	long ret;

	teardown_target(state);
	if (module_loaded())
		return 0;
	fd = open(ko_path(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return ret ? -1 : 0;
}

/* The tool: $RL2_CLI, else ../tools/robust-list2 from this binary's directory. */
static int group_setup(void **state)
{
	char self[PATH_MAX - 64];
	struct stat st;
	ssize_t n;

	if (getenv("RL2_CLI")) {
		snprintf(cli, sizeof(cli), "%s", getenv("RL2_CLI"));
	} else {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return -1;
		self[n] = 0;
		*strrchr(self, '/') = 0;
		snprintf(cli, sizeof(cli), "%s/../tools/robust-list2", self);
	}
	if (access(cli, X_OK)) {
		fprintf(stderr, "# %s: %s (build tools/, list it in tests/vm-files)\n", cli,
			strerror(errno));
		return -1;
	}
	/*
	 * The VM's initramfs root can come out mode 0700 (staged in a
	 * mktemp -d directory): another user could not even run the tool or
	 * open the device.  A root of a real system is 0755 already.
	 */
	if (stat("/", &st) == 0 && (st.st_mode & 0555) != 0555 && getuid() == 0) {
		fprintf(stderr, "# / is mode %o: making it 0755 for the other-user cases\n",
			st.st_mode & 07777);
		chmod("/", (st.st_mode & 07777) | 0555);
	}
	if (!module_loaded() || !th_have_device()) {
		fprintf(stderr, "# robust_list2 is not loaded\n");
		return -1;
	}
	return 0;
}

#define WITH_TARGET(t)		cmocka_unit_test_setup_teardown(t, setup_target, teardown_target)
#define WITH_NOBODY_TARGET(t)	\
	cmocka_unit_test_setup_teardown(t, setup_target_nobody, teardown_target)

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
		WITH_TARGET(test_status_json_counts_live_registrations),
		cmocka_unit_test(test_show_missing_pid_is_esrch),
		WITH_TARGET(test_show_as_other_uid_is_eperm),
		WITH_NOBODY_TARGET(test_show_without_memory_access_still_shows_slots),
		WITH_TARGET(test_unload_refused_while_slots_are_held),
		cmocka_unit_test(test_usage_errors_exit_2),
		cmocka_unit_test_teardown(test_unload_then_load_with_param, teardown_reload),
	};

	if (sizeof(void *) != 8) {
		fprintf(stderr, "# t_cli: 64-bit only (the tool reads 64-bit lists)\n");
		return 77;
	}
	return cmocka_run_group_tests_name("cli", tests, group_setup, NULL);
}
