#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The try-unlock races on an ARMv8.0 CPU without the LSE atomics (QEMU's
# cortex-a72, as in a Raspberry Pi 4), one VM boot on an arm64 kernel, run
# by scripts/check-vm for each arm64 kernel: t_unlock and t_unlock_race as
# aarch64 and as armhf programs (the A72 runs AArch32 at EL0).  The
# header's inline try-unlock takes its exclusive form there, the module
# must recognise it, and its LSE form's cases must skip because the CPU
# lacks LSE, which the guest's /proc/cpuinfo must confirm.  Prints
#   ALIAS cortex-a72: P passed, F failed, S skipped
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"
alias=${1:?usage: t_vm_cortex_a72.sh ALIAS}
[[ $(kernel_arch "$alias") == arm64 ]] || die "$alias is not an arm64 kernel"
tests=$RL2_ROOT/build/arm64/tests	# make -C tests arm64 armhf
progs=()
for t in t_unlock t_unlock_race; do
	[[ -x $tests/$t ]] || die "$tests/$t is not built (make -C tests arm64)"
	progs+=("$tests/$t")
	[[ ! -x $tests/$t.armhf ]] || progs+=("$tests/$t.armhf")
done

# QEMU's cortex-a72 has no 16K translation granule: a 16K kernel cannot boot there.
if [[ $(kernel_field "$alias" release) == *-16k ]]; then
	echo "# $alias: skipped: QEMU's cortex-a72 model has no 16K pages (run on the 4K rows)"
	echo "$alias cortex-a72: 0 passed, 0 failed, 1 skipped"
	exit 0
fi

dir=$RL2_BUILD/$alias/a72
mkdir -p "$dir"
cat >"$dir/run-a72.sh" <<'SH'
#!/bin/sh
grep -m 1 '^Features' /proc/cpuinfo
export CMOCKA_MESSAGE_OUTPUT=TAP
rc=0
for t; do "$t" || rc=1; done
exit $rc
SH
chmod 755 "$dir/run-a72.sh"
adds=()
for p in "${progs[@]}"; do adds+=(--add "$p"); done

rc=0
out=$(QEMU_CPU=cortex-a72 "$RL2_ROOT/scripts/vm-run" --kernel "$alias" --timeout 600 \
	"${adds[@]}" -- "$dir/run-a72.sh" "${progs[@]}" 2>&1) || rc=$?
# the cases, for the log (check-vm keeps only the last line of stdout)
grep -E '^(ok|not ok) [0-9]+|^# |^Features' <<<"$out" >&2 || true
# cmocka writes a skipped case as "not ok N # SKIP name"
skip=$(grep -ciE '^(not )?ok [0-9]+ .*# *skip' <<<"$out" || true)
ok=$(grep -E '^ok [0-9]+' <<<"$out" | grep -cviE '# *skip' || true)
bad=$(grep -E '^not ok [0-9]+' <<<"$out" | grep -cviE '# *skip' || true)
features=$(grep -m 1 '^Features' <<<"$out" || true)
if [[ -z $features || " ${features#*:} " == *" atomics "* ]]; then
	echo >&2 "not ok - the guest CPU is not an ARMv8.0 without LSE: '${features:-no Features line}'"
	bad=$((bad + 1))
fi
if ((rc != 0 && bad == 0)); then
	printf '%s\n' "$out" | tail -n 40 >&2
	echo >&2 "not ok - vm-run exited $rc"
	bad=1
fi
((ok > 0)) || bad=$((bad + 1))
echo "$alias cortex-a72: $ok passed, $bad failed, $skip skipped"
((bad == 0))
