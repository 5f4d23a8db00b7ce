/* SPDX-License-Identifier: GPL-2.0 */
/* Retired thread records kept per CPU for the next first set (pool.c). */
#ifndef _RL2_POOL_H
#define _RL2_POOL_H

#include <linux/types.h>

#include "rl2_types.h"

struct kmem_cache;

int rl2_pool_init(struct kmem_cache *cache);
void rl2_pool_exit(void);
bool rl2_pool_push(struct rl2_task *rec);
struct rl2_task *rl2_pool_pop(void);

#endif /* _RL2_POOL_H */
