// SPDX-License-Identifier: GPL-2.0
/*
 * scale: thousands of threads alive at once, each with every slot
 * registered, against as many plain threads: the cost per thread must
 * not grow with the number registered, and the registry's memory per
 * thread is what the Slab counter grows by.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/futex.h>

#include "bench.h"

#define SCALE_STACK	(64 << 10)
#define LINEAR_TARGET	1.10	/* SPEC.md: cost per thread at 10k vs at 1k */
#define MEM_BUDGET	128.0	/* SPEC.md: kernel bytes per registered thread */

struct scale_run {
	unsigned int nr;
	bool rl2;
	struct robust_list_head *heads;	/* nr * NR_SLOTS */
	uint32_t ready, go;
	int err;
	int fd;				/* the library's descriptor */
	uint32_t *reg_ns, *floor_ns;	/* per thread */
};

struct scale_arg {
	struct scale_run *run;
	unsigned int idx;
};

/*
 * Every thread makes NR_SLOTS empty ioctls (the anchor threads too); the
 * subject's threads also register NR_SLOTS slots.  Both batches are timed
 * in the thread, in alternating order: the registration cost with nr
 * threads registered, against the entry floor measured at the same moment.
 */
static void *scale_main(void *p)
{
	struct scale_arg *a = p;
	struct scale_run *run = a->run;
	struct robust_list_head *h = &run->heads[a->idx * NR_SLOTS];
	uint64_t t0, t1, t2;
	unsigned int s;

	for (s = 0; s < NR_SLOTS; s++) {
		h[s].list.next = &h[s].list;
		h[s].futex_offset = LOCK_OFF;
		h[s].list_op_pending = NULL;
	}
	t0 = now_ns();
	if (run->rl2 && (a->idx & 1))
		for (s = 0; s < NR_SLOTS; s++)
			if (set_robust_list2(&h[s], s, FUTEX_ROBUST_LIST_CMD_SET_64, 0))
				__atomic_store_n(&run->err, errno, __ATOMIC_RELAXED);
	t1 = now_ns();
	for (s = 0; s < NR_SLOTS; s++)
		ioctl(run->fd, RL2_IOC_EMPTY);
	t2 = now_ns();
	if (run->rl2 && !(a->idx & 1))
		for (s = 0; s < NR_SLOTS; s++)
			if (set_robust_list2(&h[s], s, FUTEX_ROBUST_LIST_CMD_SET_64, 0))
				__atomic_store_n(&run->err, errno, __ATOMIC_RELAXED);
	if (run->rl2) {
		run->reg_ns[a->idx] = (uint32_t)((a->idx & 1) ? t1 - t0 : now_ns() - t2);
		run->floor_ns[a->idx] = (uint32_t)(t2 - t1);
	}
	if (__atomic_add_fetch(&run->ready, 1, __ATOMIC_ACQ_REL) == run->nr)
		futex(&run->ready, FUTEX_WAKE_PRIVATE, 1, NULL);
	while (!__atomic_load_n(&run->go, __ATOMIC_ACQUIRE))
		futex(&run->go, FUTEX_WAIT_PRIVATE, 0, NULL);
	return NULL;
}

static long meminfo_kb(const char *key)
{
	char line[256];
	size_t len = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = atol(line + len + 1);
			break;
		}
	fclose(f);
	return v;
}

static long read_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? atol(buf) : -1;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Median of @v[0..n), which it sorts. */
static double median_u32(uint32_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_u32);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

struct scale_mem {
	struct robust_list_head *heads;
	uint32_t *reg_ns, *floor_ns;
	char *stacks;			/* preallocated: no mmap per thread */
	pthread_t *th;
	struct scale_arg *args;
};

/*
 * Start @nr threads at once; each registers (see scale_main()) and
 * waits.  Once all are up, note the slab memory, let them all exit and
 * join them.  Returns ns per thread for the whole life cycle.
 */
