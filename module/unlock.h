/* SPDX-License-Identifier: GPL-2.0 */
/* ROBUST_LIST2_IOC_UNLOCK (unlock.c). */
#ifndef _RL2_UNLOCK_H
#define _RL2_UNLOCK_H

#include <linux/compiler_types.h>

long rl2_ioctl_unlock(void __user *uarg);

#endif /* _RL2_UNLOCK_H */
