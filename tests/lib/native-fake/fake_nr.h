/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kernel-series/ adds to the uapi, as t_shim_unit_native's fake
 * kernel has it: made-up system call numbers, beyond any real table, so
 * nothing can reach a kernel; the commands and the walk budget as the
 * series defines them (its include/uapi/linux/futex.h).
 */
#ifndef RL2_FAKE_NR_H
#define RL2_FAKE_NR_H

#define FAKE_NR_SET_ROBUST_LIST2	90463
#define FAKE_NR_GET_ROBUST_LIST2	90464
#define FAKE_CMD_CREATE_64		3
#define FAKE_CMD_CREATE_32		4
#define FAKE_WALK_LIMIT			(1 << 20)

#endif
