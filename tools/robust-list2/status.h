/* SPDX-License-Identifier: GPL-2.0 */
/* robust-list2 status: is the module loaded, what it offers, its counters. */
#ifndef RL2_TOOL_STATUS_H
#define RL2_TOOL_STATUS_H

int cmd_status(int argc, char **argv);

#endif /* RL2_TOOL_STATUS_H */
