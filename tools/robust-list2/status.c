// SPDX-License-Identifier: GPL-2.0
/*
 * robust-list2 status: whether the module is loaded (libkmod: init state,
 * refcount, version), what it offers (ROBUST_LIST2_IOC_INFO), its
 * counters (ROBUST_LIST2_IOC_STATS, root) and the caller's own user's
 * exit fault-ins (ROBUST_LIST2_IOC_FAULTS).  Not loaded is an answer, printed as
 * one (text or JSON) on stdout, with exit status 3; the hint to load it
 * goes to stderr, in the words of the other commands.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "robust_list2.h"
#include "common.h"
#include "json.h"
#include "modstate.h"
#include "status.h"

static const char *const feature_names[] = {
	"list64", "list32", "cycle_safe", "private_wake",
	"exec_walk", "create", "unlock", "unlock_window",
	NULL /* bit 8: never reused */, "based", "inline_window", "faults",
};

static const char *feature_name(unsigned int bit, char *buf, size_t len)
{
	if (bit < sizeof(feature_names) / sizeof(feature_names[0]) && feature_names[bit])
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
	STAT(cycles), STAT(limited), STAT(faults), STAT(fixups), STAT(io_timeouts),
	/* the state now, not counters: printed apart */
	STAT(faults_in_flight), STAT(faults_pinned),
};
#undef STAT
#define NR_STATS (sizeof(stat_fields) / sizeof(stat_fields[0]))
#define NR_COUNTERS (NR_STATS - 2)

static uint64_t stat_value(const struct robust_list2_stats *st, unsigned int i)
{
	return *(const uint64_t *)((const char *)st + stat_fields[i].off);
}

static void status_json(const struct mod_state *ms, const struct robust_list2_info *info,
			const struct robust_list2_stats *st, const struct robust_list2_faults *f)
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
		j_u64("io_wait_ms", info->io_wait_ms);
		j_u64("features_mask", info->features);
		j_open("features", '[');
		for (unsigned int b = 0; b < 64; b++)
			if (info->features & (1ULL << b))
				j_str(NULL, feature_name(b, buf, sizeof(buf)));
		j_close(']');
		if (st) {
			j_open("stats", '{');
			for (unsigned int i = 0; i < NR_STATS; i++)
				j_u64(stat_fields[i].name, stat_value(st, i));
			j_close('}');
		} else {
			j_null("stats");	/* needs CAP_SYS_ADMIN */
		}
		if (f) {
			j_open("my_faults", '{');
			j_u64("in_flight", f->in_flight);
			j_u64("pinned", f->pinned);
			j_u64("per_user", f->per_user);
			j_u64("per_mm", f->per_mm);
			j_u64("shared", f->shared);
			j_close('}');
		} else {
			j_null("my_faults");	/* a module without ROBUST_LIST2_F_FAULTS */
		}
	}
	j_close('}');
}

static void status_text(const struct mod_state *ms, const struct robust_list2_info *info,
			const struct robust_list2_stats *st, const struct robust_list2_faults *f)
{
	char buf[16];

	if (!ms->loaded) {
		printf("%s: not loaded (library %s)\n", MODNAME, robust_list2_version());
		return;
	}
	printf("%s: loaded (%s), version %s, refcount %d, library %s\n", MODNAME,
	       ms->state, ms->version[0] ? ms->version : "unknown", ms->refcnt,
	       robust_list2_version());
	printf("  ABI version %u, %u slots per thread, walk limit %" PRIu64 " entries",
	       info->abi_version, info->nr_slots, (uint64_t)info->walk_limit);
	if (info->features & ROBUST_LIST2_F_FAULTS)
		printf(", page deadline %u ms", info->io_wait_ms);
	printf("\n  features:");
	for (unsigned int b = 0; b < 64; b++)
		if (info->features & (1ULL << b))
			printf(" %s", feature_name(b, buf, sizeof(buf)));
	putchar('\n');
	if (f)
		printf("  your exit fault-ins: %u in flight, %u left running (each pins its "
		       "process's memory); limits %u per user, %u per process\n",
		       f->in_flight, f->pinned, f->per_user, f->per_mm);
	if (!st) {
		printf("  counters: not shown (they need CAP_SYS_ADMIN)\n");
		return;
	}
	printf("  live registrations: %" PRIu64 " threads; exit fault-ins, all users: %"
	       PRIu64 " in flight, %" PRIu64 " left running\n", (uint64_t)st->tasks,
	       (uint64_t)st->faults_in_flight, (uint64_t)st->faults_pinned);
	printf("  since load:");
	for (unsigned int i = 1; i < NR_COUNTERS; i++)
		printf("%s %s %" PRIu64, i > 1 ? "," : "", stat_fields[i].name, stat_value(st, i));
	putchar('\n');
}

int cmd_status(int argc, char **argv)
{
	struct robust_list2_stats st = { 0 };
	struct robust_list2_info info = { 0 };
	struct robust_list2_faults f = { 0 };
	bool have_stats = true, have_faults = false;
	struct mod_state ms;
	int ret;

	ret = plain_opts(argc, argv, "status");
	if (ret != -1)
		return ret;

	/* The refcount first: our own descriptor, opened below, pins the module too. */
	ret = mod_state(&ms);
	if (ret)
		return fail(EXIT_ERR, -ret, "status: libkmod");
	if (ms.loaded) {
		ret = get_info(&info, "status");
		if (ret)
			return ret;
		/* The counters are the administrator's (EPERM): status without them. */
		if (robust_list2_stats(&st)) {
			if (errno != EPERM)
				return fail(EXIT_ERR, errno, "status: ROBUST_LIST2_IOC_STATS");
			have_stats = false;
		}
		if (info.features & ROBUST_LIST2_F_FAULTS) {
			if (robust_list2_faults(&f))
				return fail(EXIT_ERR, errno, "status: ROBUST_LIST2_IOC_FAULTS");
			have_faults = true;
		}
	}
	if (opt_json)
		status_json(&ms, &info, have_stats ? &st : NULL, have_faults ? &f : NULL);
	else
		status_text(&ms, &info, have_stats ? &st : NULL, have_faults ? &f : NULL);
	if (!ms.loaded) {
		note_not_loaded("status");
		return EXIT_NOT_LOADED;
	}
	return EXIT_OK;
}
