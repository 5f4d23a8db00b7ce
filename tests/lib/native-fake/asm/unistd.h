/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host's <asm/unistd.h> plus the two system calls of kernel-series/,
 * with fake_nr.h's made-up numbers: what libshim/native.c is built against
 * for t_shim_unit_native (lib/shim_fake.c wraps syscall()).
 */
#include_next <asm/unistd.h>
#include "../fake_nr.h"

#define __NR_set_robust_list2	FAKE_NR_SET_ROBUST_LIST2
#define __NR_get_robust_list2	FAKE_NR_GET_ROBUST_LIST2
