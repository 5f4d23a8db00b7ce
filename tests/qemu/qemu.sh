# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The VM harness's shell library, sourced by tests/qemu/* and by scripts/:
# logging, the accelerator choice and the QEMU command line.  Self-contained:
# nothing here (or anywhere in tests/qemu/) reads scripts/ or kernels.conf;
# callers hand the harness a vmlinuz, a module and the programs to run.
# Sourcing scripts already run with `set -euo pipefail`.

RL2_QEMU_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RL2_CACHE=${RL2_CACHE:-$HOME/.cache/robust_list2}	# downloads: never inside the repo
RL2_PROG=${RL2_PROG:-${0##*/}}

msg() { printf '%s: %s\n' "$RL2_PROG" "$*" >&2; }
die() { msg "$*"; exit 1; }

# qemu_accel VMLINUZ: print the QEMU accelerator to use, tcg or kvm.  QEMU_ACCEL
# forces one.  Otherwise KVM only if a short KVM boot of VMLINUZ reaches /init: nested
# KVM on our machines hangs right after decompression.  The verdict is cached per
# host kernel release, so the (at most 20 s) probe runs once.
qemu_accel() {
	case ${QEMU_ACCEL:-} in
	tcg | kvm) echo "$QEMU_ACCEL"; return 0 ;;
	'') ;;
	*) die "QEMU_ACCEL must be tcg or kvm, not '$QEMU_ACCEL'" ;;
	esac
	[[ ${RL2_VM_ARCH:-amd64} == amd64 ]] || { echo tcg; return 0; }	# foreign: emulated
	[[ -r /dev/kvm && -w /dev/kvm ]] || { echo tcg; return 0; }
	local verdict tmp
	verdict=$RL2_CACHE/kvm-probe/$(uname -r)
	if [[ ! -s $verdict ]]; then
		msg "probing KVM (once per host kernel, at most 20 s)"
		tmp=$(mktemp -d)
		mkdir -p "$tmp/cfg" "${verdict%/*}"
		echo probe >"$tmp/cfg/mode"
		"$RL2_QEMU_DIR/mkinitramfs.sh" "$tmp/probe.cpio.gz" --dir "$tmp/cfg:/etc/rl2"
		RL2_CONSOLE=null qemu_setup kvm "$1" "$tmp/probe.cpio.gz" "$tmp/out"
		timeout -k 2 20 "${QEMU[@]}" </dev/null >/dev/null 2>&1 || true
		if grep -q '^PROBE: ok' "$tmp/out" 2>/dev/null; then
			echo kvm >"$verdict"
		else
			echo tcg >"$verdict"
		fi
		rm -rf "$tmp"
		msg "KVM probe: using $(cat "$verdict") (verdict cached in $verdict)"
	fi
	cat "$verdict"
}

