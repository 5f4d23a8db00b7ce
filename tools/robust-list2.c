// SPDX-License-Identifier: GPL-2.0
/*
 * robust-list2: look at and manage the robust_list2 module from a shell.
 *
 *   status          is the module loaded (libkmod), its version, what it
 *                   offers (ROBUST_LIST2_IOC_INFO) and its counters
 *                   (ROBUST_LIST2_IOC_STATS)
 *   show PID|TID    every slot of a process's threads, or of one thread,
 *                   and what each list holds: entries, futex words, owner
 *                   TIDs and flags, the pending op
 *   load, unload    through libkmod, as modprobe and modprobe -r would
 *
 * Who may look: slots are read with robust_list2_slot(), the module's GET
 * behind get_robust_list2() too, so the kernel's PTRACE_MODE_READ_REALCREDS rule
 * decides, as it does for get_robust_list().  The lists themselves live in
 * the target's memory and are read with process_vm_readv(), which needs
 * PTRACE_MODE_ATTACH_REALCREDS, a stricter rule: when only that fails the
 * slots are still shown, with a note.
 *
 * The walk reads exactly what module/walk.c would walk at exit: pointers
 * of the list's width (32-bit ones zero-extended), bit 0 of an entry is the
 * PI flag, the futex word is at entry + futex_offset (wrapping at 32 bits
 * for 32-bit lists), list_op_pending is reported separately.  The target
 * keeps running and may change its lists while we read them, so the walk
 * is bounded (the module's walk limit, and a display cap) and cycle-safe
 * (Brent, as the module): it always ends.
 *
 * Output is for people by default, one JSON object per command with
 * --json.  Exit status: 0 ok, 1 error, 2 usage, 3 module not loaded.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
#include <linux/futex.h>
#include <libkmod.h>

#include "robust_list2.h"

#define MODNAME		"robust_list2"
#define SYSFS_MODULE	"/sys/module/" MODNAME
#define DEFAULT_MAX	10000	/* entries shown per list unless --max-entries */
#define MAX_SLOTS	64	/* sanity bound on INFO's nr_slots */

enum {
	EXIT_OK = 0,
	EXIT_ERR = 1,
	EXIT_USAGE = 2,
	EXIT_NOT_LOADED = 3,
};

static const char *prog = "robust-list2";
static bool opt_json;

/* ---- messages ----------------------------------------------------------- */

static void json_string(FILE *f, const char *s);

static const char *errname(int err)
{
	const char *n = err ? strerrorname_np(err) : NULL;

	return n ? n : "E?";
}

/*
 * Report a failure and return @code.  @err (an errno, or 0) is appended as
 * "strerror (ENAME)".  With --json the same text also goes to stdout as
 * the command's one object, so that a script reading stdout sees it.
 */
static int __attribute__((format(printf, 3, 4)))
fail(int code, int err, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err && n >= 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - n, ": %s (%s)", strerror(err), errname(err));
	fprintf(stderr, "%s: %s\n", prog, msg);
	if (opt_json) {
		printf("{\n  \"error\": ");
		json_string(stdout, msg);
		printf(",\n  \"errno\": ");
		if (err)
			json_string(stdout, errname(err));
		else
			fputs("null", stdout);
		printf(",\n  \"exit_status\": %d\n}\n", code);
	}
	return code;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--json] COMMAND [ARGS]\n"
		"\n"
		"  status [--json]                  module loaded?, version, features, counters\n"
		"  show PID|TID [--json] [--max-entries N]\n"
		"                                   slots and robust lists of a process or thread\n"
		"  load [--path FILE.ko] [--param NAME=VALUE]...\n"
		"                                   load the module (by name, or from FILE.ko)\n"
		"  unload                           unload the module\n"
		"  --help, --version\n"
		"\n"
		"Exit status: 0 ok, 1 error, 2 usage, 3 module not loaded.  See robust-list2(1).\n",
		prog);
}

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return EXIT_USAGE;
}

/* ---- a tiny JSON writer -------------------------------------------------- */

/*
 * Pretty-printed, two spaces per level.  Keys are emitted in the order the
 * callers use, which is the documented order; addresses are "0x..."
 * strings, everything countable is a number.
 */
#define JSON_DEPTH	16

static struct {
	int depth;
	bool more[JSON_DEPTH];	/* this level already has a member */
} jw;

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void j_member(const char *key)
{
	if (jw.more[jw.depth])
		putchar(',');
	jw.more[jw.depth] = true;
	if (jw.depth)
		printf("\n%*s", 2 * jw.depth, "");
	if (key) {
		json_string(stdout, key);
		fputs(": ", stdout);
	}
}

static void j_open(const char *key, char c)
{
	j_member(key);
	putchar(c);
	if (jw.depth < JSON_DEPTH - 1)
		jw.depth++;
	jw.more[jw.depth] = false;
}

static void j_close(char c)
{
	bool had = jw.more[jw.depth];

	jw.depth--;
	if (had)
		printf("\n%*s", 2 * jw.depth, "");
	putchar(c);
	if (!jw.depth)
		putchar('\n');
}

static void j_str(const char *key, const char *s)
{
	j_member(key);
	if (s)
		json_string(stdout, s);
	else
		fputs("null", stdout);
}

