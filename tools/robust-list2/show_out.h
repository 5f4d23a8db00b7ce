/* SPDX-License-Identifier: GPL-2.0 */
/* What robust-list2 show collected, as JSON or as text, on stdout. */
#ifndef RL2_TOOL_SHOW_OUT_H
#define RL2_TOOL_SHOW_OUT_H

#include "show.h"

void show_json(const struct show *s);
void show_text(const struct show *s);

#endif /* RL2_TOOL_SHOW_OUT_H */
