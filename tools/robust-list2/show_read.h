/* SPDX-License-Identifier: GPL-2.0 */
/* Reading the lists of robust-list2 show from the target's memory. */
#ifndef RL2_TOOL_SHOW_READ_H
#define RL2_TOOL_SHOW_READ_H

#include "show.h"

/*
 * Walk every list of every thread in @s.  Memory the target will not let
 * us read is not an error (s->mem_err says why); returns an exit status.
 */
int read_lists(struct show *s);

#endif /* RL2_TOOL_SHOW_READ_H */