static void j_u64(const char *key, uint64_t v)
{
	j_member(key);
	printf("%" PRIu64, v);
}

static void j_s64(const char *key, int64_t v)
{
	j_member(key);
	printf("%" PRId64, v);
}

static void j_bool(const char *key, bool v)
{
	j_member(key);
	fputs(v ? "true" : "false", stdout);
}

static void j_null(const char *key)
{
	j_member(key);
	fputs("null", stdout);
}

static void j_addr(const char *key, uint64_t v)
{
	j_member(key);
	printf("\"0x%" PRIx64 "\"", v);
}

/* ---- small helpers ------------------------------------------------------- */

/* First line of a small file, without the newline; -errno on failure. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int err;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		err = ferror(f) ? EIO : ENODATA;
		fclose(f);
		return -err;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int parse_ulong(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno || *end || *v > max)
		return -EINVAL;
	return 0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- module state through libkmod ----------------------------------------- */

struct mod_state {
	bool loaded;
	const char *state;	/* "live", "coming", "going", "builtin" */
	int refcnt;		/* -1: unknown */
	char version[64];	/* /sys/module/robust_list2/version */
};

static struct kmod_ctx *kctx;

/* libkmod would print its own "ERROR ..." lines; every failure is reported by us. */
static void kmod_quiet(void *data, int priority, const char *file, int line,
		       const char *fn, const char *format, va_list args)
{
}

static int kmod_open(struct kmod_module **mod)
{
	int ret;

	if (!kctx) {
		kctx = kmod_new(NULL, NULL);
		if (!kctx)
			return -ENOMEM;
		kmod_set_log_fn(kctx, kmod_quiet, NULL);
	}
	ret = kmod_module_new_from_name(kctx, MODNAME, mod);
	return ret < 0 ? ret : 0;
}

static const char *initstate_name(int st)
{
	switch (st) {
	case KMOD_MODULE_BUILTIN:
		return "builtin";
	case KMOD_MODULE_LIVE:
		return "live";
	case KMOD_MODULE_COMING:
		return "coming";
	case KMOD_MODULE_GOING:
		return "going";
	}
	return "unknown";
}

static int mod_state(struct mod_state *ms)
{
	struct kmod_module *mod;
	int st, ret;

	memset(ms, 0, sizeof(*ms));
	ms->refcnt = -1;
	ret = kmod_open(&mod);
	if (ret)
		return ret;
	st = kmod_module_get_initstate(mod);
	if (st >= 0) {
		ms->loaded = true;
		ms->state = initstate_name(st);
		ms->refcnt = kmod_module_get_refcnt(mod);
		if (ms->refcnt < 0)
			ms->refcnt = -1;
		if (read_line(SYSFS_MODULE "/version", ms->version, sizeof(ms->version)))
			ms->version[0] = 0;
	}
	kmod_module_unref(mod);
	return 0;
}

/* Fails with EXIT_NOT_LOADED unless the module is there. */
static int need_module(struct mod_state *ms, const char *what)
{
	int ret = mod_state(ms);

	if (ret)
		return fail(EXIT_ERR, -ret, "%s: libkmod", what);
	if (!ms->loaded)
		return fail(EXIT_NOT_LOADED, 0,
			    "%s: module %s is not loaded (try: %s load)", what, MODNAME, prog);
	return EXIT_OK;
}

/* INFO through the library; a missing or unusable device node is explained. */
static int get_info(struct robust_list2_info *info, const char *what)
{
	memset(info, 0, sizeof(*info));
	if (robust_list2_info(info) == 0)
		return EXIT_OK;
	if (errno == ENOSYS)
		return fail(EXIT_ERR, 0, "%s: module loaded but %s cannot be opened"
			    " (missing, or no read/write permission)", what, ROBUST_LIST2_DEVICE);
	return fail(EXIT_ERR, errno, "%s: ROBUST_LIST2_IOC_INFO", what);
}

/* ---- status ------------------------------------------------------------ */

static const char *const feature_names[] = {
	"list64", "list32", "cycle_safe", "private_wake",
	"exec_walk", "create", "unlock", "unlock_window",
};

static const char *feature_name(unsigned int bit, char *buf, size_t len)
{
	if (bit < sizeof(feature_names) / sizeof(feature_names[0]))
		return feature_names[bit];
	snprintf(buf, len, "bit%u", bit);
	return buf;
}

struct stat_field {
	const char *name;
	size_t off;
};

#define STAT(f) { #f, offsetof(struct robust_list2_stats, f) }
static const struct stat_field stat_fields[] = {
	STAT(tasks), STAT(walks), STAT(entries), STAT(recovered), STAT(woken),
	STAT(cycles), STAT(limited), STAT(faults), STAT(fixups),
};
#undef STAT
#define NR_STATS (sizeof(stat_fields) / sizeof(stat_fields[0]))

static uint64_t stat_value(const struct robust_list2_stats *st, unsigned int i)
{
	return *(const uint64_t *)((const char *)st + stat_fields[i].off);
}

