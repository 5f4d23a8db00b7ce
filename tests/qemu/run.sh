#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host side of the VM test suite on one kernel: pack the t_* test binaries (already
# built) and the module into an initramfs, boot the given kernel under QEMU and judge
# the run only by the RESULT line the guest writes to its second serial port.  The
# caller (scripts/check-vm) fetches the kernel and builds the module.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/qemu/qemu.sh
. "$here/qemu.sh"

usage() {
	cat <<-EOT
	usage: $RL2_PROG --name NAME --image VMLINUZ {--ko MODULE | --no-module} --out DIR [--timeout SEC]
	  Boot VMLINUZ with MODULE loaded and run every executable build/tests/t_*
	  (not t_shim_unit*: make -C tests vm) plus the files listed in its vm-files.
	  --no-module: boot without one (a kernel with the system calls of its own,
	  make check-native); the guest checks that no /dev/robust_list2 exists.
	  Prints "NAME: P passed, F failed[, S skipped]"; exit 0 iff nothing failed.
	  Output in DIR: console.log, result.txt, summary, initramfs.cpio.gz.
	environment:
	  TIMEOUT=900          whole-VM timeout in seconds (--timeout)
	  TEST_TIMEOUT=120     per test binary, in the guest
	  QEMU_ACCEL=tcg|kvm   default: tcg unless a cached KVM probe passed
	  QEMU_MEM=1024M, QEMU_APPEND="extra kernel args"
	  RL2_TESTDIR=DIR      test binaries (default: build/tests/)
	  RL2_EXPORT="P..." RL2_EXPORT_TO=DIR   bring guest paths P (a directory:
	                       its files) out of the guest into DIR (x86 only)
	EOT
}

alias='' vmlinuz='' ko='' out='' timeout=${TIMEOUT:-900} nomodule=0
while (($#)); do
	case $1 in
	--name) alias=${2:?--name needs a name}; shift ;;
	--image) vmlinuz=${2:?--image needs a vmlinuz}; shift ;;
	--ko) ko=${2:?--ko needs a module}; shift ;;
	--no-module) nomodule=1 ;;
	--out) out=${2:?--out needs a directory}; shift ;;
	--timeout) timeout=${2:?--timeout needs seconds}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
[[ -n $alias && -n $vmlinuz && -n $out ]] || { usage >&2; exit 2; }
# exactly one of --ko and --no-module
if { [[ -n $ko ]] && ((nomodule)); } || { [[ -z $ko ]] && ((nomodule == 0)); }; then
	usage >&2
	exit 2
fi
[[ $timeout =~ ^[1-9][0-9]*$ ]] || die "--timeout wants seconds, not '$timeout'"
mkdir -p "$out"
rm -f "$out/summary" "$out/result.txt"

# report P F S [NOTE]: the one summary line, also kept for scripts/check-vm.
report() {
	local line="$alias: $1 passed, $2 failed"
	(($3 == 0)) || line+=", $3 skipped"
	[[ -z ${4:-} ]] || line+=" ($4)"
	echo "$line" | tee "$out/summary"
}
early_fail() { report 0 1 0 "$1"; exit 1; }

[[ -f $vmlinuz ]] || early_fail "no kernel image $vmlinuz"
((nomodule)) || [[ -f $ko ]] || early_fail "no module $ko"

testdir=$(realpath -- "${RL2_TESTDIR:-$here/../../build/tests}")
files=()
for t in "$testdir"/t_*; do
	[[ -f $t && -x $t ]] || continue
	[[ ${t##*/} == t_shim_unit* ]] && continue
	# Only binaries of a current source: a renamed suite's old binary stays out.
	src=$here/../${t##*/} src=${src%.m32}.c
	[[ -z ${RL2_TESTDIR:-} && ! -f $src ]] && { msg "ignoring $t: no $src"; continue; }
	files+=(--add "$t")
done
((${#files[@]})) || msg "warning: no test binaries in $testdir (make tests?): harness steps only"
# Helper programs or data the tests need, one path per line, relative to $testdir.
if [[ -f $testdir/vm-files ]]; then
	while read -r f; do
		[[ -z $f || $f == \#* ]] && continue
		[[ $f == /* ]] || f=$testdir/$f
		if [[ -d $f ]]; then files+=(--dir "$f:$f"); else files+=(--add "$f"); fi
	done <"$testdir/vm-files"
fi

# The guest runs the tests from their host path, so rpaths and relative helper
# paths work unchanged.  Its watchdog fires 30 s before our timeout.
cfg=$out/etc-rl2
rm -rf "$cfg" && mkdir -p "$cfg"
echo suite >"$cfg/mode"
echo "$testdir" >"$cfg/testdir"
echo "${TEST_TIMEOUT:-120}" >"$cfg/test_timeout"
((nomodule == 0)) || echo none >"$cfg/module"
echo $((timeout > 60 ? timeout - 30 : 0)) >"$cfg/timeout"
export RL2_EXPORT_FILE=
if [[ -n ${RL2_EXPORT:-} ]]; then
	[[ -n ${RL2_EXPORT_TO:-} ]] || die "RL2_EXPORT needs RL2_EXPORT_TO"
	# shellcheck disable=SC2086 # a list of paths
	printf '%s\n' $RL2_EXPORT >"$cfg/export"
	RL2_EXPORT_FILE=$out/export.b64
fi
# the kernel's own modules fetch-kernel put beside its image (fuse.ko)
kmods=()
for m in "${vmlinuz%/*}"/*.ko; do [[ ! -f $m ]] || kmods+=(--kmod "$m"); done
[[ -z $ko ]] || kmods+=(--ko "$ko")
"$here/mkinitramfs.sh" "$out/initramfs.cpio.gz" ${kmods[@]+"${kmods[@]}"} \
	--dir "$cfg:/etc/rl2" ${files[@]+"${files[@]}"} || early_fail "initramfs build failed"

accel=$(qemu_accel "$vmlinuz")
qemu_setup "$accel" "$vmlinuz" "$out/initramfs.cpio.gz" "$out/result.txt"
msg "booting $alias: ${vmlinuz##*/} ($accel, timeout ${timeout}s)"
start=${EPOCHREALTIME/[.,]/}
timeout --foreground -k 10 "$timeout" "${QEMU[@]}" </dev/null 2>&1 | sed -u 's/\r$//' | tee "$out/console.log" || true
qemu_verdict "$out/result.txt"
ms=$(((${EPOCHREALTIME/[.,]/} - start) / 1000))
msg "$alias: VM ran for $((ms / 1000)).$(printf %03d $((ms % 1000))) s"

re='^RESULT: ([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?'
line=$(tr -d '\r' 2>/dev/null <"$out/result.txt" | grep -E "$re" | tail -n 1) || true
if [[ ! $line =~ $re ]]; then
	echo "RESULT: 0 passed, 1 failed (no result from guest: panic/timeout; see $out/console.log)"
	early_fail "no result from guest"
fi
passed=${BASH_REMATCH[1]} failed=${BASH_REMATCH[2]} skipped=${BASH_REMATCH[4]:-0}
if [[ -n $RL2_EXPORT_FILE ]] && ! qemu_export_unpack "$RL2_EXPORT_FILE" "$RL2_EXPORT_TO"/vm.$$.$SECONDS; then
	report "$passed" $((failed + 1)) "$skipped" "the guest's export is incomplete"
	exit 1
fi
report "$passed" "$failed" "$skipped"
((failed == 0))