static double scale_once(unsigned int nr, bool rl2, struct scale_mem *m,
			 long *slab_kb, double reg[3])
{
	struct scale_run run = {
		.nr = nr, .rl2 = rl2, .heads = m->heads,
		.fd = robust_list2_fd(), .reg_ns = m->reg_ns, .floor_ns = m->floor_ns,
	};
	uint64_t t0, t;
	unsigned int i;
	uint32_t v;

	t0 = now_ns();
	for (i = 0; i < nr; i++) {
		pthread_attr_t attr;
		int err;

		pthread_attr_init(&attr);
		pthread_attr_setstack(&attr, m->stacks + (size_t)i * SCALE_STACK, SCALE_STACK);
		m->args[i] = (struct scale_arg){ &run, i };
		err = pthread_create(&m->th[i], &attr, scale_main, &m->args[i]);
		pthread_attr_destroy(&attr);
		if (err)
			die("pthread_create #%u of %u: %s (threads-max, memory?)", i, nr,
			    strerror(err));
	}
	while ((v = __atomic_load_n(&run.ready, __ATOMIC_ACQUIRE)) != nr)
		futex(&run.ready, FUTEX_WAIT_PRIVATE, v, NULL);
	*slab_kb = meminfo_kb("Slab");
	store_wake(&run.go, 1);
	for (i = 0; i < nr; i++)
		pthread_join(m->th[i], NULL);
	t = now_ns() - t0;
	if (run.err)
		die("set_robust_list2 in a scale thread: %s", strerror(run.err));
	/* Medians: a thread preempted inside its timed calls is an outlier. */
	if (rl2) {
		reg[0] = median_u32(m->reg_ns, nr);
		reg[1] = median_u32(m->floor_ns, nr);
		reg[2] = reg[0] / reg[1];
	}
	return (double)t / nr;
}

