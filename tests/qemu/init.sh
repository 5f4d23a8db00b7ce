#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# PID 1 of the robust_list2 test VM (busybox sh).  The host describes the job in
# /etc/rl2/ (see tests/qemu/run.sh and scripts/vm-run):
#   mode          suite | run | probe
#   timeout       guest watchdog in seconds (0: none); the host has its own timeout
#   testdir       suite: directory of the t_* binaries (their host path)
#   test_timeout  suite: seconds per binary
#   cwd, argv     run: working directory, and `set -- 'arg0' 'arg1' ...` to source
#   module        "none": no robust_list2.ko (a kernel with the system calls of
#                 its own, make check-native); absent: load it
# Verdicts go to /dev/ttyS1 (arm64: the console, see to_host), which the host
# reads ("RESULT: ..." for suite; "EXIT: n" [, "DIRTY: line"], "DONE" for run);
# diagnostics go to the console.
# Nothing here may wait forever: every step has a timeout and a watchdog halts the VM.

/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s	# applet links; files put in the image by the host win
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/shm /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
# /tmp may hold files the host put there (vm-run from a directory under /tmp): only
# an empty /tmp gets a tmpfs; the initramfs root is writable tmpfs anyway.
if [ -z "$(ls -A /tmp)" ]; then mount -t tmpfs -o mode=1777 tmpfs /tmp; else chmod 1777 /tmp; fi
mount -t devpts devpts /dev/pts
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
exec </dev/null >/dev/console 2>&1

CFG=/etc/rl2
export RL2_KO=/lib/robust_list2/robust_list2.ko	# for tests that reload the module
DEV=/dev/robust_list2
MARK="robust_list2-harness: start"
# The debug kernel's detectors (make check-debug) report under these too:
# KASAN and KFENCE as "BUG: KASAN:"/"BUG: KFENCE:", lockdep as "WARNING:
# possible circular locking ..."/"WARNING: inconsistent lock state",
# DEBUG_ATOMIC_SLEEP as "BUG: sleeping function called from invalid context";
# UBSAN's header is "UBSAN: <what> in <file>", and a hung task's "INFO: task
# ... blocked for more than N seconds" (tests/host/t_log_scan.sh).
BAD='BUG:|WARNING:|Oops|general protection|KASAN|UBSAN:|list_add corruption|list_del corruption|Objects remaining|leak|soft lockup|hung task|blocked for more than|Call Trace'
# A test that makes the OOM killer strike on purpose (t_oom) writes these
# two lines to /dev/kmsg around it: the OOM report's stack dump ("Call Trace:")
# between them is expected.  Only that line is excused; every other BAD pattern
# still fails the run there too.
OOM_BEGIN="robust_list2-harness: expected OOM begin"
OOM_END="robust_list2-harness: expected OOM end"

cfg() { cat "$CFG/$1" 2>/dev/null || echo "$2"; }
# arm64 (one UART): on the console, behind the marker the host looks for
nonce=$(sed -n 's/.*rl2\.verdict=\([0-9a-f]*\).*/\1/p' /proc/cmdline)
to_host() {
	if [ -n "$nonce" ]; then
		echo "RL2-VERDICT-$nonce $1" >/dev/console
	else
		echo "$1" >/dev/ttyS1
	fi
}
halt_vm() {
	sync
	poweroff -f
	sleep 5
	echo o >/proc/sysrq-trigger
	sleep 60
}

mode=$(cfg mode suite)
if [ "$mode" = probe ]; then
	to_host "PROBE: ok"
	halt_vm
fi

P=0 F=0 S=0
quiet=
[ "$mode" = run ] && quiet=1
hpass() { P=$((P + 1)); [ -n "$quiet" ] || echo "ok - $*"; }
hfail() { F=$((F + 1)); echo "not ok - $*"; }

