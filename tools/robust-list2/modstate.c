// SPDX-License-Identifier: GPL-2.0
/*
 * Module state through libkmod, as modprobe and lsmod see it, and the
 * device through the library.  One libkmod context per run, made on first
 * use; libkmod's own log lines are silenced because every failure is
 * reported by the caller, in the tool's words.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <libkmod.h>

#include "robust_list2.h"
#include "common.h"
#include "modstate.h"

#define SYSFS_MODULE	"/sys/module/" MODNAME
#define NOT_LOADED	"%s: module %s is not loaded (try: %s load)"

static struct kmod_ctx *kctx;

static void kmod_quiet(void *data, int priority, const char *file, int line,
		       const char *fn, const char *format, va_list args)
{
}

int mod_open(struct kmod_module **mod)
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

struct kmod_ctx *mod_ctx(void)
{
	return kctx;
}

void mod_exit(void)
{
	if (kctx)
		kmod_unref(kctx);
	kctx = NULL;
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

int mod_state(struct mod_state *ms)
{
	struct kmod_module *mod;
	int st, ret;

	memset(ms, 0, sizeof(*ms));
	ms->refcnt = -1;
	ret = mod_open(&mod);
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

int need_module(struct mod_state *ms, const char *what)
{
	int ret = mod_state(ms);

	if (ret)
		return fail(EXIT_ERR, -ret, "%s: libkmod", what);
	if (!ms->loaded)
		return fail(EXIT_NOT_LOADED, 0, NOT_LOADED, what, MODNAME, prog);
	return EXIT_OK;
}

void note_not_loaded(const char *what)
{
	fprintf(stderr, "%s: " NOT_LOADED "\n", prog, what, MODNAME, prog);
}

int get_info(struct robust_list2_info *info, const char *what)
{
	memset(info, 0, sizeof(*info));
	if (robust_list2_info(info) == 0)
		return EXIT_OK;
	if (errno == ENOSYS)
		return fail(EXIT_ERR, 0, "%s: module loaded but %s cannot be opened"
			    " (missing, or no read/write permission)", what, ROBUST_LIST2_DEVICE);
	return fail(EXIT_ERR, errno, "%s: ROBUST_LIST2_IOC_INFO", what);
}