void bench_scale(void)
{
	static const unsigned int sizes[] = { 1000, 5000, 10000 };
	const unsigned int nsz = sizeof(sizes) / sizeof(sizes[0]);
	const unsigned int max = sizes[nsz - 1];
	int rounds = opt_rounds < 3 ? opt_rounds : 3;
	struct figure f[3], reg[3], lin, mem;
	struct series slab_delta = { .n = 0 };
	struct scale_mem m;
	char section[32];
	long tmax, obj, stride;

	snprintf(section, sizeof(section), "scale %d vCPU", nr_cpus);
	progress("%s: up to %u threads x %d slots alive, registered then exiting",
		 section, max, NR_SLOTS);
	pin_to_cpu(-1);
	tmax = read_long("/proc/sys/kernel/threads-max");
	if (tmax >= 0 && tmax < 3L * max) {
		FILE *fp = fopen("/proc/sys/kernel/threads-max", "w");

		if (fp) {
			fprintf(fp, "%u\n", 3 * max);
			fclose(fp);
		}
	}
	m.heads = calloc((size_t)max * NR_SLOTS, sizeof(*m.heads));
	m.stacks = aligned_alloc(4096, (size_t)max * SCALE_STACK);
	m.th = calloc(max, sizeof(*m.th));
	m.args = calloc(max, sizeof(*m.args));
	m.reg_ns = calloc(max, sizeof(*m.reg_ns));
	m.floor_ns = calloc(max, sizeof(*m.floor_ns));
	if (!m.heads || !m.stacks || !m.th || !m.args || !m.reg_ns || !m.floor_ns)
		die("out of memory");
	if (robust_list2_fd() < 0)
		die("%s: %s", ROBUST_LIST2_DEVICE, strerror(errno));

	for (unsigned int s = 0; s < nsz; s++) {
		figure_init(&f[s], section, "thread with 8 slots vs plain thread", sizes[s],
			    "us/thread", 0);
		figure_init(&reg[s], section, "8 registrations vs 8 empty ioctls", sizes[s],
			    "us/8 calls", 0);
	}
	/* A first run of each kind pays for page faults on the stacks. */
	{
		long kb;
		double rr[3];

		scale_once(max, false, &m, &kb, rr);
		scale_once(max, true, &m, &kb, rr);
	}
	for (int r = 0; r < rounds; r++) {
		progress("%s: round %d/%d", section, r + 1, rounds);
		for (unsigned int s = 0; s < nsz; s++) {
			/* Smaller sizes: more pairs, each side taking turns first. */
			unsigned int reps = max / sizes[s] / 2 ? max / sizes[s] / 2 : 1;
			double o = 0, a = 0, rr[3] = { 0 }, rsum[3] = { 0 };
			long slab_o = 0, slab_a = 0;

			for (unsigned int i = 0; i < reps; i++) {
				if ((r + s + i) & 1) {
					a += scale_once(sizes[s], false, &m, &slab_a, rr);
					o += scale_once(sizes[s], true, &m, &slab_o, rr);
				} else {
					o += scale_once(sizes[s], true, &m, &slab_o, rr);
					a += scale_once(sizes[s], false, &m, &slab_a, rr);
				}
				for (int x = 0; x < 3; x++)
					rsum[x] += rr[x];
			}
			add_round(&f[s], o / reps / 1e3, a / reps / 1e3);
			push(&reg[s].ours, rsum[0] / reps / 1e3);
			push(&reg[s].anchor, rsum[1] / reps / 1e3);
			push(&reg[s].ratio, rsum[2] / reps);
			if (s == nsz - 1)
				push(&slab_delta, (slab_o - slab_a) * 1024.0 / sizes[s]);
		}
	}
	for (unsigned int s = 0; s < nsz; s++) {
		snprintf(f[s].note, sizeof(f[s].note),
			 "all %u threads alive at once; create + register + exit + join", sizes[s]);
		emit(&f[s]);
	}
	for (unsigned int s = 0; s < nsz; s++) {
		snprintf(reg[s].note, sizeof(reg[s].note),
			 "medians of per-thread times: 8 set_robust_list2 vs 8 empty ioctls in the same thread; up to %u threads registered",
			 sizes[s]);
		emit(&reg[s]);
	}

	/*
	 * Linear: the cost per thread at 10k against 1k, relative to plain
	 * threads (whose own cost per thread also grows with their number).
	 */
	figure_init(&lin, section, "per-thread cost 10k vs 1k: 8 slots vs plain", max, "x",
		    LINEAR_TARGET);
	for (int r = 0; r < rounds; r++)
		add_round(&lin, f[nsz - 1].ours.v[r] / f[0].ours.v[r],
			  f[nsz - 1].anchor.v[r] / f[0].anchor.v[r]);
	snprintf(lin.note, sizeof(lin.note),
		 "ours/anchor: growth of the cost per thread from 1k to 10k threads; 5k vs 1k: ours %.2f plain %.2f",
		 median(&f[1].ours) / median(&f[0].ours),
		 median(&f[1].anchor) / median(&f[0].anchor));
	emit(&lin);

	/*
	 * Registry memory against SPEC.md's budget, which is a constant and
	 * not a measurement: Slab grows by the records and the hash table's
	 * bucket array (kvmalloc'ed: in Slab unless it fell back to vmalloc).
	 */
	obj = read_long("/sys/kernel/slab/rl2_task/object_size");
	stride = read_long("/sys/kernel/slab/rl2_task/slab_size");
	figure_init(&mem, section, "registry memory per thread vs the 128 B budget", max,
		    "bytes/thread", 1.0);
	for (int r = 0; r < slab_delta.n; r++)
		add_round(&mem, slab_delta.v[r], MEM_BUDGET);
	snprintf(mem.note, sizeof(mem.note),
		 "Slab growth with %u registered threads alive; struct rl2_task: %ld B (slab stride %ld B)",
		 max, obj, stride);
	emit(&mem);

	free(m.heads);
	free(m.stacks);
	free(m.th);
	free(m.args);
	free(m.reg_ns);
	free(m.floor_ns);
}
