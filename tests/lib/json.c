// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal JSON reader for the suites that check robust-list2 --json
 * output (the guest has no JSON tools); see json.h.
 */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "json.h"

void j_free(struct jv *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++)
		j_free(v->kids[i]);
	free(v->kids);
	free(v->key);
	free(v->str);
	free(v);
}

static void j_ws(const char **p)
{
	while (isspace((unsigned char)**p))
		(*p)++;
}

/* At the opening quote; ASCII \u escapes only (the tool writes no others). */
static char *j_string(const char **p)
{
	const char *q = *p + 1;
	unsigned int u;
	char *out, *o;

	while (*q && *q != '"')		/* an upper bound of the decoded length */
		q += q[0] == '\\' && q[1] ? 2 : 1;
	out = o = malloc(q - *p);

	for ((*p)++; out && **p && **p != '"'; (*p)++) {
		char c = **p;

		if ((unsigned char)c < 0x20)
			goto bad;
		if (c == '\\') {
			c = *++*p;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case '"': case '\\': case '/': break;
			case 'u':
				if (sscanf(*p + 1, "%4x", &u) != 1 || u > 0x7f)
					goto bad;
				c = (char)u;
				*p += 4;
				break;
			default:
				goto bad;
			}
		}
		*o++ = c;
	}
	if (!out || **p != '"')
		goto bad;
	(*p)++;
	*o = 0;
	return out;
bad:
	free(out);
	return NULL;
}

static bool j_word(const char **p, const char *w)
{
	size_t n = strlen(w);

	if (strncmp(*p, w, n))
		return false;
	*p += n;
	return true;
}

static struct jv *j_value(const char **p, int depth);

static bool j_add(struct jv *v, struct jv *kid)
{
	struct jv **k = realloc(v->kids, (v->n + 1) * sizeof(*k));

	if (!k)
		return false;
	v->kids = k;
	v->kids[v->n++] = kid;
	return true;
}

static bool j_members(const char **p, struct jv *v, int depth)
{
	char close = v->type == J_OBJ ? '}' : ']';

	j_ws(p);
	if (**p == close) {
		(*p)++;
		return true;
	}
	for (;;) {
		char *key = NULL;
		struct jv *kid;

		j_ws(p);
		if (v->type == J_OBJ) {
			if (**p != '"' || !(key = j_string(p)))
				return false;
			j_ws(p);
			if (*(*p)++ != ':') {
				free(key);
				return false;
			}
		}
		kid = j_value(p, depth + 1);
		if (!kid) {
			free(key);
			return false;
		}
		kid->key = key;
		if (!j_add(v, kid)) {
			j_free(kid);
			return false;
		}
		j_ws(p);
		if (**p == ',') {
			(*p)++;
			continue;
		}
		return *(*p)++ == close;
	}
}

static struct jv *j_value(const char **p, int depth)
{
	struct jv *v = calloc(1, sizeof(*v));
	char *end;

	j_ws(p);
	if (!v || depth > 32)
		goto bad;
	if (**p == '{' || **p == '[') {
		v->type = *(*p)++ == '{' ? J_OBJ : J_ARR;
		if (!j_members(p, v, depth))
			goto bad;
	} else if (**p == '"') {
		v->type = J_STR;
		v->str = j_string(p);
		if (!v->str)
			goto bad;
	} else if (j_word(p, "true")) {
		v->type = J_BOOL;
		v->b = true;
	} else if (j_word(p, "false")) {
		v->type = J_BOOL;
	} else if (j_word(p, "null")) {
		v->type = J_NULL;
	} else {
		v->type = J_NUM;
		errno = 0;
		v->num = strtoll(*p, &end, 10);
		if (end == *p || errno || *end == '.' || *end == 'e' || *end == 'E')
			goto bad;
		*p = end;
	}
	return v;
bad:
	j_free(v);
	return NULL;
}

/* The whole text must be one value. */
struct jv *json_parse(const char *s)
{
	const char *p = s;
	struct jv *v = j_value(&p, 0);

	j_ws(&p);
	if (v && *p) {
		j_free(v);
		v = NULL;
	}
	if (!v)
		fprintf(stderr, "# not JSON:\n%s\n", s);
	return v;
}

struct jv *jget(const struct jv *o, const char *key)
{
	assert_non_null(o);
	assert_int_equal(J_OBJ, o->type);
	for (size_t i = 0; i < o->n; i++)
		if (!strcmp(o->kids[i]->key, key))
			return o->kids[i];
	fail_msg("no member \"%s\"", key);
	return NULL;
}

struct jv *jtyped(const struct jv *o, const char *key, enum jtype t)
{
	struct jv *v = jget(o, key);

	if (v->type != t)
		fail_msg("member \"%s\" has type %d, not %d", key, v->type, t);
	return v;
}

long long jnum(const struct jv *o, const char *key)
{
	return jtyped(o, key, J_NUM)->num;
}

const char *jstr(const struct jv *o, const char *key)
{
	return jtyped(o, key, J_STR)->str;
}

bool jbool(const struct jv *o, const char *key)
{
	return jtyped(o, key, J_BOOL)->b;
}

bool jnull(const struct jv *o, const char *key)
{
	return jget(o, key)->type == J_NULL;
}

struct jv *jarr(const struct jv *o, const char *key)
{
	return jtyped(o, key, J_ARR);
}

/* An address member: a "0x..." string. */
uint64_t jaddr(const struct jv *o, const char *key)
{
	const char *s = jstr(o, key);

	assert_memory_equal("0x", s, 2);
	return strtoull(s + 2, NULL, 16);
}
