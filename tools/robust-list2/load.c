// SPDX-License-Identifier: GPL-2.0
/*
 * robust-list2 load [--path FILE.ko] [--param NAME=VALUE]...: through
 * libkmod, as modprobe would (by name, the installed module) or insmod
 * would (a file).  Parameters cannot change a loaded module, so they make
 * "already loaded" an error instead of a success.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libkmod.h>

#include "robust_list2.h"
#include "common.h"
#include "json.h"
#include "load.h"
#include "modstate.h"

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

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
	struct kmod_ctx *ctx = mod_ctx();
	int ret = ctx ? kmod_module_new_from_path(ctx, path, &mod) : -ENOMEM;

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
	struct kmod_ctx *ctx = mod_ctx();
	int ret = ctx ? kmod_module_new_from_lookup(ctx, MODNAME, &list) : -ENOMEM;

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

struct load_args {
	const char *path;
	char params[512];
};

static int load_opt(int c, const char *arg, void *ctx)
{
	struct load_args *a = ctx;

	if (c == 'p') {
		a->path = arg;
		return EXIT_OK;
	}
	return add_param(a->params, sizeof(a->params), arg);
}

int cmd_load(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "path", required_argument, NULL, 'p' },
		{ "param", required_argument, NULL, 'P' },
		{ 0 }
	};
	struct load_args a = { 0 };
	struct mod_state ms;
	int ret;

	ret = cmd_opts(argc, argv, "load", opts, load_opt, &a);
	if (ret != -1)
		return ret;
	if (optind != argc)
		return usage_error("load takes no arguments (use --path FILE.ko)");

	ret = mod_state(&ms);
	if (ret)
		return fail(EXIT_ERR, -ret, "load: libkmod");
	if (ms.loaded) {
		if (a.params[0])
			return fail(EXIT_ERR, EEXIST, "load: %s is already loaded, '%s' not"
				    " applied (unload it first)", MODNAME, a.params);
		load_report(&ms, true);
		return EXIT_OK;
	}
	ret = a.path ? insert_path(a.path, a.params) : insert_by_name(a.params);
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
