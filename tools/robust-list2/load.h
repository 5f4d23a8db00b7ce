/* SPDX-License-Identifier: GPL-2.0 */
/* robust-list2 load: load the module by name or from a file (libkmod). */
#ifndef RL2_TOOL_LOAD_H
#define RL2_TOOL_LOAD_H

int cmd_load(int argc, char **argv);

#endif /* RL2_TOOL_LOAD_H */
