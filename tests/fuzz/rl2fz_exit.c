// SPDX-License-Identifier: GPL-2.0
/*
 * make fuzz: what a dying owner execs (rl2fz_exec.c, death "exec"): a
 * program that only exits.  Built without a libc, so that the exec of it
 * costs the exec and not a libc's start-up.
 */
void _start(void)
{
	__asm__ volatile("syscall" : : "a"(231), "D"(0));	/* exit_group(0) */
	for (;;)
		;
}
