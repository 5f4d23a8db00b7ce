/* SPDX-License-Identifier: GPL-2.0 */
/* robust-list2 unload: unload the module (libkmod). */
#ifndef RL2_TOOL_UNLOAD_H
#define RL2_TOOL_UNLOAD_H

int cmd_unload(int argc, char **argv);

#endif /* RL2_TOOL_UNLOAD_H */