static void status_json(const struct mod_state *ms, const struct robust_list2_info *info,
			const struct robust_list2_stats *st)
{
	char buf[16];

	j_open(NULL, '{');
	j_bool("loaded", ms->loaded);
	j_str("library_version", robust_list2_version());
	if (ms->loaded) {
		j_str("state", ms->state);
		j_s64("refcount", ms->refcnt);
		j_str("version", ms->version[0] ? ms->version : NULL);
		j_u64("abi_version", info->abi_version);
		j_u64("slots", info->nr_slots);
		j_u64("walk_limit", info->walk_limit);
		j_u64("features_mask", info->features);
		j_open("features", '[');
		for (unsigned int b = 0; b < 64; b++)
			if (info->features & (1ULL << b))
				j_str(NULL, feature_name(b, buf, sizeof(buf)));
		j_close(']');
		j_open("stats", '{');
		for (unsigned int i = 0; i < NR_STATS; i++)
			j_u64(stat_fields[i].name, stat_value(st, i));
		j_close('}');
	}
	j_close('}');
}

static void status_text(const struct mod_state *ms, const struct robust_list2_info *info,
			const struct robust_list2_stats *st)
{
	char buf[16];

	if (!ms->loaded) {
		printf("%s: not loaded (library %s)\n", MODNAME, robust_list2_version());
		return;
	}
	printf("%s: loaded (%s), version %s, refcount %d, library %s\n", MODNAME,
	       ms->state, ms->version[0] ? ms->version : "unknown", ms->refcnt,
	       robust_list2_version());
	printf("  ABI version %u, %u slots per thread, walk limit %" PRIu64 " entries\n",
	       info->abi_version, info->nr_slots, (uint64_t)info->walk_limit);
	printf("  features:");
	for (unsigned int b = 0; b < 64; b++)
		if (info->features & (1ULL << b))
			printf(" %s", feature_name(b, buf, sizeof(buf)));
	printf("\n  live registrations: %" PRIu64 " threads\n", (uint64_t)st->tasks);
	printf("  since load:");
	for (unsigned int i = 1; i < NR_STATS; i++)
		printf("%s %s %" PRIu64, i > 1 ? "," : "", stat_fields[i].name, stat_value(st, i));
	putchar('\n');
}

/*
 * Options of a command that takes only --json and --help: returns an exit
 * status to return at once, or -1 to go on.
 */
static int parse_plain_opts(int argc, char **argv, const char *cmd)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return usage_error("%s: bad option", cmd);
		}
	}
	if (optind != argc)
		return usage_error("%s takes no arguments", cmd);
	return -1;
}

static int cmd_status(int argc, char **argv)
{
	struct robust_list2_stats st = { 0 };
	struct robust_list2_info info = { 0 };
	struct mod_state ms;
	int ret;

	ret = parse_plain_opts(argc, argv, "status");
	if (ret >= 0)
		return ret;

	/* The refcount first: our own descriptor, opened below, pins the module too. */
	ret = mod_state(&ms);
	if (ret)
		return fail(EXIT_ERR, -ret, "status: libkmod");
	if (ms.loaded) {
		ret = get_info(&info, "status");
		if (ret)
			return ret;
		if (robust_list2_stats(&st))
			return fail(EXIT_ERR, errno, "status: ROBUST_LIST2_IOC_STATS");
	}
	if (opt_json)
		status_json(&ms, &info, &st);
	else
		status_text(&ms, &info, &st);
	return ms.loaded ? EXIT_OK : EXIT_NOT_LOADED;
}

/* ---- show: what we collect --------------------------------------------- */

/* One list entry, or the pending op, and its futex word. */
struct word_info {
	uint64_t addr;		/* entry address, PI bit cleared */
	uint64_t uaddr;		/* its futex word */
	uint32_t word;
	bool pi;
	int err;		/* 0, EFAULT (unreadable), EINVAL (misaligned) */
};

enum list_end {
	END_HEAD,		/* back at the head: the whole list */
	END_CYCLE,		/* the last entry links back to end_addr */
	END_LIMIT,		/* the module's walk limit: it stops here too */
	END_CAP,		/* --max-entries: more not shown */
	END_FAULT,		/* end_addr unreadable (or misaligned word) */
	END_UNREAD,		/* head not read (memory not readable) */
};

static const char *const end_names[] = {
	[END_HEAD] = "head", [END_CYCLE] = "cycle", [END_LIMIT] = "walk_limit",
	[END_CAP] = "max_entries", [END_FAULT] = "fault", [END_UNREAD] = "unread",
};

struct list_info {
	unsigned int slot;
	unsigned int bits;	/* 32 or 64 */
	uint64_t head;
	int err;		/* head unreadable: errno */
	int64_t offset;
	bool has_pending;
	bool pending_on_list;
	struct word_info pending;
	struct word_info *ent;
	size_t n, cap;
	enum list_end end;
	uint64_t end_addr;
};

struct thread_info {
	pid_t tid;
	char comm[32];
	bool gone;		/* exited while we looked */
	unsigned int nr;	/* non-empty slots */
	struct list_info lists[MAX_SLOTS];
};

struct show {
	pid_t id;		/* as given */
	pid_t tgid;
	unsigned int nr_slots;
	uint64_t walk_limit;
	size_t max_entries;
	int mem_err;		/* process_vm_readv refused: errno */
	size_t nr_threads;
	struct thread_info *threads;
};

/* ---- show: slots through the module ------------------------------------ */

