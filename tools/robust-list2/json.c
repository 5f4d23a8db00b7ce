// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON writer behind --json.  Keys are emitted in the order the
 * callers use, which is the documented order (robust-list2(1)); addresses
 * are "0x..." strings, everything countable is a number.  Nesting deeper
 * than JSON_DEPTH is not used by any command and is clamped, not checked.
 */
#include <inttypes.h>

#include "json.h"

#define JSON_DEPTH	16

static struct {
	int depth;
	bool more[JSON_DEPTH];	/* this level already has a member */
} jw;

void json_string(FILE *f, const char *s)
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

void j_open(const char *key, char c)
{
	j_member(key);
	putchar(c);
	if (jw.depth < JSON_DEPTH - 1)
		jw.depth++;
	jw.more[jw.depth] = false;
}

void j_close(char c)
{
	bool had = jw.more[jw.depth];

	jw.depth--;
	if (had)
		printf("\n%*s", 2 * jw.depth, "");
	putchar(c);
	if (!jw.depth)
		putchar('\n');
}

void j_str(const char *key, const char *s)
{
	j_member(key);
	if (s)
		json_string(stdout, s);
	else
		fputs("null", stdout);
}

void j_u64(const char *key, uint64_t v)
{
	j_member(key);
	printf("%" PRIu64, v);
}

void j_s64(const char *key, int64_t v)
{
	j_member(key);
	printf("%" PRId64, v);
}

void j_bool(const char *key, bool v)
{
	j_member(key);
	fputs(v ? "true" : "false", stdout);
}

void j_null(const char *key)
{
	j_member(key);
	fputs("null", stdout);
}

void j_addr(const char *key, uint64_t v)
{
	j_member(key);
	printf("\"0x%" PRIx64 "\"", v);
}
