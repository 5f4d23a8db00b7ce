#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The README's usage example, as a reader takes it: its first ```c block
# saved as prog.c and built with the README's own build line (the `cc prog.c
# ...` after it), against the library staged by `make install-lib` and found
# through pkg-config only; then built again with -Wall -Wextra -Werror, and
# run: on this host (no module) it must say ENOSYS and exit 1.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
readme=$top/README.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

awk '/^```c[[:space:]]*$/ { c = 1; next } c && /^```/ { exit } c' "$readme" >"$tmp/prog.c"
[[ -s $tmp/prog.c ]] || { echo "t_readme_example: README.md has no \`\`\`c block" >&2; exit 1; }
build=$(grep -oE '`cc prog\.c [^`]*`' "$readme" | head -n 1 | tr -d '`')
[[ -n $build ]] || { echo "t_readme_example: README.md gives no \`cc prog.c ...\` build line" >&2; exit 1; }

stage=$tmp/stage
make -s -C "$top" install-lib PREFIX=/usr DESTDIR="$stage" >/dev/null
lib=$stage/usr/lib
export PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
export PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
cd "$tmp"
if ! out=$(bash -c "$build" 2>&1); then
	echo "t_readme_example: \`$build\` fails:" >&2
	echo "$out" >&2
	exit 1
fi
bash -c "${build/cc /cc -Wall -Wextra -Werror -o prog-strict }"

[[ ! -e /dev/robust_list2 ]] || { echo "t_readme_example: built; not run (this host has the module)"; exit 0; }
rc=0
err=$(LD_LIBRARY_PATH=$lib ./a.out 2>&1 >/dev/null) || rc=$?
if ((rc != 1)) || [[ $err != "robust_list2: Function not implemented" ]]; then
	echo "t_readme_example: without the module it exited $rc, saying '$err'" >&2
	exit 1
fi
echo "t_readme_example: \`$build\` builds the README example; it says ENOSYS without the module"