/*
 * robust_list2_slot() is get_robust_list2() with the same permission check
 * that also answers the list's type: head and type from the same moment.
 */
static int get_error(int err, pid_t id)
{
	switch (err) {
	case ESRCH:
		return fail(EXIT_ERR, err, "show %d: no such process or thread", id);
	case EPERM:
		return fail(EXIT_ERR, err, "show %d: not allowed to read its robust lists"
			    " (the kernel's ptrace read rule: same user, or CAP_SYS_PTRACE)", id);
	case ENOSYS:
		return fail(EXIT_NOT_LOADED, 0, "show %d: module %s is not loaded", id, MODNAME);
	}
	return fail(EXIT_ERR, err, "show %d: ROBUST_LIST2_IOC_GET", id);
}

/* Tgid of @id from /proc; @id itself when /proc cannot tell. */
static pid_t proc_tgid(pid_t id)
{
	char path[64], line[256];
	pid_t tgid = id;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", id);
	f = fopen(path, "re");
	if (!f)
		return id;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The threads of @tgid, the leader first; just @tgid if /proc fails. */
static int list_threads(pid_t tgid, pid_t **out, size_t *nr)
{
	size_t n = 0, cap = 16;
	pid_t *tids = malloc(cap * sizeof(*tids));
	struct dirent *de;
	char path[64];
	DIR *d;

	if (!tids)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	d = opendir(path);
	if (d) {
		while ((de = readdir(d))) {
			unsigned long v;

			if (parse_ulong(de->d_name, INT_MAX, &v) || (pid_t)v == tgid)
				continue;
			if (n + 1 == cap) {
				pid_t *p = realloc(tids, 2 * cap * sizeof(*tids));

				if (!p) {
					closedir(d);
					free(tids);
					return -ENOMEM;
				}
				tids = p;
				cap *= 2;
			}
			tids[1 + n++] = (pid_t)v;
		}
		closedir(d);
	}
	qsort(tids + 1, n, sizeof(*tids), cmp_pid);
	tids[0] = tgid;
	*out = tids;
	*nr = n + 1;
	return 0;
}

static void thread_comm(pid_t tgid, struct thread_info *t)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", tgid, t->tid);
	if (read_line(path, t->comm, sizeof(t->comm)))
		t->comm[0] = 0;
}

/* Every slot of one thread; a thread other than the one asked for may be gone. */
static int read_slots(struct show *s, struct thread_info *t)
{
	for (unsigned int i = 0; i < s->nr_slots; i++) {
		unsigned int type;
		uint64_t head;

		if (robust_list2_slot(t->tid, i, &head, &type)) {
			if (errno == ESRCH && t->tid != s->id) {
				t->gone = true;
				t->nr = 0;
				return 0;
			}
			return get_error(errno, t->tid);
		}
		if (type == ROBUST_LIST2_TYPE_EMPTY)
			continue;
		t->lists[t->nr++] = (struct list_info){
			.slot = i,
			.bits = type == ROBUST_LIST2_TYPE_32 ? 32 : 64,
			.head = head,
			.end = END_UNREAD,
		};
	}
	return 0;
}

/* ---- show: the lists through process_vm_readv --------------------------- */

/* 0, -EFAULT for an address that cannot be read, or why memory is closed. */
static int peek(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? -errno : -EFAULT;
}

static int peek_ptr(const struct show *s, const struct list_info *l, uint64_t addr,
		    uint64_t *v)
{
	uint32_t v32;
	int ret;

	if (l->bits == 64)
		return peek(s->tgid, addr, v, sizeof(*v));
	ret = peek(s->tgid, addr, &v32, sizeof(v32));
	*v = v32;
	return ret;
}

/* entry + futex_offset, as the module computes it. */
static uint64_t futex_uaddr(const struct list_info *l, uint64_t entry)
{
	if (l->bits == 32)
		return (uint32_t)((uint32_t)entry + (uint32_t)l->offset);
	return entry + (uint64_t)l->offset;
}

static void read_word(const struct show *s, const struct list_info *l,
		      struct word_info *w, uint64_t ptr)
{
	w->pi = ptr & 1;
	w->addr = ptr & ~1ULL;
	w->uaddr = futex_uaddr(l, w->addr);
	if (w->uaddr & (sizeof(uint32_t) - 1))
		w->err = EINVAL;
	else
		w->err = -peek(s->tgid, w->uaddr, &w->word, sizeof(w->word));
}

/* Head fields: next, futex_offset, list_op_pending. */
static int read_head(const struct show *s, struct list_info *l, uint64_t *first)
{
	uint64_t pending;
	int ret;

	if (l->bits == 64) {
		struct { uint64_t next; int64_t off; uint64_t pending; } h;

		ret = peek(s->tgid, l->head, &h, sizeof(h));
		*first = h.next;
		l->offset = h.off;
		pending = h.pending;
	} else {
		struct { uint32_t next; int32_t off; uint32_t pending; } h;

		ret = peek(s->tgid, l->head, &h, sizeof(h));
		*first = h.next;
		l->offset = h.off;
		pending = h.pending;
	}
	if (ret)
		return ret;
	if (pending) {
		l->has_pending = true;
		read_word(s, l, &l->pending, pending);
	}
	return 0;
}

