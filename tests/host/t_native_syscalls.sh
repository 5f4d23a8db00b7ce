#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The library anyone installs makes no system call of its own: the default
# build (build/libshim/, build/m32/libshim/, and build/arm64/libshim/ where
# it was built), what `make install-lib` installs and the library of any
# package in build/deb/ reference no syscall(), contain no system call
# instruction and no immediate 463 or 464 -- the placeholder numbers of
# kernel-series/, which are setxattrat() and getxattrat() from 6.13 on.
# Only `make lib NATIVE=<kernel>` calls them (libshim/native.c), and
# debian/rules must not ask for it.  The control: the same checks find
# both in a library built with NATIVE= against headers giving those numbers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok - $*"; }
bad() { echo "not ok - $*"; fail=1; }

# calls FILE [OBJDUMP NM]: print what in FILE (.o, .a, .so) makes a system
# call: a syscall() reference, a system call instruction, 463 or 464 as an
# immediate.  Nothing printed: it makes none.
calls() {
	local f=$1 od=${2:-objdump} nm=${3:-nm}
	{ "$nm" -u "$f" 2>/dev/null; "$nm" -D --undefined-only "$f" 2>/dev/null; } |
		awk '$NF ~ /^syscall(@|$)/ { print "references " $NF }' | sort -u
	"$od" -d "$f" 2>/dev/null | grep -E $'\t(syscall|sysenter|int +\\$0x80|svc|swi)\\b' |
		sed 's/^/instruction: /' | head -n 3 || true
	"$od" -d "$f" 2>/dev/null | grep -E '(\$|#)(0x1cf|0x1d0|463|464)\b' |
		sed 's/^/immediate: /' | head -n 3 || true
}

# check LABEL FILE... [-- OBJDUMP NM]: every FILE must make no call.
check() {
	local label=$1 f found tools=()
	shift
	local files=()
	while (($#)) && [[ $1 != -- ]]; do files+=("$1"); shift; done
	(($#)) && { shift; tools=("$@"); }
	((${#files[@]})) || { bad "$label: no files"; return; }
	for f in "${files[@]}"; do
		found=$(calls "$f" ${tools[@]+"${tools[@]}"})
		if [[ -n $found ]]; then
			bad "$label: ${f#"$top"/} makes system calls:"
			sed 's/^/    /' <<<"$found"
			return
		fi
	done
	ok "$label: ${#files[@]} files, no system call, no 463/464"
}

make -s -C "$top" lib >/dev/null
make -s -C "$top/libshim" M32=1 >/dev/null
check "default library" "$top"/build/libshim/*.o "$top"/build/libshim/librobust_list2.a \
	"$top"/build/libshim/librobust_list2.so.*.*
check "default -m32 library" "$top"/build/m32/libshim/*.o "$top"/build/m32/libshim/librobust_list2.so.*.*
if compgen -G "$top/build/arm64/libshim/*.o" >/dev/null; then
	p=$("$top/scripts/toolchain" --prefix arm64)
	check "default arm64 library" "$top"/build/arm64/libshim/*.o -- "${p}objdump" "${p}nm"
fi

make -s -C "$top/libshim" install DESTDIR="$tmp/dest" PREFIX=/usr >/dev/null
check "make install-lib" "$tmp"/dest/usr/lib/librobust_list2.a "$tmp"/dest/usr/lib/librobust_list2.so.*.*

if grep -n 'NATIVE' "$top/debian/rules"; then
	bad "debian/rules mentions NATIVE: packages must be the default build"
else
	ok "debian/rules builds the default library"
fi
for deb in "$top"/build/deb/librobust-list2-0_*_amd64.deb; do
	[[ -f $deb ]] || continue
	rm -rf "$tmp/deb" && mkdir -p "$tmp/deb"
	dpkg-deb -x "$deb" "$tmp/deb"
	check "${deb##*/}" "$tmp"/deb/usr/lib/*/librobust_list2.so.*.*
done

# The control: a NATIVE= build against headers with the placeholder numbers.
mkdir -p "$tmp/hdr/asm" "$tmp/hdr/linux"
cat >"$tmp/hdr/asm/unistd.h" <<'EOF'
#include_next <asm/unistd.h>
#define __NR_set_robust_list2 463
#define __NR_get_robust_list2 464
EOF
cat >"$tmp/hdr/linux/futex.h" <<'EOF'
#include_next <linux/futex.h>
#define FUTEX_ROBUST_LIST_CMD_SET_64 0
#define FUTEX_ROBUST_LIST_CMD_SET_32 1
#define FUTEX_ROBUST_LIST_CMD_LIST_LIMIT 2
#define FUTEX_ROBUST_LIST_CMD_CREATE_64 3
#define FUTEX_ROBUST_LIST_CMD_CREATE_32 4
#define FUTEX_ROBUST_LIST2_WALK_LIMIT (1 << 20)
EOF
make -s -C "$top/libshim" NATIVE=control NATIVE_HEADERS="$tmp/hdr" LIBSHIM_O="$tmp/native/" \
	"$tmp/native/librobust_list2.a" >/dev/null
found=$(calls "$tmp/native/librobust_list2.a")
if grep -q '^references syscall' <<<"$found" && grep -q '^immediate:' <<<"$found"; then
	ok "control: a NATIVE= build is caught (syscall() and 463/464 found)"
else
	bad "control: the checks missed the NATIVE= build's system calls (found: ${found:-nothing})"
fi
exit "$fail"
