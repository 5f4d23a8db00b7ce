#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A build writes nothing outside build/: in a clean copy of the tree (the
# files git tracks or would track, none of this tree's build output) made a
# git repository of its own, run what `make` and the host and VM checks
# build (make, make -C tests host vm [fuzz], make -C tools, make -C bench,
# make module for 6.12's headers, in its build chroot) and fail naming every path `git status
# --ignored` then shows outside build/: an object next to its source, a
# binary in tests/, a file the build deleted or changed.
# Skipped (77) only where this is not a git work tree.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$top/scripts/lib.sh"
git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	{ echo "t_build_tree: skipped: $top is not a git work tree"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src
mkdir -p "$src"
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [[ -e $f ]] && printf '%s\0' "$f"; done |
	tar --null -T - -cf -) | tar -xf - -C "$src"
git -C "$src" init -q
git -C "$src" add -A
git -C "$src" -c user.name=t_build_tree -c user.email=t@build.tree commit -q -m tree

# What make check's steps build in the tree (the Arm builds go through the
# same rules with other compilers, which this check does not fetch); -O0
# where it halves the time, as the layout does not depend on it.
unset MAKEFLAGS MFLAGS MAKELEVEL ARCH M32 O KERNELRELEASE KDIR
kdir=$("$top/scripts/fetch-kernel" --print-kdir 6.12)
mk() { local d=$1; shift; make -s -j"$(nproc)" -C "$src/$d" "$@" >/dev/null; }
fuzz=()
! command -v clang >/dev/null || fuzz=(fuzz)	# make fuzz's (scripts/deps --debug)
mk .
mk tests CFLAGS=-O0 host vm ${fuzz[@]+"${fuzz[@]}"}
mk tools CFLAGS=-O0
mk bench CFLAGS=-O0
# the module with 6.12's compiler: in its build chroot (lib.sh kernel_run)
kernel_run 6.12 "$src" -- make -s -j"$(nproc)" -C "$src" module KDIR="$kdir" >/dev/null

n=$(find "$src/build" -type f | wc -l)
((n > 50)) || { echo "t_build_tree: the build made only $n files under build/" >&2; exit 1; }
out=$(git -C "$src" status --ignored --porcelain --untracked-files=all | grep -v '^!! build/' || true)
if [[ -n $out ]]; then
	echo "t_build_tree: outside build/ after the build:"
	printf '%s\n' "$out" | sed 's/^/  /'
	exit 1
fi
echo "t_build_tree: $n files built, all under build/"