# The kernel's own modules the host put in (mkinitramfs --kmod: fuse.ko where
# FUSE is a module), loaded before ours; one that does not load fails the run.
for m in /lib/robust_list2/kmod/*.ko; do
	[ -f "$m" ] || continue
	if out=$(insmod "$m" 2>&1); then
		hpass "insmod ${m##*/}"
	else
		hfail "insmod ${m##*/}: $out"
	fi
done

# Kernel log lines since our marker (all of them if the ring buffer lost it).
dmesg_since() {
	dmesg | awk -v m="$MARK" 'index($0, m) { n = 0; next } { l[n++] = $0 }
		END { for (i = 0; i < n; i++) print l[i] }'
}
# On a KCSAN kernel (6.12-kcsan) a data-race report is bad only if it
# names the module (a frame of robust_list2, all rl2_*) in one of its
# racing stacks, where that stack's first module frame is not rl2_rht_*
# (rhashtable's inline code, which the module calls through those); the
# others, races in the kernel itself, are listed (kcsan_outside) and
# excused: a report spans the lines from "BUG: KCSAN:" to the next rule.
KCSAN_OUTSIDE=/tmp/rl2-kcsan-outside
# (debugfs's "kcsan" is a file, the sanitizer's control: -e, not -d)
[ -e /sys/kernel/debug/kcsan ] && KCSAN=1 || KCSAN=0
# ... and its reports stay off the console (console_loglevel 3: "BUG:
# KCSAN" is KERN_ERR), in the log that dmesg_bad reads.  A report raised
# under the console port's lock -- a user's write to the console reaches
# runtime PM and the workqueue with it held -- printed there deadlocks
# 6.12's 8250 console, whose write takes that lock again on the same CPU
# (seen as a guest gone silent in t_cli_show: uart_write -> __uart_start
# -> KCSAN report -> printk -> serial8250_console_write spinning).  A
# message the console level hides is never written to the console.
[ $KCSAN -eq 0 ] || echo 3 >/proc/sys/kernel/printk
dmesg_bad() {
	dmesg_since | awk -v bad="$BAD" -v b="$OOM_BEGIN" -v e="$OOM_END" \
		-v kcsan="$KCSAN" -v outside="$KCSAN_OUTSIDE" '
		# Ours: a racing access whose first frame of the module is
		# not an rl2_rht_* function (rhashtable code of the kernel
		# header, out of line on KCSAN kernels: module/registry.c).
		function flush(   i, ours, first) {
			ours = 0
			first = ""
			for (i = 0; i < nk; i++) {
				if (k[i] ~ /BUG: KCSAN:/)
					continue
				if (k[i] ~ / by task [0-9]+ on cpu [0-9]+:|race at unknown origin/) {
					first = ""
					continue
				}
				if (k[i] ~ /robust_list2|rl2_/ && first == "") {
					first = k[i]
					if (first !~ /rl2_rht_/)
						ours = 1
				}
			}
			for (i = 0; i < nk; i++)
				if (ours)
					print k[i]
			if (!ours && nk)
				print k[0] >>outside
			nk = 0
			inrace = 0
		}
		kcsan && /BUG: KCSAN:/ { flush(); inrace = 1 }
		inrace && /=====/ { flush(); next }
		inrace { k[nk++] = $0; next }
		index($0, b) { oom = 1; next }
		index($0, e) { oom = 0; next }
		$0 ~ bad && !(oom && /Call Trace/) { print }
		END { flush() }'
}

# The excused KCSAN reports of this boot (their headers), for the host.
kcsan_outside() {
	[ -s "$KCSAN_OUTSIDE" ] || return 0
	sed 's/^\[[ 0-9.]*\] //' "$KCSAN_OUTSIDE" | sort | uniq -c |
		sed 's/^ *\([0-9]*\) \(.*\)$/rl2-vm: KCSAN outside the module (\1x): \2/'
	rm -f "$KCSAN_OUTSIDE"
}

