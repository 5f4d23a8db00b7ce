#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A dynamic -m32 hello world run through scripts/vm-run on one kernel (a VM boot,
# run by scripts/check-vm for each kernel): its i386
# loader and libc must reach the guest without the host executing it (the host may
# have no ia32 emulation), and the guest must run it.  Prints
#   ALIAS vm-run -m32: P passed, F failed     (arm64 kernels: a dynamic aarch64
#   ALIAS vm-run aarch64: ...                   program, "vm-run aarch64")
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"
alias=${1:?usage: t_vm_run_m32.sh ALIAS}

dir=$RL2_BUILD/$alias/m32	# per kernel: check-vm runs kernels in parallel
mkdir -p "$dir"
cat >"$dir/hello32.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
int main(int argc, char **argv)
{
	struct utsname u;

	uname(&u);
	printf("hello from a %zu-bit %s program on %s, arg '%s'\n",
	       8 * sizeof(void *), strrchr(argv[0], '/') + 1, u.machine,
	       argc > 1 ? argv[1] : "");
	return 3;
}
C
# An arm64 kernel: the same through the aarch64 cross toolchain, whose libc
# comes from its private runtime tree (elf-deps --sysroot).
what=-m32 prog=hello32 bits=32 machine=x86_64
if [[ $(kernel_arch "$alias") == arm64 ]]; then
	what=aarch64 prog=hello64 bits=64 machine=aarch64
	"$("$RL2_ROOT/scripts/toolchain" arm64)" -O2 -o "$dir/$prog" "$dir/hello32.c"
else
	${CC:-cc} -m32 -O2 -o "$dir/$prog" "$dir/hello32.c"
fi

rc=0
out=$("$RL2_ROOT/scripts/vm-run" --kernel "$alias" --timeout 120 -- "$dir/$prog" 'a b') || rc=$?
want="hello from a $bits-bit $prog program on $machine, arg 'a b'"
if [[ $rc == 3 ]] && grep -qxF "$want" <<<"$out"; then
	echo "$alias vm-run $what: 1 passed, 0 failed"
else
	printf "%s\n" "$out" | tail -n 20 >&2
	echo >&2 "not ok - wanted exit 3 and \"$want\", got exit $rc"
	echo "$alias vm-run $what: 0 passed, 1 failed"
	exit 1
fi