static struct word_info *add_entry(struct list_info *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct word_info *p = realloc(l->ent, cap * sizeof(*p));

		if (!p)
			return NULL;
		l->ent = p;
		l->cap = cap;
	}
	memset(&l->ent[l->n], 0, sizeof(l->ent[0]));
	return &l->ent[l->n++];
}

/*
 * Brent met an entry again, @lambda steps after the tortoise: the walk
 * visited x[0..n-1], and x[n] = @back.  Keep the first visit of each entry
 * only: mu is the first index with x[mu] == x[mu + lambda]; the last kept
 * entry links back to x[mu].
 */
static void trim_cycle(struct list_info *l, size_t lambda, uint64_t back)
{
	l->end = END_CYCLE;
	l->end_addr = back;
	for (size_t mu = 0; mu + lambda <= l->n; mu++) {
		uint64_t later = mu + lambda < l->n ? l->ent[mu + lambda].addr : back;

		if (l->ent[mu].addr == later) {
			l->n = mu + lambda;
			l->end_addr = l->ent[mu].addr;
			return;
		}
	}
}

/*
 * Walk one list as module/walk.c does: entries until the head comes back,
 * a cycle (Brent), the walk limit, or an unreadable next pointer or futex
 * word (which ends the module's walk too, except on the pending entry).
 * Returns 0, -ENOMEM, or why the process's memory cannot be read.
 */
static int walk_list(const struct show *s, struct list_info *l)
{
	uint64_t limit = s->walk_limit < s->max_entries ? s->walk_limit : s->max_entries;
	unsigned long power = 1, lam = 0;
	uint64_t ptr, entry, tortoise;
	int ret;

	ret = read_head(s, l, &ptr);
	if (ret == -EFAULT)
		l->err = EFAULT;
	if (ret)
		return ret == -EFAULT ? 0 : ret;	/* else: no memory access at all */
	l->end = END_HEAD;
	entry = ptr & ~1ULL;
	tortoise = l->head;
	while (entry != l->head) {
		struct word_info *w;
		uint64_t next;
		int rc;

		if (l->n == limit) {
			l->end = limit == s->walk_limit ? END_LIMIT : END_CAP;
			l->end_addr = entry;
			break;
		}
		w = add_entry(l);
		if (!w)
			return -ENOMEM;
		rc = peek_ptr(s, l, entry, &next);
		read_word(s, l, w, ptr);
		if (l->has_pending && w->addr == l->pending.addr)
			l->pending_on_list = true;
		else if (w->err) {
			l->end = END_FAULT;
			l->end_addr = w->uaddr;
			break;
		}
		if (rc) {
			l->end = END_FAULT;
			l->end_addr = entry;
			break;
		}
		ptr = next;
		entry = next & ~1ULL;
		if (entry == l->head)
			break;
		if (entry == tortoise) {
			trim_cycle(l, lam + 1, entry);
			break;
		}
		if (++lam == power) {
			tortoise = entry;
			power <<= 1;
			lam = 0;
		}
	}
	return 0;
}

static int read_lists(struct show *s)
{
	for (size_t i = 0; i < s->nr_threads; i++) {
		struct thread_info *t = &s->threads[i];

		for (unsigned int j = 0; j < t->nr && !s->mem_err; j++) {
			int ret = walk_list(s, &t->lists[j]);

			if (ret == -ENOMEM)
				return fail(EXIT_ERR, ENOMEM, "show %d", s->id);
			if (ret)
				s->mem_err = -ret;
		}
	}
	return 0;
}

static int collect(struct show *s)
{
	pid_t *tids;
	size_t nr = 1;
	int ret;

	s->tgid = proc_tgid(s->id);
	if (s->tgid == s->id) {
		ret = list_threads(s->tgid, &tids, &nr);
		if (ret)
			return fail(EXIT_ERR, -ret, "show %d", s->id);
	} else {
		tids = malloc(sizeof(*tids));
		if (!tids)
			return fail(EXIT_ERR, ENOMEM, "show %d", s->id);
		tids[0] = s->id;
	}
	s->threads = calloc(nr, sizeof(*s->threads));
	if (!s->threads) {
		free(tids);
		return fail(EXIT_ERR, ENOMEM, "show %d", s->id);
	}
	for (size_t i = 0; i < nr; i++) {
		struct thread_info *t = &s->threads[s->nr_threads];

		t->tid = tids[i];
		ret = read_slots(s, t);
		if (ret) {
			free(tids);
			return ret;
		}
		if (t->gone)
			continue;
		thread_comm(s->tgid, t);
		s->nr_threads++;
	}
	free(tids);
	return read_lists(s);
}

static void free_show(struct show *s)
{
	for (size_t i = 0; i < s->nr_threads; i++)
		for (unsigned int j = 0; j < s->threads[i].nr; j++)
			free(s->threads[i].lists[j].ent);
	free(s->threads);
}

/* ---- show: output ------------------------------------------------------- */

