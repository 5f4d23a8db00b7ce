#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the initramfs of the test VM: busybox-static, /init, robust_list2.ko, and
# host programs at their host paths together with every shared object they load
# (elf-deps reads them from the ELF files, executing nothing: the host may
# not be able to run an i386 or aarch64 program), plus an ld.so.cache so libraries
# outside the loader's default directories (/usr/local/lib, ...) resolve as they
# do on the host.  With RL2_SYSROOT=DIR[:DIR...] (foreign architectures' runtime
# trees: scripts/toolchain --sysroot), libraries are looked up in each DIR first
# and those found there go to their path inside that DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/qemu/qemu.sh
. "$here/qemu.sh"

usage() {
	cat <<-EOT
	usage: $RL2_PROG OUT.cpio.gz [--ko PATH] [--init PATH] [--add FILE]... [--dir HOSTDIR:GUESTDIR]...
	  --ko PATH     module, installed as /lib/robust_list2/robust_list2.ko
	  --init PATH   /init (default: $here/init.sh)
	  --kmod PATH   a kernel module the guest loads at boot, before ours (fuse.ko
	                where FUSE is a module: t_fuse needs /dev/fuse)
	  --add FILE    FILE at the same absolute path, with the shared objects it loads
	  --dir H:G     host directory H copied to G, with the shared objects its executables load
	EOT
}

out='' ko='' init=$here/init.sh adds=() dirs=() kmods=()
while (($#)); do
	case $1 in
	--ko) ko=${2:?--ko needs a path}; shift ;;
	--init) init=${2:?--init needs a path}; shift ;;
	--kmod) kmods+=("${2:?--kmod needs a path}"); shift ;;
	--add) adds+=("${2:?--add needs a file}"); shift ;;
	--dir) dirs+=("${2:?--dir needs HOSTDIR:GUESTDIR}"); shift ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; exit 2 ;;
	*) [[ -z $out ]] || { usage >&2; exit 2; }; out=$1 ;;
	esac
	shift
done
[[ -n $out ]] || { usage >&2; exit 2; }
busybox=${BUSYBOX:-/bin/busybox}
sysroots=() sysroot_opts=()
IFS=: read -r -a sysroots <<<"${RL2_SYSROOT:-}"
for d in ${sysroots[@]+"${sysroots[@]}"}; do sysroot_opts+=(--sysroot "$d"); done
[[ -x $busybox ]] || die "$busybox not found (apt-get install busybox-static, or run scripts/deps)"

stage=$(mktemp -d)
chmod 0755 "$stage"	# becomes the guest's /: unprivileged tests must reach it
trap 'rm -rf "$stage"' EXIT
declare -A libdirs=()

# put PATH: copy host file PATH to the same path in the image.  A symlink (or a path
# through a symlinked directory, as /lib on merged-/usr) becomes a symlink to the real
# file, which is copied at its canonical path: every name a loader uses still resolves.
put() {
	local p=$1 real
	[[ -e $stage$p || -L $stage$p ]] && return 0
	real=$(readlink -f -- "$p")
	mkdir -p "$(dirname "$stage$p")"
	if [[ $real != "$p" ]]; then
		put "$real"
		ln -s "$real" "$stage$p"
	else
		cp -p -- "$p" "$stage$p"
	fi
}

add_lib() {
	local sysroot
	for sysroot in ${sysroots[@]+"${sysroots[@]}"}; do
		if [[ $1 == "$sysroot"/* ]]; then
			put_sys "$1"
			libdirs[$(dirname "${1#"$sysroot"}")]=1
			return
		fi
	done
	put "$1"
	libdirs[$(dirname "$1")]=1
	libdirs[$(dirname "$(readlink -f "$1")")]=1
}

# put_sys PATH: PATH under $sysroot (the caller's), at its path inside the
# sysroot; a symlink stays one, and its target (inside the sysroot) comes along.
put_sys() {
	local p=$1 g=${1#"$sysroot"} t
	[[ -e $stage$g || -L $stage$g ]] && return 0
	mkdir -p "$(dirname "$stage$g")"
	if [[ -L $p ]]; then
		t=$(readlink -- "$p")
		ln -s "$t" "$stage$g"
		if [[ $t == /* ]]; then t=$sysroot$t; else t=$(dirname "$p")/$t; fi
		put_sys "$(realpath -s -- "$t")"
	else
		cp -p -- "$p" "$stage$g"
	fi
}

# add_libs FILE...: the shared objects the FILEs load, loaders included; nothing
# for static executables, scripts and data files.
add_libs() {
	local lib libs
	(($#)) || return 0
	libs=$("$here/elf-deps" ${sysroot_opts[@]+"${sysroot_opts[@]}"} -- "$@") ||
		die "cannot resolve the shared libraries of: $*"
	for lib in $libs; do
		add_lib "$lib"
		# glibc dlopen()s libgcc_s for pthread_exit() and pthread_cancel(); no
		# DT_NEEDED names it ("libgcc_s.so.1 must be installed for pthread_exit").
		if [[ ${lib##*/} == libc.so.6 && -e ${lib%/*}/libgcc_s.so.1 ]]; then
			add_lib "${lib%/*}/libgcc_s.so.1"
		fi
	done
}

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,root,etc,lib/robust_list2}
cp "$busybox" "$stage/bin/busybox"	# applet links: `busybox --install -s` in /init
progs=()
((${#sysroots[@]})) || progs=("$busybox")	# a foreign busybox: static anyway
install -m 0755 "$init" "$stage/init"
[[ -z $ko ]] || install -m 0644 "$ko" "$stage/lib/robust_list2/robust_list2.ko"
for m in ${kmods[@]+"${kmods[@]}"}; do
	mkdir -p "$stage/lib/robust_list2/kmod"
	install -m 0644 "$m" "$stage/lib/robust_list2/kmod/${m##*/}"
done

for f in ${adds[@]+"${adds[@]}"}; do
	f=$(realpath -s -- "$f")
	[[ -f $f ]] || die "--add $f: no such file"
	put "$f"
	progs+=("$f")
done

for d in ${dirs[@]+"${dirs[@]}"}; do
	h=${d%%:*} g=${d#*:}
	[[ -d $h && $g == /* && $d == *:* ]] || die "--dir $d: want EXISTING_HOSTDIR:/ABSOLUTE/GUESTDIR"
	mkdir -p "$stage$g"
	cp -a -- "$h/." "$stage$g/"
	while IFS= read -r -d '' f; do
		progs+=("$f")
	done < <(find "$h" -type f -perm -u+x -print0)
done
add_libs "${progs[@]}"

# Just enough of a user database for tests that look up root or nobody.
[[ -e $stage/etc/passwd ]] ||
	printf '%s\n' root:x:0:0:root:/root:/bin/sh nobody:x:65534:65534:nobody:/nonexistent:/bin/false \
		>"$stage/etc/passwd"
[[ -e $stage/etc/group ]] || printf '%s\n' root:x:0: nogroup:x:65534: >"$stage/etc/group"

if ((${#libdirs[@]})); then
	printf '%s\n' "${!libdirs[@]}" | sort >"$stage/etc/ld.so.conf"
	PATH=$PATH:/usr/sbin:/sbin ldconfig -r "$stage" ||
		msg "warning: ldconfig failed; libraries outside the default paths may not load"
fi

# Reproducible enough: sorted names, fixed owner and mtime, no gzip timestamp.
find "$stage" -exec touch -h -d @0 {} +
mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --reproducible --quiet) | gzip -n -1 >"$out.tmp"
mv "$out.tmp" "$out"
