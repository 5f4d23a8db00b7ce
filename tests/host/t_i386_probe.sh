#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The negative path of scripts/run-i386 on any host: with a stand-in runner that
# fails as a host without ia32 emulation does (tests/host/noexec-i386), the probe
# says no and why, the program is never started, the probe runs once however many
# programs ask, and check-host counts the step as skipped, not passed.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RL2_BUILD=$tmp/build RL2_I386_RUNNER=$top/tests/host/noexec-i386 NOEXEC_LOG=$tmp/ran
fails=0
expect() {	# expect WHAT CONDITION...
	local what=$1
	shift
	if "$@"; then echo "ok - $what"; else echo "not ok - $what"; fails=$((fails + 1)); fi
}

rc=0
out=$("$top/scripts/run-i386" --probe 2>&1) || rc=$?
expect "--probe exits 1" test "$rc" = 1
expect "--probe names the cause: $out" grep -q 'Exec format error' <<<"$out"

printf '#!/bin/sh\necho ran >%s\n' "$tmp/witness" >"$tmp/prog"
chmod +x "$tmp/prog"
for i in 1 2; do
	rc=0
	out=$("$top/scripts/run-i386" "$tmp/prog" 2>&1) || rc=$?
	expect "run $i: exit 77 (skipped)" test "$rc" = 77
	expect "run $i: one line" test "$(wc -l <<<"$out")" = 1
	expect "run $i: it says skipped and why: $out" grep -q '^prog: skipped: .*Exec format error' <<<"$out"
done
expect "the program itself never ran" test ! -e "$tmp/witness"
expect "the probe ran once for three calls" test "$(grep -c i386-probe "$tmp/ran")" = 1
expect "only the probe was handed to the runner" test "$(wc -l <"$tmp/ran")" = 1

# check-host's verdict on such a host: skipped, never passed.
make -s -C "$top/tests" host >/dev/null
out=$("$top/scripts/check-host" --only t_shim_unit.m32 2>&1 | tail -n 1)
expect "check-host counts it skipped: $out" test "$out" = "host: 0 passed, 0 failed, 1 skipped"

((fails == 0))
