/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every robust-list2 command shares: the exit statuses, the --json
 * switch, error reporting (fail(): one message on stderr and, with --json,
 * the same as the command's one object on stdout) and small parsers.
 */
#ifndef RL2_TOOL_COMMON_H
#define RL2_TOOL_COMMON_H

#include <stdbool.h>
#include <stddef.h>

#define MODNAME		"robust_list2"

/* Exit statuses, as robust-list2(1) documents them. */
enum {
	EXIT_OK = 0,
	EXIT_ERR = 1,
	EXIT_USAGE = 2,
	EXIT_NOT_LOADED = 3,
};

/*
 * What a command returns when asked for --help: main.c, which owns the
 * command table the usage is made from, prints it and exits 0.  Never an
 * exit status.
 */
#define RL2_HELP	(-2)

extern const char *const prog;
extern bool opt_json;

/* The errno's name ("ESRCH"), "E?" when unknown. */
const char *errname(int err);

/*
 * Report a failure and return @code.  @err (an errno, or 0) is appended as
 * "strerror (ENAME)".
 */
int fail(int code, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Report a usage error on stderr only; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct option;

/*
 * A command's options: --json and --help, which every command takes, and
 * @extra (getopt_long()'s table, ended by a zero entry, at most
 * CMD_OPTS_MAX; NULL for none), each of which is handed to @opt with its
 * argument.  Returns -1 to go on, the arguments left at argv[optind], else
 * what the command returns at once: EXIT_USAGE, RL2_HELP or @opt's
 * non-zero answer.
 */
#define CMD_OPTS_MAX	4
int cmd_opts(int argc, char **argv, const char *cmd, const struct option *extra,
	     int (*opt)(int c, const char *arg, void *ctx), void *ctx);

/* The options of a command that takes only --json and --help, no argument. */
int plain_opts(int argc, char **argv, const char *cmd);

/* First line of a small file, without the newline; -errno on failure. */
int read_line(const char *path, char *buf, size_t len);

/* A decimal number <= @max, digits only; 0 or -EINVAL. */
int parse_ulong(const char *s, unsigned long max, unsigned long *v);

#endif /* RL2_TOOL_COMMON_H */
