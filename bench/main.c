// SPDX-License-Identifier: GPL-2.0
/*
 * rl2_bench: robust_list2 measured side by side with the kernel's own
 * robust list, every figure a ratio to an anchor measured in the same run
 * (README.md).  Runs inside a test VM; scripts/bench boots one per kernel.
 *
 *	rl2_bench [-r ROUNDS] [-t FACTOR] [AREA...]
 *
 * -r sets the rounds per figure (default 9; bystander adds 6, scale takes
 * at most 3); -t scales the time of every round (1.0: a round of a pair
 * takes about 100 ms).  No AREA, or "all": every area in the table's order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static const struct area {
	const char *name;
	void (*fn)(void);
	const char *help;
} areas[] = {
	/* First: it unloads the module, so nothing may hold the device yet. */
	{ "bystander", bench_bystander,
	  "fork+exit, pthread_create+join: module loaded vs not loaded" },
	{ "register", bench_register,
	  "set_robust_list2() and a thread's life with one slot, vs their anchors" },
	{ "unlock", bench_unlock,
	  "try-unlock vs cmpxchg; unlock call vs FUTEX_WAKE; on 7.2, vs the kernel's" },
	{ "exit", bench_exit,
	  "exit walk of N locks in 1 or 8 slots vs the legacy list" },
	{ "recovery", bench_recovery,
	  "SIGKILL of a holder of N locks -> last waiter back: legacy, 1/8 slots, pidfd watchdog" },
	{ "scale", bench_scale,
	  "1k/5k/10k threads alive with 8 slots each vs plain threads" },
};

static void usage(void)
{
	fprintf(stderr, "usage: rl2_bench [-r ROUNDS] [-t FACTOR] [-w] [");
	for (size_t i = 0; i < ARRAY_SIZE(areas); i++)
		fprintf(stderr, "%s|", areas[i].name);
	fprintf(stderr, "all]...\n");
	fprintf(stderr, "  -w         the guest clock is wall time (BENCH_CLOCK=wall), not -icount\n");
	for (size_t i = 0; i < ARRAY_SIZE(areas); i++)
		fprintf(stderr, "  %-10s %s\n", areas[i].name, areas[i].help);
	exit(2);
}

int main(int argc, char **argv)
{
	bool want[ARRAY_SIZE(areas)] = { false }, all = false;
	int c;

	while ((c = getopt(argc, argv, "r:t:wh")) != -1) {
		switch (c) {
		case 'r':
			opt_rounds = atoi(optarg);
			if (opt_rounds < 1 || opt_rounds > MAX_ROUNDS)
				die("-r wants 1..%d", MAX_ROUNDS);
			break;
		case 't':
			opt_time = atof(optarg);
			if (opt_time <= 0)
				die("-t wants a positive factor");
			break;
		case 'w':
			opt_wall = true;
			break;
		default:
			usage();
		}
	}
	if (optind == argc)
		all = true;
	for (int i = optind; i < argc; i++) {
		size_t j;

		if (!strcmp(argv[i], "all")) {
			all = true;
			continue;
		}
		for (j = 0; j < ARRAY_SIZE(areas) && strcmp(argv[i], areas[j].name); j++)
			;
		if (j == ARRAY_SIZE(areas))
			usage();
		want[j] = true;
	}
	nr_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	csv_header();
	progress("%d vCPUs, %d rounds, time factor %.2f", nr_cpus, opt_rounds, opt_time);
	for (size_t j = 0; j < ARRAY_SIZE(areas); j++)
		if (all || want[j])
			areas[j].fn();
	progress("done");
	return 0;
}
