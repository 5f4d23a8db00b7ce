/* SPDX-License-Identifier: GPL-2.0 */
/*
 * robust-list2 show PID|TID: the slots of a process's threads (or of one
 * thread) and what each list holds.  The types are what show collects;
 * show_read.c fills the lists, show_out.c prints the result.
 */
#ifndef RL2_TOOL_SHOW_H
#define RL2_TOOL_SHOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define DEFAULT_MAX	10000	/* entries shown per list unless --max-entries */
#define MAX_SLOTS	64	/* sanity bound on INFO's nr_slots */

/* One list entry, or the pending op, and its futex word. */
struct word_info {
	uint64_t addr;		/* entry address, PI bit cleared */
	uint64_t uaddr;		/* its futex word */
	uint32_t word;
	bool pi;
	int err;		/* 0, EFAULT (unreadable), EINVAL (misaligned) */
};

enum list_end {
	END_HEAD,		/* back at the head: the whole list */
	END_CYCLE,		/* the last entry links back to end_addr */
	END_LIMIT,		/* the module's walk limit: it stops here too */
	END_CAP,		/* --max-entries: more not shown */
	END_FAULT,		/* end_addr unreadable (or misaligned word) */
	END_UNREAD,		/* head not read (memory not readable) */
};

struct list_info {
	unsigned int slot;
	unsigned int bits;	/* 32 or 64 */
	uint64_t head;		/* as set: a guest address if @base */
	uint64_t base;		/* host address = base + every list address */
	int err;		/* head unreadable: errno */
	int64_t offset;
	bool has_pending;
	bool pending_on_list;
	struct word_info pending;
	struct word_info *ent;
	size_t n, cap;
	enum list_end end;
	uint64_t end_addr;
};

struct thread_info {
	pid_t tid;
	char comm[32];
	bool gone;		/* exited while we looked */
	unsigned int nr;	/* non-empty slots */
	struct list_info lists[MAX_SLOTS];
};

struct show {
	pid_t id;		/* as given */
	pid_t tgid;
	unsigned int nr_slots;
	uint64_t walk_limit;
	size_t max_entries;
	int mem_err;		/* process_vm_readv refused: errno */
	size_t nr_threads;
	struct thread_info *threads;
};

int cmd_show(int argc, char **argv);

#endif /* RL2_TOOL_SHOW_H */
