/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal JSON reader: enough for what robust-list2 --json writes
 * (objects, arrays, strings with ASCII escapes, integers, true, false,
 * null), since the guest has no JSON tools.
 *
 * json_parse() returns NULL (and prints the text) for anything else.  The
 * accessors are for cmocka tests: a missing member or a member of another
 * type fails the running test instead of returning a value.
 */
#ifndef TH_JSON_H
#define TH_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype type;
	char *key;		/* member name, inside an object */
	char *str;
	long long num;
	bool b;
	struct jv **kids;
	size_t n;
};

/* The whole text must be one value; free the result with j_free(). */
struct jv *json_parse(const char *s);
void j_free(struct jv *v);

/* Member @key of object @o, of any type, or of type @t. */
struct jv *jget(const struct jv *o, const char *key);
struct jv *jtyped(const struct jv *o, const char *key, enum jtype t);
long long jnum(const struct jv *o, const char *key);
const char *jstr(const struct jv *o, const char *key);
bool jbool(const struct jv *o, const char *key);
bool jnull(const struct jv *o, const char *key);
struct jv *jarr(const struct jv *o, const char *key);
/* An address member: a "0x..." string. */
uint64_t jaddr(const struct jv *o, const char *key);

#endif /* TH_JSON_H */