# Returns 1 if insmod failed, 2 if the device node is wrong.  Without a
# module (module "none"), one step: no device node may exist either.
load_module() {
	if [ "$(cfg module)" = none ]; then
		if [ -e "$DEV" ]; then
			hfail "booted without robust_list2.ko, yet $DEV exists"
			return 2
		fi
		hpass "no robust_list2.ko: the kernel's own system calls, no $DEV"
		return 0
	fi
	if ! out=$(timeout -s KILL 60 insmod "$RL2_KO" 2>&1); then
		echo "$out"
		hfail "insmod robust_list2.ko"
		dmesg_since | tail -n 30
		return 1
	fi
	hpass "insmod robust_list2.ko"
	i=0
	while [ ! -c "$DEV" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ -c "$DEV" ] && [ "$(stat -c %a "$DEV")" = 666 ]; then
		hpass "$DEV is a character device with mode 0666"
	else
		hfail "$DEV is not a character device with mode 0666: $(ls -l "$DEV" 2>&1)"
		return 2
	fi
}

unload_module() {
	i=0
	until out=$(timeout -s KILL 60 rmmod robust_list2 2>&1); do
		i=$((i + 1))
		if [ $i -ge 10 ]; then	# still busy 5 s after the tests ended
			echo "$out"
			return 1
		fi
		sleep 0.5
	done
}

# Run one test binary in its own session, so that a timeout also kills the children
# it forked, mirror its TAP output to the console and add its counts to P/F/S.
run_test() {
	t=$1 name=${1##*/} tt=$(cfg test_timeout 120)
	echo "# $name"
	t0=$(cut -d' ' -f1 /proc/uptime)
	{
		CMOCKA_MESSAGE_OUTPUT=TAP setsid timeout -s KILL "$tt" "$t" 2>&1 &
		pid=$!
		wait $pid
		echo $? >/tmp/rc
		kill -KILL -$pid 2>/dev/null
	} | tee /tmp/out
	rc=$(cat /tmp/rc)
	# cmocka writes skipped cases as "not ok N # SKIP name"
	sok=$(grep -Eic '^ok .*# *skip' /tmp/out)
	snot=$(grep -Eic '^not ok .*# *skip' /tmp/out)
	p=$(($(grep -c '^ok ' /tmp/out) - sok))
	f=$(($(grep -c '^not ok ' /tmp/out) - snot))
	s=$((sok + snot))
	if [ "$rc" -ne 0 ] && [ $f -eq 0 ]; then
		if [ "$rc" -eq 77 ] && [ $((p + s)) -eq 0 ]; then
			echo "# $name: skipped (exit 77)"
			s=1
		else
			echo "not ok - $name: exit status $rc and no failing case (crash, or killed after ${tt}s?)"
			f=1
		fi
	elif [ "$rc" -eq 0 ] && [ $((p + f + s)) -eq 0 ]; then
		echo "ok - $name (exit 0, no TAP output)"
		p=1
	fi
	P=$((P + p)) F=$((F + f)) S=$((S + s))
	echo "# time: $name $(awk -v a="$t0" '{ printf "%.1f", $1 - a }' /proc/uptime) s"
}

# The files the host asked for (/etc/rl2/export: one guest path per line;
# a directory stands for every regular file below it), as a gzip'd tar in
# base64 on ttyS2 ending with a line RL2-EXPORT-END (qemu.sh
# qemu_export_unpack).  Each file is read with cat first: debugfs files
# (gcov's .gcda) tell tar a size of 0.
export_files() {
	[ -f "$CFG/export" ] || return 0
	rm -rf /tmp/rl2-export && mkdir -p /tmp/rl2-export
	while read -r p; do
		[ -n "$p" ] || continue
		find "$p" -type f 2>/dev/null | while read -r f; do
			mkdir -p "/tmp/rl2-export${f%/*}"
			cat "$f" >"/tmp/rl2-export$f"
		done
	done <"$CFG/export"
	{ tar -C /tmp/rl2-export -czf - . | base64; echo RL2-EXPORT-END; } >/dev/ttyS2
}

check_dmesg() {
	bad=$(dmesg_bad)
	kcsan_outside
	if [ -z "$bad" ]; then
		hpass "kernel log clean"
	else
		echo "$bad"
		hfail "kernel log has warnings or errors (above)"
	fi
}

# The watchdog reports nothing to the host: a missing verdict is a failure there.
budget=$(cfg timeout 0)
if [ "$budget" -gt 0 ]; then
	(
		sleep "$budget"
		# what runs (a loop in the kernel: sysrq l), what waits (w),
		# and each running or blocked task's kernel stack
		echo "rl2-vm: watchdog: still running after ${budget}s; tasks running (R) or blocked (D):"
		for d in /proc/[0-9]*; do
			st=$(sed 's/.*) //; s/ .*//' "$d/stat" 2>/dev/null) || continue
			case $st in R | D) ;; *) continue ;; esac
			echo "${d#/proc/} $(cat "$d/comm" 2>/dev/null) $st"
			cat "$d/stack" 2>/dev/null
		done
		echo l >/proc/sysrq-trigger
		echo w >/proc/sysrq-trigger
		sleep 1
		dmesg_since | tail -n 300
		halt_vm
	) &
	watchdog=$!
