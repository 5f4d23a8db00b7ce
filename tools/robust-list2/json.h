/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny JSON writer for --json: one pretty-printed object on stdout per
 * command, two spaces per level.  @key is NULL for array elements.
 */
#ifndef RL2_TOOL_JSON_H
#define RL2_TOOL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* @s as a JSON string literal, quotes included. */
void json_string(FILE *f, const char *s);

/* Open an object ('{') or array ('['); close it with the matching char. */
void j_open(const char *key, char c);
void j_close(char c);

void j_str(const char *key, const char *s);	/* NULL: null */
void j_u64(const char *key, uint64_t v);
void j_s64(const char *key, int64_t v);
void j_bool(const char *key, bool v);
void j_null(const char *key);
void j_addr(const char *key, uint64_t v);	/* "0x..." */

#endif /* RL2_TOOL_JSON_H */
