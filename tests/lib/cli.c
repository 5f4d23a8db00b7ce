// SPDX-License-Identifier: GPL-2.0
/*
 * Running robust-list2, the command-line tool, and a target process for
 * it to show; see cli.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "cli.h"
#include "helpers.h"
#include "json.h"

#define OUT_MAX		(8 << 20)	/* a 10000-entry list is ~3 MiB of JSON */

char cli[PATH_MAX];

/* ---- running the tool ------------------------------------------------------ */

void run_free(struct run *r)
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
int run_cli(struct run *r, uid_t uid, const char *fmt, ...)
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
struct jv *run_json(struct run *r, int expect, uid_t uid, const char *fmt, ...)
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

bool module_loaded(void)
{
	struct stat st;

	return stat("/sys/module/robust_list2", &st) == 0;
}

/* ---- the target process ---------------------------------------------------- */

struct target tgt;
char yama_saved[16];

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

int target_start(uid_t uid)
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

int setup_target(void **state)
{
	return target_start(0);
}

int setup_target_nobody(void **state)
{
	return target_start(NOBODY);
}

/* First line of a small file, newline dropped; 0 or -1. */
int read_line(const char *path, char *buf, size_t len)
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

int teardown_target(void **state)
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

/* ---- reading show --json ---------------------------------------------------- */

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
const struct jv *only_slot(const struct jv *show, pid_t tid, long long index)
{
	const struct jv *slots = jarr(find_thread(show, tid), "slots");

	assert_int_equal(1, slots->n);
	assert_int_equal(index, jnum(slots->kids[0], "slot"));
	return slots->kids[0];
}

/* Slot @index of thread @tid, which has @nr non-empty slots. */
const struct jv *slot_of(const struct jv *show, pid_t tid, size_t nr, long long index)
{
	const struct jv *slots = jarr(find_thread(show, tid), "slots");

	assert_int_equal(nr, slots->n);
	for (size_t i = 0; i < slots->n; i++)
		if (jnum(slots->kids[i], "slot") == index)
			return slots->kids[i];
	fail_msg("thread %d has no slot %lld", tid, index);
	return NULL;
}

void expect_in(const char *text, const char *fmt, ...)
{
	char want[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	if (!strstr(text, want))
		fail_msg("\"%s\" not in the output", want);
}

void expect_word(const struct jv *e, const void *entry, const uint32_t *futex,
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

/* The tool: $RL2_CLI, else ../tools/robust-list2/robust-list2 from this binary's directory. */
int cli_group_setup(void **state)
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
		snprintf(cli, sizeof(cli), "%s/../tools/robust-list2/robust-list2", self);
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
