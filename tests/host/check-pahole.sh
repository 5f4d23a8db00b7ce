#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Layout check of the ioctl structs as the compiler really lays them out:
# build a tiny object with -g that includes uapi/linux/robust_list2.h, for
# every ABI that can call the device, and run pahole on it.  Fails if pahole
# reports a hole or padding the header did not declare as a field ("XXX",
# "padding:"), if a struct is missing, or if a 32-bit layout differs from
# the 64-bit one (the module translates nothing for compat callers).
# t_uapi_layout.c pins the exact numbers; this shows the layouts.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
structs=(robust_list2_info robust_list2_set robust_list2_get robust_list2_stats robust_list2_unlock robust_list2_window
	 robust_list2_set_based robust_list2_get_based robust_list2_faults)
abis=(-m64 -m32 -mx32)
CC=${CC:-cc}

command -v pahole >/dev/null || { echo "check-pahole: pahole not found (apt install dwarves)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{
	echo '#include <linux/robust_list2.h>'
	for s in "${structs[@]}"; do
		echo "struct $s ${s}_v;"
	done
} >"$tmp/layout.c"

fail=0
for abi in "${abis[@]}"; do
	obj=$tmp/layout$abi.o
	"$CC" "$abi" -g -c -I"$top/uapi" -o "$obj" "$tmp/layout.c"
	# every struct of the object's DWARF at once: Debian 13's pahole 1.30
	# fails ("Invalid argument") with -C, after printing the struct
	pahole -F dwarf "$obj" >"$tmp/all$abi.txt"
	for s in "${structs[@]}"; do
		out=$tmp/$s$abi.txt
		awk -v s="struct $s {" '$0 == s { p = 1 } p { print } p && /^};/ { exit }' "$tmp/all$abi.txt" >"$out"
		if [ "$abi" = -m64 ]; then
			cat "$out"
		fi
		if ! grep -q "^struct $s {" "$out"; then
			echo "check-pahole: $abi: struct $s not found" >&2
			fail=1
		elif grep -E '/\* (XXX|padding:|bit_padding:)' "$out" >&2; then
			echo "check-pahole: $abi: struct $s has undeclared holes or padding" >&2
			fail=1
		elif [ "$abi" != -m64 ] && ! diff -u "$tmp/$s-m64.txt" "$out" >&2; then
			echo "check-pahole: $abi: struct $s differs from the -m64 layout" >&2
			fail=1
		fi
	done
done

if [ "$fail" -ne 0 ]; then
	echo "check-pahole: FAIL" >&2
	exit 1
fi
echo "check-pahole: ${structs[*]}: no holes, no padding, same layout for ${abis[*]}"
