#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fault-injection tests (tests/fi/) on one kernel, two VM boots with the
# fault-injection build of the module (scripts/vm-run --fault-inject), run by
# scripts/check-vm for each kernel.  Prints
#   ALIAS fault-inject: P passed, F failed
#  - fi_hooks: its cmocka cases (TAP on the console), with the harness's own
#    unload and kernel-log scan after them (vm-run exits 0 only if both pass);
#  - fi_stub: a PI futex a registered thread dies holding must reach its
#    waiter, the kernel's own futex_exit_release() body running after our
#    walk whatever the fault injection says; the harness's log scan as after
#    any run (vm-run exits 0 only if the log is clean).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"
alias=${1:?usage: t_vm_fault_inject.sh ALIAS}
tests=$RL2_ROOT/build/tests/fi	# make -C tests vm
arch=$(kernel_arch "$alias")
[[ $arch == amd64 ]] || tests=$RL2_ROOT/build/$arch/tests/fi	# make -C tests arm64
for t in fi_hooks fi_stub; do
	[[ -x $tests/$t ]] || die "$tests/$t is not built (make -C tests vm, or arm64)"
done
passed=0 failed=0
# RL2_FI_KO: another fault-injection build to load (make coverage's)
ko=()
[[ -z ${RL2_FI_KO:-} ]] || ko=(--ko "$RL2_FI_KO")

rc=0
out=$("$RL2_ROOT/scripts/vm-run" --kernel "$alias" --fault-inject ${ko[@]+"${ko[@]}"} \
	--timeout 300 -- "$tests/fi_hooks" 2>&1) || rc=$?
grep -E '^(ok|not ok) [0-9]+|^# ' <<<"$out" || true
ok=$(grep -cE '^ok [0-9]+ - ' <<<"$out" || true)
bad=$(grep -cE '^not ok [0-9]+' <<<"$out" || true)
if ((rc == 0 && bad == 0 && ok > 0)); then
	passed=$((passed + ok))
else
	printf '%s\n' "$out" | tail -n 40 >&2
	echo >&2 "not ok - fi_hooks: exit $rc, $ok passed, $bad failed"
	failed=$((failed + (bad ? bad : 1)))
fi

rc=0
out=$("$RL2_ROOT/scripts/vm-run" --kernel "$alias" --fault-inject ${ko[@]+"${ko[@]}"} \
	--timeout 120 -- "$tests/fi_stub" 2>&1) || rc=$?
if ((rc == 0)) && grep -q '^fi_stub: the PI waiter took the lock ' <<<"$out"; then
	echo "ok - $(grep '^fi_stub: ' <<<"$out")"
	passed=$((passed + 1))
else
	printf '%s\n' "$out" | tail -n 40 >&2
	echo >&2 "not ok - fi_stub: wanted the PI waiter to get the lock and a clean log, got exit $rc"
	failed=$((failed + 1))
fi

echo "$alias fault-inject: $passed passed, $failed failed"
((failed == 0))
