/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's <linux/futex.h> plus what kernel-series/ adds to it, for
 * libshim/native.c in t_shim_unit_native (values: ../fake_nr.h).
 */
#include_next <linux/futex.h>
#include "../fake_nr.h"

#define FUTEX_ROBUST_LIST_CMD_SET_64		0
#define FUTEX_ROBUST_LIST_CMD_SET_32		1
#define FUTEX_ROBUST_LIST_CMD_LIST_LIMIT	2
#define FUTEX_ROBUST_LIST_CMD_CREATE_64		FAKE_CMD_CREATE_64
#define FUTEX_ROBUST_LIST_CMD_CREATE_32		FAKE_CMD_CREATE_32
#define FUTEX_ROBUST_LIST2_WALK_LIMIT		FAKE_WALK_LIMIT