fi

echo "$MARK" >/dev/kmsg

case $mode in
suite)
	load_module
	loaded=$?
	if [ $loaded -eq 0 ]; then
		testdir=$(cfg testdir /tests)
		cd "$testdir" || hfail "cd $testdir"
		# Debian's armhf programs and libraries are laid out for 4 KiB
		# pages (segments 4 KiB-aligned): on a 16 KiB-page arm64 kernel
		# they cannot even start, so there each counts as one skip.
		page_kb=$(sed -n 's/^KernelPageSize: *\([0-9]*\) kB$/\1/p' /proc/self/smaps | head -n 1)
		for t in "$testdir"/t_*; do
			if [ ! -f "$t" ] || [ ! -x "$t" ]; then continue; fi
			case ${t##*/} in t_shim_unit*) continue ;; esac	# host-only
			case ${t##*/}:${page_kb:-4} in
			*.armhf:4) ;;
			*.armhf:*)
				echo "# ${t##*/}: skipped: armhf userland needs 4 KiB pages, this kernel has ${page_kb} KiB"
				S=$((S + 1))
				continue ;;
			esac
			run_test "$t"
		done
		cd /
	fi
	if [ $loaded -ne 1 ] && [ "$(cfg module)" != none ]; then
		if unload_module; then hpass "rmmod robust_list2"; else hfail "rmmod robust_list2"; fi
	fi
	check_dmesg
	export_files
	[ -z "${watchdog:-}" ] || kill "$watchdog" 2>/dev/null
	line="RESULT: $P passed, $F failed, $S skipped"
	echo "$line"
	to_host "$line"
	;;
run)
	if ! load_module; then
		to_host "EXIT: 125"
		to_host "DIRTY: robust_list2 did not load, or $DEV is wrong (command not run)"
	elif ! { cwd=$(cfg cwd /) && mkdir -p "$cwd" && cd "$cwd"; }; then
		to_host "DIRTY: cannot cd to $cwd (command not run)"
	else
		# shellcheck source=/dev/null
		. "$CFG/argv"
		("$@")	# a subshell: `exit` or `exec` in COMMAND must not end PID 1
		to_host "EXIT: $?"
		cd /
		if [ -d /sys/module/robust_list2 ] && ! unload_module; then
			to_host "DIRTY: rmmod robust_list2 failed"
		fi
		bad=$(dmesg_bad | head -n 1)
		kcsan_outside
		[ -z "$bad" ] || to_host "DIRTY: $bad"
		export_files
	fi
	to_host "DONE"
	;;
*)
	echo "rl2-vm: unknown mode '$mode'"
	;;
esac
halt_vm