static void word_json(const char *key, const struct word_info *w, pid_t tid)
{
	uint32_t owner = w->word & FUTEX_TID_MASK;

	j_open(key, '{');
	j_addr("address", w->addr);
	j_bool("pi", w->pi);
	j_addr("futex", w->uaddr);
	if (w->err) {
		j_null("word");
		j_null("owner");
	} else {
		j_u64("word", w->word);
		j_u64("owner", owner);
	}
	j_bool("waiters", !w->err && (w->word & FUTEX_WAITERS));
	j_bool("owner_died", !w->err && (w->word & FUTEX_OWNER_DIED));
	j_bool("owned_by_thread", !w->err && owner == (uint32_t)tid);
	j_str("error", !w->err ? NULL : w->err == EINVAL ? "misaligned" : "unreadable");
	j_close('}');
}

static void list_json(const struct list_info *l, pid_t tid)
{
	j_open(NULL, '{');
	j_u64("slot", l->slot);
	j_u64("bits", l->bits);
	j_addr("head", l->head);
	j_str("error", l->err ? strerror(l->err) : NULL);
	if (l->end == END_UNREAD)
		j_null("futex_offset");
	else
		j_s64("futex_offset", l->offset);
	j_u64("entry_count", l->n);
	j_open("entries", '[');
	for (size_t i = 0; i < l->n; i++)
		word_json(NULL, &l->ent[i], tid);
	j_close(']');
	j_str("end", end_names[l->end]);
	if (l->end == END_CYCLE || l->end == END_FAULT || l->end == END_LIMIT ||
	    l->end == END_CAP)
		j_addr("end_address", l->end_addr);
	else
		j_null("end_address");
	if (l->has_pending) {
		word_json("list_op_pending", &l->pending, tid);
		j_bool("pending_on_list", l->pending_on_list);
	} else {
		j_null("list_op_pending");
		j_bool("pending_on_list", false);
	}
	j_close('}');
}

static void show_json(const struct show *s)
{
	j_open(NULL, '{');
	j_s64("pid", s->tgid);
	j_s64("requested", s->id);
	j_bool("memory_readable", !s->mem_err);
	j_str("memory_error", s->mem_err ? strerror(s->mem_err) : NULL);
	j_u64("slots", s->nr_slots);
	j_u64("walk_limit", s->walk_limit);
	j_u64("max_entries", s->max_entries);
	j_open("threads", '[');
	for (size_t i = 0; i < s->nr_threads; i++) {
		const struct thread_info *t = &s->threads[i];

		j_open(NULL, '{');
		j_s64("tid", t->tid);
		j_str("comm", t->comm);
		j_open("slots", '[');
		for (unsigned int j = 0; j < t->nr; j++)
			list_json(&t->lists[j], t->tid);
		j_close(']');
		j_close('}');
	}
	j_close(']');
	j_close('}');
}

static void word_text(const char *label, const struct word_info *w, pid_t tid)
{
	uint32_t owner = w->word & FUTEX_TID_MASK;

	printf("    %s0x%" PRIx64 "%s  ", label, w->addr, w->pi ? " PI" : "");
	if (w->err == EINVAL) {
		printf("futex word 0x%" PRIx64 " misaligned\n", w->uaddr);
		return;
	}
	if (w->err) {
		printf("futex word 0x%" PRIx64 " unreadable\n", w->uaddr);
		return;
	}
	printf("word 0x%08x owner %u%s%s%s\n", w->word, owner,
	       owner == (uint32_t)tid ? " (this thread)" : "",
	       w->word & FUTEX_WAITERS ? " WAITERS" : "",
	       w->word & FUTEX_OWNER_DIED ? " OWNER_DIED" : "");
}

static void list_end_text(const struct show *s, const struct list_info *l)
{
	switch (l->end) {
	case END_HEAD:
	case END_UNREAD:
		break;
	case END_CYCLE:
		printf("    cycle detected: the last entry links back to 0x%" PRIx64
		       " (the module's walk stops there too)\n", l->end_addr);
		break;
	case END_LIMIT:
		printf("    ... more: walk limit (%" PRIu64 ") reached at 0x%" PRIx64
		       "; the module's exit walk stops there too\n", s->walk_limit, l->end_addr);
		break;
	case END_CAP:
		printf("    ... more entries from 0x%" PRIx64 " not shown (--max-entries %zu)\n",
		       l->end_addr, s->max_entries);
		break;
	case END_FAULT:
		printf("    walk ends: 0x%" PRIx64 " cannot be read (the module's walk stops"
		       " there too)\n", l->end_addr);
		break;
	}
}

static void list_text(const struct show *s, const struct list_info *l, pid_t tid)
{
	printf("  slot %u: %u-bit list, head 0x%" PRIx64, l->slot, l->bits, l->head);
	if (l->end == END_UNREAD) {
		if (l->err)
			printf(", head unreadable (%s)", strerror(l->err));
		putchar('\n');
		return;
	}
	printf(", futex_offset %" PRId64 ", %zu %s\n", l->offset, l->n,
	       l->n == 1 ? "entry" : "entries");
	for (size_t i = 0; i < l->n; i++)
		word_text("", &l->ent[i], tid);
	list_end_text(s, l);
	if (l->has_pending)
		word_text(l->pending_on_list ? "pending (on the list) " : "pending ",
			  &l->pending, tid);
	else
		printf("    pending: none\n");
}

