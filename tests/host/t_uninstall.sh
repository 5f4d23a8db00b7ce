#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make uninstall removes everything the install targets put: install-lib,
# install-tools, install-headers, dkms-source and modules-load (what
# dkms-install adds before calling dkms) staged into a DESTDIR with
# PREFIX=/usr, plus a robust_list2.ko where `make install` (kbuild's
# modules_install) would put it, since this host has no headers to build one.
# Fails naming every file left behind.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage rel=0.0.0-rl2-test
mk=(make -s -C "$top" PREFIX=/usr DESTDIR="$stage" KERNELRELEASE="$rel")

"${mk[@]}" install-lib install-tools install-headers dkms-source modules-load >/dev/null
mkdir -p "$stage/lib/modules/$rel/updates"
echo fake >"$stage/lib/modules/$rel/updates/robust_list2.ko"
n=$(find "$stage" ! -type d | wc -l)
((n > 10)) || { echo "t_uninstall: the install targets staged only $n files" >&2; exit 1; }

"${mk[@]}" uninstall >/dev/null
left=$(cd "$stage" && find . ! -type d | sort)
if [[ -n $left ]]; then
	echo "t_uninstall: make uninstall left:" >&2
	sed 's/^/  /' <<<"$left" >&2
	exit 1
fi
echo "t_uninstall: $n files installed (lib, tools, headers, DKMS source, module), none left"
