/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page-align the section of the fast paths (__rl2_fast in robust_list2.h:
 * prctl set/get, the exit hook's test, the list walk).  This object is
 * linked first, so its empty piece opens the section and its alignment
 * becomes the section's: the module loader then starts the section on a
 * page boundary, and the whole path, under 4 KiB, runs from one page of
 * module text.  scripts/build-module checks both facts on every build.
 */
	.section .text.rl2_fast, "ax", @progbits
	.balign 4096
	.previous
