#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make fuzz's seed programs (tests/fuzz/seeds/), written byte by byte in
# the layout parse() of rl2fz.c reads; run it after changing that layout.
# Each seed is an ordinary program the fuzzer mutates from: lists of 3 to
# 6 entries that end back at their head, inside the arena (where the
# controller follows every word), contended words with a waiter on them,
# every ABI and every death.  A seed, with its bytes:
#   header  abi32 | death << 1 | (threads - 1) << 3 | hostile << 5
#           (death: 0 exit, 1 exit_group, 2 SIGKILL, 3 exec), then lists,
#           ops, waiters, and page protections (pages 6..9, 2 bits each);
#           hostile: then a kind per page 6..9, 4 bits each (rl2fz.h
#           RL2FZ_K_*: 4 FUSE shared, 5 private, 6 MADV_RANDOM, 8 READ
#           never answered, 9 the same private, 10 WRITE never answered)
#   a list  flags (1 32-bit, slot << 2, 0x20 pending, 0x40 pending PI,
#           0x80 PI links), entries, head cell, offset kind (0: two
#           pointers after the entry, 2: the next 4 bytes), end (0: back
#           at the head), how (0 SET, 1 CREATE, 2 SET_BASED), base page;
#           one cell (128 bytes; cells 0x80.. are pages 6..9) per entry,
#           [the pending entry's cell,] one word kind per entry and one
#           for the pending entry, read even when there is none (1 owner,
#           4 FUTEX_WAITERS, 0 nobody)
#   waiters one byte each: the index of the word (in list order)
set -eu
out=${1:-$(dirname "$0")/seeds}
mkdir -p "$out"
seed() {	# seed NAME BYTES...: the bytes in hex
	name=$1
	shift
	: >"$out/$name"
	for b; do printf "\\$(printf '%03o' "0x$b")" >>"$out/$name"; done
}
#          hdr nl no nw prot | flags n head off end how base | entries | words | waiters
seed list64-4-exit-2waiters \
	00 01 00 02 00  00 04 00 00 00 00 00  10 20 30 40  05 01 05 01 00  00 02
seed list32-3-kill-waiter \
	04 01 00 01 00  05 03 08 00 00 00 00  18 28 38  05 01 01 00  00
seed m32-list32-5-exitgroup-create \
	03 01 00 01 00  01 05 50 00 00 01 00  60 68 70 78 80  01 05 01 01 01 00  01
seed based32-3-exec \
	06 01 00 01 00  09 03 20 00 00 02 01  30 40 50  05 01 01 00  00
seed two-lists-pending-2threads \
	0a 02 00 02 00  20 03 00 00 00 00 00  10 18 28  48  01 05 01 04 \
	0d 03 90 05 00 00 00  98 a0 a8  05 01 01 00  03 04
seed list64-6-pi-kill-4threads \
	1c 01 00 01 00  80 06 60 00 00 00 00  61 62 63 64 65 66  01 05 01 01 05 01 00  01
# Hostile pages (a FUSE server the controller runs).  Words 6 pages after
# their entries (offset 0x6000): two on page 8, whose READ is never
# answered (given up at the deadline, io_timeouts 2), two on page 9,
# recovered, one with a waiter that must wake.
seed hostile-noread-words-kill \
	24 01 00 01 00 00 08  00 04 00 02 00 00 00  00 60 00 00  08 10 28 30  05 05 05 05 00  00
# A word on page 6, whose WRITE is never answered: given up; the words
# after it (pages 7, 8) recovered, the waiter on page 7's woken.
seed hostile-nowrite-exitgroup-2threads \
	2a 01 00 01 00 0a 00  00 03 00 02 00 00 00  00 40 00 00  08 28 48  01 05 05 00  01
# Entries on a shared FUSE page (6) and on one read synchronously by the
# walk's worker (7, MADV_RANDOM), a pending entry on page 3 with a waiter.
seed hostile-random-shared-exit \
	20 01 00 01 00 64 00  20 03 00 00 00 00 00  88 a8 10  30  05 05 01 05  03
# A 32-bit list through a private FUSE page (8) into a private page whose
# READ is never answered (9): the walk ends there.
seed hostile-noread-private-m32 \
	21 01 00 01 00 00 95  01 04 08 00 00 00 00  10 c8 e8 18  05 05 05 05 00  00
# After a stall (page 6), words on PROT_NONE (7), dropped (8) and
# read-only (9) pages: given up or (8) either, the walk goes on.
seed hostile-late-none-dontneed-ro \
	20 01 00 00 00 28 13  00 04 00 02 00 00 00  00 40 00 00  08 28 48 68  01 01 01 01 00
# The program a 6.12-kcsan run of make fuzz was running when its guest went
# silent (tests/README.md, "The fuzzer"): a 32-bit executor CREATEs a
# 64-bit list of one entry at futex offset 1, then SET, GET, six INFO, and
# exits.  It replays cleanly; every run starts from it, so a hang it does
# cause is caught again.
seed m32-create64-offset1-replayed \
	01 01 ff ff 01  00 01 00 03 07 01 01  f7 01 01 01 01 01 01 00 09 00 09 00 02 00 00 99 00
