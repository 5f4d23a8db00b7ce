/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is the module loaded (libkmod), and is its device usable: the checks
 * every command makes before it does its work.
 */
#ifndef RL2_TOOL_MODSTATE_H
#define RL2_TOOL_MODSTATE_H

#include <stdbool.h>

struct kmod_ctx;
struct kmod_module;
struct robust_list2_info;

struct mod_state {
	bool loaded;
	const char *state;	/* "live", "coming", "going", "builtin" */
	int refcnt;		/* -1: unknown */
	char version[64];	/* /sys/module/robust_list2/version */
};

/* Fill @ms; 0, or -errno when libkmod cannot be asked. */
int mod_state(struct mod_state *ms);

/* mod_state(), failing with EXIT_NOT_LOADED unless the module is there. */
int need_module(struct mod_state *ms, const char *what);

/*
 * need_module()'s message and hint (try: robust-list2 load) on stderr only,
 * for status, whose stdout answers "not loaded" itself.
 */
void note_not_loaded(const char *what);

/* INFO through the library; a missing or unusable device node is explained. */
int get_info(struct robust_list2_info *info, const char *what);

/* A reference on the module by name (kmod_module_unref() it); 0 or -errno. */
int mod_open(struct kmod_module **mod);

/* The libkmod context mod_state() or mod_open() made, or NULL. */
struct kmod_ctx *mod_ctx(void);

/* Drop the context, at exit. */
void mod_exit(void);

#endif /* RL2_TOOL_MODSTATE_H */
