#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A dynamic -m32 hello world run through scripts/vm-run on one kernel (a VM boot,
# run by scripts/check-vm for each kernel): its i386
# loader and libc must reach the guest without the host executing it (the host may
# have no ia32 emulation), and the guest must run it.  Prints
#   ALIAS vm-run -m32: P passed, F failed
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
${CC:-cc} -m32 -O2 -o "$dir/hello32" "$dir/hello32.c"

rc=0
out=$("$RL2_ROOT/scripts/vm-run" --kernel "$alias" --timeout 120 -- "$dir/hello32" 'a b') || rc=$?
want="hello from a 32-bit hello32 program on x86_64, arg 'a b'"
if [[ $rc == 3 ]] && grep -qxF "$want" <<<"$out"; then
	echo "$alias vm-run -m32: 1 passed, 0 failed"
else
	printf "%s\n" "$out" | tail -n 20 >&2
	echo >&2 "not ok - wanted exit 3 and \"$want\", got exit $rc"
	echo "$alias vm-run -m32: 0 passed, 1 failed"
	exit 1
fi
