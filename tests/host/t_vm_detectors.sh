#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The debug kernel's detectors fire, and the harness then fails the run
# (scripts/check-vm runs this for each debug row of kernels.conf).  Builds
# tests/detect/rl2_detect.ko against the kernel's tree and boots two VMs
# (scripts/vm-run, panic_on_warn=0 so that the run reaches its log scan)
# in which tests/detect/detect.sh makes each detector the kernel has report
# (and a plain WARN): lockdep
# reports once per boot, so "inconsistent" has a VM of its own.  A detector
# passes if the guest found its report, the report matches the harness's
# scan (BAD in tests/qemu/init.sh) and vm-run called the run dirty (125).
# Prints "ALIAS detectors: P passed, F failed".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"
alias=${1:?usage: t_vm_detectors.sh ALIAS}
src=$RL2_ROOT/tests/detect
out=$RL2_BUILD/$alias/detect
bad=$(sed -n "s/^BAD='\\(.*\\)'\$/\\1/p" "$RL2_ROOT/tests/qemu/init.sh")
[[ -n $bad ]] || die "no BAD= line in tests/qemu/init.sh"

# Build out of the source tree (kbuild writes next to the sources), in the
# kernel's build chroot (lib.sh kernel_run: its suite's compiler).
kdir=$("$RL2_ROOT/scripts/fetch-kernel" --print-kdir "$alias")
mkdir -p "$out"
cp "$src/Kbuild" "$src/rl2_detect.c" "$out/"
(unset MAKEFLAGS MFLAGS MAKELEVEL KERNELRELEASE M O KBUILD_OUTPUT KBUILD_EXTMOD
 kernel_run "$alias" "$out" -- make -s -C "$kdir" M="$out" modules) ||
	die "building rl2_detect.ko for $alias failed"

passed=0 failed=0
# boot BUG...: one VM that provokes each BUG in turn.
boot() {
	local rc=0 o b line
	o=$(QEMU_APPEND="${QEMU_APPEND:-} panic_on_warn=0" "$RL2_ROOT/scripts/vm-run" \
		--kernel "$alias" --timeout 600 --add "$out/rl2_detect.ko" -- \
		"$src/detect.sh" "$out/rl2_detect.ko" "$@" 2>&1) || rc=$?
	grep -E '^detect: |^DIRTY: ' <<<"$o" || true
	for b; do
		line=$(sed -n "s/^detect: $b fired: //p" <<<"$o" | head -n 1)
		if [[ -z $line ]]; then
			echo "not ok - $b: the guest found no report"
		elif ! grep -qE "$bad" <<<"$line"; then
			echo "not ok - $b: the harness's scan misses its report: $line"
		elif ((rc != 125)) || ! grep -q '^DIRTY: ' <<<"$o"; then
			echo "not ok - $b: vm-run exited $rc, not 125 with a DIRTY line"
		else
			echo "ok - $b: reported, caught by the log scan, run failed (vm-run exit 125)"
			passed=$((passed + 1))
			continue
		fi
		failed=$((failed + 1))
	done
	if ((failed)); then printf '%s\n' "$o" | tail -n 60 >&2; fi
}

# KASAN last (its report turns lockdep off); the KCSAN kernel has none.
# warn: a plain WARN(), the one report the KCSAN kernel's boots, which run
# with panic_on_warn=0 (scripts/lib.sh vm_kcsan_env), must still fail on.
bugs=(circular sleep ubsan kfence warn)
grep -qx 'CONFIG_KASAN=y' "$kdir/.config" && bugs+=(kasan)
boot "${bugs[@]}"
boot inconsistent
echo "$alias detectors: $passed passed, $failed failed"
((failed == 0))
