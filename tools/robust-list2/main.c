// SPDX-License-Identifier: GPL-2.0
/*
 * robust-list2: look at and manage the robust_list2 module from a shell.
 *
 *   status          is the module loaded (libkmod), its version, what it
 *                   offers and its counters               (status.c)
 *   show PID|TID    every slot of a process's threads, or of one thread,
 *                   and what each list holds              (show*.c)
 *   load, unload    through libkmod, as modprobe and modprobe -r would
 *                                                         (load.c, unload.c)
 *
 * This file only dispatches: global options, then the command named by
 * the first other argument gets the rest (its own argv[0] is its name), as
 * in kmod's tools/kmod.c.  The usage is made from the command table.
 *
 * Output is for people by default, one JSON object per command with
 * --json.  Exit status: 0 ok, 1 error, 2 usage, 3 module not loaded.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "robust_list2.h"
#include "common.h"
#include "load.h"
#include "modstate.h"
#include "show.h"
#include "status.h"
#include "unload.h"

#define HELP_COLUMN	35	/* where a command's help starts in the usage */

struct rl2_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
	const char *args;	/* after the name in the usage */
};

static const struct rl2_cmd commands[] = {
	{ "status", cmd_status, "module loaded?, version, features, counters", "[--json]" },
	{ "show", cmd_show, "slots and robust lists of a process or thread",
	  "PID|TID [--json] [--max-entries N]" },
	{ "load", cmd_load, "load the module (by name, or from FILE.ko)",
	  "[--path FILE.ko] [--param NAME=VALUE]..." },
	{ "unload", cmd_unload, "unload the module", "" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: %s [--json] COMMAND [ARGS]\n\n", prog);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct rl2_cmd *c = &commands[i];
		int n = fprintf(f, "  %s%s%s", c->name, c->args[0] ? " " : "", c->args);

		if (n < HELP_COLUMN)
			fprintf(f, "%*s%s\n", HELP_COLUMN - n, "", c->help);
		else
			fprintf(f, "\n%*s%s\n", HELP_COLUMN, "", c->help);
	}
	fprintf(f, "  --help, --version\n"
		"\n"
		"Exit status: 0 ok, 1 error, 2 usage, 3 module not loaded.  See robust-list2(1).\n");
}

static const struct rl2_cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	const struct rl2_cmd *cmd;
	int c, ret;

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
	cmd = find_cmd(argv[optind]);
	if (!cmd) {
		ret = usage_error("unknown command '%s'", argv[optind]);
	} else {
		ret = cmd->fn(argc - optind, argv + optind);
		if (ret == RL2_HELP) {
			usage(stdout);
			ret = EXIT_OK;
		}
	}
	mod_exit();
	if (fflush(stdout) && ret == EXIT_OK)
		ret = fail(EXIT_ERR, errno, "writing output");
	return ret;
}
