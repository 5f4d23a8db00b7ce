#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/qemu/elf-deps and the initramfs builder find a program's shared libraries
# without executing anything: an i386 program's loader and libraries reach the
# image even with an ldd that cannot run (as on a host without ia32 emulation),
# the 64-bit answer equals ldd's where ldd works, a missing library is an error
# that names it, and a static program needs nothing.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() {	# expect WHAT CONDITION...
	local what=$1
	shift
	if "$@"; then echo "ok - $what"; else echo "not ok - $what"; fails=$((fails + 1)); fi
}
deps() { "$top/tests/qemu/elf-deps" "$@" | xargs -r -n1 readlink -f | sort -u; }

cat >"$tmp/hello.c" <<'C'
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <cmocka.h>
int main(void) { print_message("hello\n"); return 0; }
C
# the i386 libcmocka is unpacked under the cache (scripts/toolchain i386)
i386=$("$top/scripts/toolchain" --sysroot i386)
cc -m32 -o "$tmp/hello32" "$tmp/hello.c" -L"$("$top/scripts/toolchain" --rundir i386)" -l:libcmocka.so.0
cc -o "$tmp/hello64" "$tmp/hello.c" -lcmocka
cc -static -o "$tmp/static64" -x c - <<<'int main(void) { return 0; }'

# An ldd that cannot run anything, first in PATH.
mkdir "$tmp/bin"
printf '#!/bin/sh\necho "ldd: cannot execute" >&2\nexit 1\n' >"$tmp/bin/ldd"
chmod +x "$tmp/bin/ldd"

d32=$(PATH=$tmp/bin:$PATH deps --sysroot "$i386" "$tmp/hello32")
expect "i386: the interpreter of PT_INTERP" grep -qx "$(readlink -f /lib/ld-linux.so.2)" <<<"$d32"
expect "i386: libc from an i386 directory" grep -qE '^/(usr/)?lib(32|/i386-linux-gnu)/libc\.so\.6$' <<<"$d32"
expect "i386: libcmocka" grep -qE '/i386-linux-gnu/libcmocka\.so\.0' <<<"$d32"
expect "i386: no x86-64 library" test -z "$(grep x86_64 <<<"$d32" || true)"

d64=$(deps "$tmp/hello64")
l64=$(ldd "$tmp/hello64" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
	xargs -r -n1 readlink -f | sort -u)
expect "x86-64: the same libraries as ldd" test "$d64" = "$l64"
expect "static: nothing" test -z "$(deps "$tmp/static64")"
expect "a script: nothing" test -z "$(deps "$top/tests/qemu/elf-deps")"

cp "$tmp/hello64" "$tmp/needs-missing"
# Rename a DT_NEEDED entry in place (same length): libcmocka.so.0 -> libcmockX.so.0.
sed -i 's/libcmocka\.so\.0/libcmockX.so.0/' "$tmp/needs-missing"
rc=0
err=$("$top/tests/qemu/elf-deps" "$tmp/needs-missing" 2>&1 >/dev/null) || rc=$?
expect "a missing library fails" test "$rc" = 1
expect "and is named: $err" grep -q 'libcmockX.so.0 (needed by' <<<"$err"

# The image itself, built with the failing ldd first in PATH.
PATH=$tmp/bin:$PATH RL2_SYSROOT=$i386 "$top/tests/qemu/mkinitramfs.sh" "$tmp/i.cpio.gz" --add "$tmp/hello32" >/dev/null
list=$(gzip -dc "$tmp/i.cpio.gz" | cpio -t --quiet)
expect "initramfs: the i386 loader" grep -qx 'lib/ld-linux.so.2' <<<"$list"
expect "initramfs: i386 libcmocka" grep -q 'i386-linux-gnu/libcmocka.so.0' <<<"$list"
expect "initramfs: the program" grep -qx "${tmp#/}/hello32" <<<"$list"

((fails == 0))