static void show_text(const struct show *s)
{
	printf("pid %d: %zu thread%s, %u slots each\n", s->tgid, s->nr_threads,
	       s->nr_threads == 1 ? "" : "s", s->nr_slots);
	for (size_t i = 0; i < s->nr_threads; i++) {
		const struct thread_info *t = &s->threads[i];

		printf("thread %d (%s)%s%s\n", t->tid, t->comm,
		       t->tid == s->tgid ? " leader" : "", t->nr ? ":" : ": no slots in use");
		for (unsigned int j = 0; j < t->nr; j++)
			list_text(s, &t->lists[j], t->tid);
	}
	if (s->mem_err)
		printf("note: list contents not shown: cannot read the memory of pid %d (%s);"
		       " process_vm_readv needs ptrace-attach permission, which is stricter"
		       " than the read permission the slots need\n", s->tgid, strerror(s->mem_err));
}

static int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "max-entries", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct show s = { .max_entries = DEFAULT_MAX };
	struct robust_list2_info info;
	struct mod_state ms;
	unsigned long v;
	uint64_t head;
	unsigned int type;
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, "jm:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = true;
			break;
		case 'm':
			if (parse_ulong(optarg, SIZE_MAX / 2, &v) || !v)
				return usage_error("--max-entries wants a positive number, not '%s'",
						   optarg);
			s.max_entries = v;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return usage_error("show: bad option");
		}
	}
	if (optind + 1 != argc)
		return usage_error("show wants one PID or TID");
	if (parse_ulong(argv[optind], INT_MAX, &v) || !v)
		return usage_error("show: '%s' is not a PID or TID", argv[optind]);
	s.id = (pid_t)v;

	ret = need_module(&ms, "show");
	if (ret)
		return ret;
	ret = get_info(&info, "show");
	if (ret)
		return ret;
	s.nr_slots = info.nr_slots < MAX_SLOTS ? info.nr_slots : MAX_SLOTS;
	s.walk_limit = info.walk_limit;

	/* The kernel decides first whether this id exists and may be read. */
	if (robust_list2_slot(s.id, 0, &head, &type))
		return get_error(errno, s.id);

	ret = collect(&s);
	if (!ret) {
		if (opt_json)
			show_json(&s);
		else
			show_text(&s);
	}
	free_show(&s);
	return ret;
}

/* ---- load / unload ------------------------------------------------------ */

static bool param_ok(const char *p)
{
	const char *eq = strchr(p, '=');

	if (!eq || eq == p || !eq[1])
		return false;
	for (const char *c = p; c < eq; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return false;
	for (const char *c = eq + 1; *c; c++)
		if (isspace((unsigned char)*c) || *c == '"')
			return false;
	return true;
}

static int add_param(char *opts, size_t len, const char *p)
{
	size_t used = strlen(opts);

	if (!param_ok(p))
		return usage_error("--param wants NAME=VALUE (e.g. walk_limit=65536), not '%s'", p);
	if (used + strlen(p) + 2 > len)
		return usage_error("--param: too many parameters");
	snprintf(opts + used, len - used, "%s%s", used ? " " : "", p);
	return EXIT_OK;
}

static bool wait_for(const char *path, bool present, int ms)
{
	for (int waited = 0; (access(path, F_OK) == 0) != present; waited += 10) {
		if (waited >= ms)
			return false;
		sleep_ms(10);
	}
	return true;
}

static int load_error(int err, const char *what)
{
	switch (err) {
	case EPERM:
		return fail(EXIT_ERR, err, "load %s: loading modules needs CAP_SYS_MODULE (root)",
			    what);
	case ENOEXEC:
	case EINVAL:
		return fail(EXIT_ERR, err, "load %s: not a module for this kernel, or a bad"
			    " parameter (see dmesg)", what);
	case EBUSY:
		return fail(EXIT_ERR, err, "load %s: the module refused to load (its reason"
			    " is in dmesg)", what);
	}
	return fail(EXIT_ERR, err, "load %s", what);
}

static int insert_path(const char *path, const char *opts)
{
	struct kmod_module *mod;
	int ret = kctx ? kmod_module_new_from_path(kctx, path, &mod) : -ENOMEM;

	if (ret < 0)
		return fail(EXIT_ERR, -ret, "load %s", path);
	ret = kmod_module_insert_module(mod, 0, opts);
	kmod_module_unref(mod);
	return ret < 0 ? load_error(-ret, path) : EXIT_OK;
}

/* By name, as modprobe: the installed module (DKMS or make install). */
static int insert_by_name(const char *opts)
{
	struct kmod_list *list = NULL, *it;
	int ret = kctx ? kmod_module_new_from_lookup(kctx, MODNAME, &list) : -ENOMEM;

	if (ret < 0 || !list)
		return fail(EXIT_ERR, ret < 0 ? -ret : 0, "load: no %s module installed for"
			    " this kernel (make dkms-install, or load --path FILE.ko)", MODNAME);
	ret = 0;
	kmod_list_foreach(it, list) {
		struct kmod_module *mod = kmod_module_get_module(it);

		ret = kmod_module_probe_insert_module(mod, KMOD_PROBE_FAIL_ON_LOADED, opts,
						      NULL, NULL, NULL);
		kmod_module_unref(mod);
		if (ret)
			break;
	}
	kmod_module_unref_list(list);
	if (ret > 0)
		return fail(EXIT_ERR, 0, "load: %s is blacklisted", MODNAME);
	return ret < 0 ? load_error(-ret, MODNAME) : EXIT_OK;
}

static void load_report(const struct mod_state *ms, bool already)
{
	if (opt_json) {
		j_open(NULL, '{');
		j_bool("loaded", true);
		j_bool("already_loaded", already);
		j_str("version", ms->version[0] ? ms->version : NULL);
		j_close('}');
	} else if (already) {
		printf("%s %s is already loaded\n", MODNAME, ms->version);
	} else {
		printf("%s %s loaded, %s ready\n", MODNAME, ms->version, ROBUST_LIST2_DEVICE);
	}
}

static int cmd_load(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "path", required_argument, NULL, 'p' },
		{ "param", required_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char params[512] = "";
	const char *path = NULL;
	struct mod_state ms;
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, "p:P:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			path = optarg;
			break;
		case 'P':
			ret = add_param(params, sizeof(params), optarg);
			if (ret)
				return ret;
			break;
		case 'j':
			opt_json = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return usage_error("load: bad option");
		}
	}
	if (optind != argc)
		return usage_error("load takes no arguments (use --path FILE.ko)");

	ret = mod_state(&ms);
	if (ret)
		return fail(EXIT_ERR, -ret, "load: libkmod");
	if (ms.loaded) {
		if (params[0])
			return fail(EXIT_ERR, EEXIST, "load: %s is already loaded, '%s' not"
				    " applied (unload it first)", MODNAME, params);
		load_report(&ms, true);
		return EXIT_OK;
	}
	ret = path ? insert_path(path, params) : insert_by_name(params);
	if (ret)
		return ret;
	if (!wait_for(ROBUST_LIST2_DEVICE, true, 5000))
		return fail(EXIT_ERR, 0, "load: module loaded but %s did not appear",
			    ROBUST_LIST2_DEVICE);
	ret = mod_state(&ms);
	if (ret)
		return fail(EXIT_ERR, -ret, "load: libkmod");
	load_report(&ms, false);
	return EXIT_OK;
}

