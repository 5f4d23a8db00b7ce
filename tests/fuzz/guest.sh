#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make fuzz, inside the VM (scripts/fuzz starts it through scripts/vm-run):
#   guest.sh SECONDS PLANT BINDIR CORPUS_DIR...
# plants the fault-injection bugs of mask PLANT (module/fault_inject.c),
# copies the corpora into /tmp/rl2fz/corpus and runs libFuzzer on
# BINDIR/rl2fz (build/tests/fuzz/, with its executors) for SECONDS; new
# inputs stay in /tmp/rl2fz/corpus and crash inputs go to
# /tmp/rl2fz/crashes, which scripts/fuzz exports.
secs=$1 plant=$2 bin=$3
shift 3
if [ "$plant" != 0 ]; then
	echo "$plant" >/sys/module/robust_list2/parameters/fi_plant || exit 2
	echo "rl2fz: planted bugs $plant"
fi
# A dying thread waits io_wait_ms (default 10 s) for a page that does not
# come, and a program in 30 has one: a FUSE page whose READ or WRITE is
# never answered.  At 10 s each they would be all the run does; 50 ms is
# still well above what a page that does come takes here (a fault-in by a
# worker, a READ our own FUSE server answers: a few ms under TCG), and a
# program whose walks the host held past it anyway is run again (rl2fz.c).
echo 50 >/sys/module/robust_list2/parameters/io_wait_ms || exit 2
mkdir -p /tmp/rl2fz/corpus /tmp/rl2fz/crashes
for d in "$@"; do
	cp "$d"/* /tmp/rl2fz/corpus/ 2>/dev/null
done
echo "rl2fz: $(ls /tmp/rl2fz/corpus | wc -l) inputs to start from, io_wait_ms $(cat /sys/module/robust_list2/parameters/io_wait_ms)"
[ ! -c /dev/ttyS3 ] || export RL2FZ_TRACE=/dev/ttyS3
# -len_control=0: inputs may grow to -max_len at once; by default
# libFuzzer raises its length limit slowly from the seeds' (a 3-minute run
# stayed at 41 bytes), and a program of several lists is 60-150 bytes.
"$bin/rl2fz" -max_total_time="$secs" -timeout=150 -rss_limit_mb=0 -max_len=512 -len_control=0 \
	-print_final_stats=1 -artifact_prefix=/tmp/rl2fz/crashes/ /tmp/rl2fz/corpus
rc=$?
echo "rl2fz: libFuzzer exited $rc"
# A crash leaves the FUSE mounts behind (its servers gone with it): abort
# what is left, so that no fault-in stays stuck and the module unloads.
for f in /sys/fs/fuse/connections/*/abort; do
	[ ! -e "$f" ] || echo 1 >"$f"
done
umount -l /tmp/rl2fz-fuse-p /tmp/rl2fz-fuse-x 2>/dev/null
exit $rc
