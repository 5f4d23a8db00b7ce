#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the debug kernel's VM (tests/host/t_vm_detectors.sh, through
# scripts/vm-run): load rl2_detect.ko once for each bug named and find the
# report its detector must print in the kernel log.  Prints one line per
# bug, "detect: BUG fired: <log line>" or "detect: BUG: no report ...";
# exits 0 iff every detector fired.  The harness must then call the run
# dirty: that is the host's half of the test.
#	detect.sh KO BUG...
ko=$1
shift
rc=0
for bug; do
	case $bug in
	circular) want='WARNING: possible circular locking dependency detected' ;;
	inconsistent) want='WARNING: inconsistent lock state' ;;
	sleep) want='BUG: sleeping function called from invalid context' ;;
	ubsan) want='UBSAN: array-index-out-of-bounds' ;;
	kfence) want='BUG: KFENCE: use-after-free read' ;;
	kasan) want='BUG: KASAN: slab-out-of-bounds' ;;
	warn) want='WARNING: CPU: ' ;;
	*) echo "detect: unknown bug '$bug'"; rc=1; continue ;;
	esac
	timeout -s KILL 60 insmod "$ko" bug="$bug" || echo "detect: insmod bug=$bug failed"
	rmmod rl2_detect 2>/dev/null
	line=$(dmesg | grep -F "$want" | head -n 1)
	if [ -n "$line" ]; then
		echo "detect: $bug fired: $line"
	else
		echo "detect: $bug: no report ('$want' is not in the kernel log)"
		rc=1
	fi
done
exit $rc