/*
 * Each thread with a slot holds a reference on the module, and so does
 * each open descriptor of the device: split the refcount for the message.
 * The refcount is read before our own descriptor exists.
 */
static int busy_error(struct kmod_module *mod)
{
	int refcnt = kmod_module_get_refcnt(mod);
	struct robust_list2_stats st;
	long long files;

	if (refcnt < 0 || robust_list2_stats(&st))
		return fail(EXIT_ERR, 0, "cannot unload %s: in use (refcount %d)", MODNAME,
			    refcnt);
	files = (long long)refcnt - (long long)st.tasks;
	return fail(EXIT_ERR, 0, "cannot unload %s: in use: %" PRIu64 " thread%s hold%s slots,"
		    " %s open %lld time%s (refcount %d)", MODNAME, (uint64_t)st.tasks,
		    st.tasks == 1 ? "" : "s", st.tasks == 1 ? "s" : "", ROBUST_LIST2_DEVICE,
		    files < 0 ? 0 : files, files == 1 ? "" : "s", refcnt);
}

static int cmd_unload(int argc, char **argv)
{
	struct kmod_module *mod;
	struct mod_state ms;
	int ret;

	ret = parse_plain_opts(argc, argv, "unload");
	if (ret >= 0)
		return ret;

	ret = need_module(&ms, "unload");
	if (ret)
		return ret;
	if (!strcmp(ms.state, "builtin"))
		return fail(EXIT_ERR, 0, "unload: %s is built into the kernel", MODNAME);
	ret = kmod_open(&mod);
	if (ret)
		return fail(EXIT_ERR, -ret, "unload: libkmod");
	ret = kmod_module_remove_module(mod, 0);
	if (ret == -EAGAIN || ret == -EBUSY)
		ret = busy_error(mod);
	else if (ret == -EPERM)
		ret = fail(EXIT_ERR, EPERM, "unload: needs CAP_SYS_MODULE (root)");
	else if (ret == -ENOENT)
		ret = fail(EXIT_NOT_LOADED, 0, "unload: %s is not loaded", MODNAME);
	else if (ret < 0)
		ret = fail(EXIT_ERR, -ret, "unload %s", MODNAME);
	kmod_module_unref(mod);
	if (ret)
		return ret;
	if (opt_json) {
		j_open(NULL, '{');
		j_bool("unloaded", true);
		j_close('}');
	} else {
		printf("%s unloaded\n", MODNAME);
	}
	return EXIT_OK;
}

/* ---- main --------------------------------------------------------------- */

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "status", cmd_status },
	{ "show", cmd_show },
	{ "load", cmd_load },
	{ "unload", cmd_unload },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	int c, ret = -1;

	while ((c = getopt_long(argc, argv, "+jhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("%s %s\n", prog, robust_list2_version());
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[optind], commands[i].name))
			ret = commands[i].fn(argc - optind, argv + optind);
	if (ret < 0)
		ret = usage_error("unknown command '%s'", argv[optind]);
	if (kctx)
		kmod_unref(kctx);
	if (fflush(stdout) && ret == EXIT_OK)
		ret = fail(EXIT_ERR, errno, "writing output");
	return ret;
}
