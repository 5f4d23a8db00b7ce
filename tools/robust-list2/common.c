// SPDX-License-Identifier: GPL-2.0
/*
 * Messages, option parsing and small parsers shared by the commands.
 *
 * With --json a failure is still one message on stderr, and the same text
 * also goes to stdout as the command's one object, so that a script
 * reading stdout sees it.  Usage errors go to stderr only.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "json.h"

const char *const prog = "robust-list2";
bool opt_json;

const char *errname(int err)
{
	const char *n = err ? strerrorname_np(err) : NULL;

	return n ? n : "E?";
}

int fail(int code, int err, const char *fmt, ...)
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

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return EXIT_USAGE;
}

int cmd_opts(int argc, char **argv, const char *cmd, const struct option *extra,
	     int (*opt)(int c, const char *arg, void *ctx), void *ctx)
{
	struct option opts[CMD_OPTS_MAX + 3] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
	};
	char letters[2 * CMD_OPTS_MAX + 3] = "jh";
	size_t n = 2, k = 2;
	int c, ret;

	for (; extra && extra->name; extra++) {
		if (n == CMD_OPTS_MAX + 2)
			return fail(EXIT_ERR, 0, "%s: more than %d options", cmd, CMD_OPTS_MAX);
		opts[n++] = *extra;
		letters[k++] = (char)extra->val;
		if (extra->has_arg == required_argument)
			letters[k++] = ':';
	}
	optind = 0;
	while ((c = getopt_long(argc, argv, letters, opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt_json = true;
			break;
		case 'h':
			return RL2_HELP;
		case '?':
			return usage_error("%s: bad option", cmd);
		default:
			ret = opt(c, optarg, ctx);
			if (ret)
				return ret;
		}
	}
	return -1;
}

int plain_opts(int argc, char **argv, const char *cmd)
{
	int ret = cmd_opts(argc, argv, cmd, NULL, NULL, NULL);

	if (ret == -1 && optind != argc)
		return usage_error("%s takes no arguments", cmd);
	return ret;
}

int read_line(const char *path, char *buf, size_t len)
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

int parse_ulong(const char *s, unsigned long max, unsigned long *v)
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