# qemu_setup ACCEL VMLINUZ INITRD RESULTFILE [KERNEL ARGS...]: set the array QEMU to
# the command line of a test VM.  The console (ttyS0) is on stdio, or $RL2_CONSOLE; the
# guest writes its verdict to ttyS1 = RESULTFILE.  panic=-1 with -no-reboot makes any
# panic end QEMU, which exits 0 anyway: callers judge the run by RESULTFILE only,
# after qemu_verdict.  RL2_VM_ARCH=arm64 boots an arm64 kernel instead (see
# qemu_setup_arm64).
qemu_setup() {
	local accel=$1 cpu=max accel_opt=$1
	if [[ ${RL2_VM_ARCH:-amd64} == arm64 ]]; then
		qemu_setup_arm64 "$@"
		return
	fi
	RL2_VERDICT_NONCE=
	[[ $accel == kvm ]] && cpu=host
	# One host thread runs every vCPU under TCG: with MTTCG, a vCPU can keep
	# running a stale translation of kernel text another vCPU just patched
	# (ftrace/text_poke_bp), which oopses stock kernels with no module loaded
	# at all ("Oops: int3" toggling the function tracer under thread churn).
	[[ $accel == tcg ]] && accel_opt="tcg,thread=${QEMU_TCG_THREAD:-single}"
	# -display none, not -nographic: with -nographic SeaBIOS also draws on the serial
	# console (escape sequences and banners in front of the kernel's output).
	# log_buf_len: init.sh scans the kernel log once, at the end, and a debug
	# kernel's suite (t_failnth's stack dumps) outgrew the default ring and
	# lost the marker that excuses them (both architectures).
	QEMU=(qemu-system-x86_64 -nodefaults -display none -no-reboot -monitor none
		-machine q35 -accel "$accel_opt" -cpu "$cpu" -smp "${QEMU_SMP:-2}" -m "${QEMU_MEM:-1024M}"
		-kernel "$2" -initrd "$3"
		-append "console=ttyS0 panic=-1 oops=panic panic_on_warn=1 softlockup_panic=1 loglevel=4 log_buf_len=4M ${*:5} ${QEMU_APPEND:-}"
		-serial "${RL2_CONSOLE:-stdio}" -serial file:"$4")
	# QEMU_ICOUNT=OPTS: the guest clock counts executed instructions
	# (-icount OPTS), so a timing repeats from boot to boot; TCG only.
	if [[ $accel == tcg && -n ${QEMU_ICOUNT:-} ]]; then
		QEMU+=(-icount "$QEMU_ICOUNT")
	fi
	# RL2_EXPORT_FILE: a third port (ttyS2), where the guest writes the
	# files the host asked for (init.sh export_files, qemu_export_unpack).
	if [[ -n ${RL2_EXPORT_FILE:-} ]]; then
		rm -f "$RL2_EXPORT_FILE"
		QEMU+=(-serial file:"$RL2_EXPORT_FILE")
		# RL2_TRACE_FILE: a fourth (ttyS3), for a trace that must
		# survive a guest panic (make fuzz: the program being run)
		[[ -z ${RL2_TRACE_FILE:-} ]] || QEMU+=(-serial file:"$RL2_TRACE_FILE")
	fi
}

# qemu_export_unpack FILE DIR: unpack into DIR (callers give each boot its
# own, under RL2_EXPORT_TO) what the guest exported to
# FILE (its third port): a gzip'd tar in base64 up to a line
# RL2-EXPORT-END.  Fails if the guest did not finish (x86 guests only).
qemu_export_unpack() {
	if ! tr -d '\r' <"$1" 2>/dev/null | grep -q '^RL2-EXPORT-END$'; then
		msg "$1: the guest did not finish its export"
		return 1
	fi
	mkdir -p "$2"
	tr -d '\r' <"$1" | sed '/^RL2-EXPORT-END$/,$d' | base64 -d | tar -xz -C "$2"
}

# The arm64 VM: QEMU's virt machine (TCG) with -cpu max, whose PAC QEMU
# enforces (pauth-impdef: the same checks as the default QARMA5, at half its
# cost); QEMU_CPU names another model (cortex-a72: ARMv8.0, no LSE atomics,
# no PAC).  virt has one UART and Debian's virtio console is a module, so the
# guest writes its verdict lines on the console, each behind a marker that
# holds a nonce from the kernel command line (rl2.verdict=), which
# qemu_verdict copies into RESULTFILE.
qemu_setup_arm64() {
	RL2_VERDICT_NONCE=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
	QEMU=(qemu-system-aarch64 -nodefaults -display none -no-reboot -monitor none
		-machine virt -accel "tcg,thread=${QEMU_TCG_THREAD:-single}"
		-cpu "${QEMU_CPU:-max,pauth-impdef=on}" -smp "${QEMU_SMP:-2}" -m "${QEMU_MEM:-1024M}"
		-kernel "$2" -initrd "$3"
		-append "console=ttyAMA0 panic=-1 oops=panic panic_on_warn=1 softlockup_panic=1 loglevel=4 log_buf_len=4M rl2.verdict=$RL2_VERDICT_NONCE ${*:5} ${QEMU_APPEND:-}"
		-chardev "${RL2_CONSOLE:-stdio},id=con,logfile=$4.console,logappend=off"
		-serial chardev:con)
	rm -f "$4" "$4.console"
	if [[ -n ${QEMU_ICOUNT:-} ]]; then
		QEMU+=(-icount "$QEMU_ICOUNT")
	fi
}

# qemu_verdict RESULTFILE: after QEMU has exited, make RESULTFILE hold the
# guest's verdict lines (a no-op where the guest wrote them there itself).
qemu_verdict() {
	[[ -n ${RL2_VERDICT_NONCE:-} ]] || return 0
	sed -n "s/\r\$//; s/^.*RL2-VERDICT-$RL2_VERDICT_NONCE //p" "$1.console" >"$1" 2>/dev/null || true
	rm -f "$1.console"
}
