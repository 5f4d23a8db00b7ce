// SPDX-License-Identifier: GPL-2.0
/*
 * robust-list2 show PID|TID: every slot of a process's threads, or of one
 * thread, and what each list holds: entries, futex words, owner TIDs and
 * flags, the pending op.
 *
 * Who may look: slots are read with robust_list2_slot(), the module's GET
 * behind get_robust_list2() too, so the kernel's
 * PTRACE_MODE_READ_REALCREDS rule decides, as it does for
 * get_robust_list().  The lists themselves live in the target's memory and
 * are read with process_vm_readv() (show_read.c), which needs
 * PTRACE_MODE_ATTACH_REALCREDS, a stricter rule: when only that fails the
 * slots are still shown, with a note.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "robust_list2.h"
#include "common.h"
#include "modstate.h"
#include "show.h"
#include "show_out.h"
#include "show_read.h"

/* Why robust_list2_slot() refused @id, said in terms of show. */
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

/*
 * One slot: head, base and type from the same moment.  A module without
 * based slots (ENOTTY) has none: robust_list2_slot() then.
 */
static int slot_info(pid_t tid, unsigned int i, uint64_t *head, uint64_t *base,
		     unsigned int *type)
{
	static bool no_based;

	if (!no_based) {
		if (!robust_list2_get_based(tid, i, head, base, type))
			return 0;
		if (errno != ENOTTY)
			return -1;
		no_based = true;
	}
	*base = 0;
	return robust_list2_slot(tid, i, head, type);
}

/* Every slot of one thread; a thread other than the one asked for may be gone. */
static int read_slots(struct show *s, struct thread_info *t)
{
	for (unsigned int i = 0; i < s->nr_slots; i++) {
		unsigned int type;
		uint64_t head, base;

		if (slot_info(t->tid, i, &head, &base, &type)) {
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
			.base = base,
			.end = END_UNREAD,
		};
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

/* --max-entries N */
static int show_opt(int c, const char *arg, void *ctx)
{
	struct show *s = ctx;
	unsigned long v;

	if (parse_ulong(arg, SIZE_MAX / 2, &v) || !v)
		return usage_error("--max-entries wants a positive number, not '%s'", arg);
	s->max_entries = v;
	return EXIT_OK;
}

int cmd_show(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "max-entries", required_argument, NULL, 'm' },
		{ 0 }
	};
	struct show s = { .max_entries = DEFAULT_MAX };
	struct robust_list2_info info;
	struct mod_state ms;
	unsigned long v;
	int ret;

	ret = cmd_opts(argc, argv, "show", opts, show_opt, &s);
	if (ret != -1)
		return ret;
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
	if (robust_list2_slot(s.id, 0, NULL, NULL))
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

