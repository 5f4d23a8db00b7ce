# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers sourced by scripts/*: paths, the kernels.conf table, logging, and
# the VM harness of tests/qemu/.  Sourcing scripts already run with `set -euo pipefail`.

RL2_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RL2_CACHE=${RL2_CACHE:-$HOME/.cache/robust_list2}	# downloads: never inside the repo
RL2_BUILD=${RL2_BUILD:-$RL2_ROOT/build}			# per-kernel build output
# (make's own output is always $RL2_ROOT/build/, whatever RL2_BUILD says:
# build/libshim/, build/m32/, build/tests/, build/tools/, build/bench/, build/arm64/)
RL2_KERNELS=${RL2_KERNELS:-$RL2_ROOT/scripts/kernels.conf}
RL2_PROG=${0##*/}

msg() { printf '%s: %s\n' "$RL2_PROG" "$*" >&2; }
die() { msg "$*"; exit 1; }

# kernel_field ALIAS COLUMN: one field of ALIAS's row in kernels.conf.
# COLUMN is release, image, headers, target or flags (flags may be empty).
# A series row (a * in release, image and headers) is resolved first:
# kernel_resolve.
kernel_field() {
	local alias=$1 col v
	case $2 in
	release) col=2 ;; image) col=3 ;; headers) col=4 ;; target) col=5 ;; flags) col=6 ;;
	*) die "kernel_field: unknown column '$2'" ;;
	esac
	v=$(kernel_raw_field "$alias" "$col") ||
		die "unknown kernel '$alias' (known: $(all_kernels | paste -sd ' '); see $RL2_KERNELS)"
	if [[ $v == *'*'* ]]; then
		kernel_resolve "$alias" || exit 1
		v=${v//\*/$RL2_SERIES_ABI}
	fi
	printf '%s\n' "$v"
}

kernel_raw_field() {
	awk -v a="$1" -v c="$2" '!/^[[:space:]]*(#|$)/ && $1 == a { print $c; f = 1; exit }
		END { exit !f }' "$RL2_KERNELS"
}

# kernel_resolve ALIAS: set RL2_SERIES_ABI to what the * of ALIAS's series row
# stands for: the newest ABI whose image and headers packages the archive lists
# (Debian drops superseded ABIs, so an exact pin breaks a fresh machine one
# day), or, with no archive index (no apt-get update yet), the newest image
# already cached.  Package names come from `apt-cache pkgnames`, or from the
# command in RL2_APT_PKGNAMES (tests: a fake archive).  Resolved once per
# process.
declare -A RL2_SERIES_CACHE=()
kernel_resolve() {
	local alias=$1 rel image headers re abi names
	if [[ -n ${RL2_SERIES_CACHE[$alias]:-} ]]; then
		RL2_SERIES_ABI=${RL2_SERIES_CACHE[$alias]}
		return 0
	fi
	rel=$(kernel_raw_field "$alias" 2) image=$(kernel_raw_field "$alias" 3)
	headers=$(kernel_raw_field "$alias" 4)
	# the names are in the row's private index (kernel_apt_conf); the
	# command can be replaced by a fake archive (tests: RL2_APT_PKGNAMES)
	local pkgnames=true memo=	# no index (offline): the cached kernels below
	if kernel_apt_conf "$alias"; then
		pkgnames="env APT_CONFIG=$RL2_APT_STATE ${RL2_APT_PKGNAMES:-apt-cache pkgnames}"
		# The answer is kept beside the index it came from, for as long as
		# that index is unchanged: every script of a run asks (apt-cache
		# rebuilds its cache each time where the host sets none: ~1 s a call).
		[[ -n ${RL2_APT_PKGNAMES:-} ]] || memo=${RL2_APT_STATE%/apt.conf}/series/$alias
		if [[ -n $memo && -s $memo ]] &&
			[[ -z $(find "${RL2_APT_STATE%/apt.conf}/lists" -maxdepth 1 -name '*_Packages*' \
				-newer "$memo" -print -quit) ]]; then
			RL2_SERIES_ABI=$(<"$memo")
			RL2_SERIES_CACHE[$alias]=$RL2_SERIES_ABI
			return 0
		fi
	fi
	if [[ $rel != *'*'* || $image != *'*'* || $headers != *'*'* ]]; then
		msg "kernels.conf: $alias: a series needs a * in release, image and headers"
		return 1
	fi
	# glob -> regex: the * is an ABI (digits and dots), everything else literal
	re=$(sed -e 's/[.+^$()|[\]/\\&/g' -e 's/\*/([0-9][0-9.]*)/' <<<"$image")
	names=$($pkgnames "${image%%\**}" 2>/dev/null | sort -u) || true
	for abi in $(sed -nE "s/^$re\$/\\1/p" <<<"$names" | sort -rV); do
		if grep -qxF "${headers//\*/$abi}" <<<"$names" ||
			# not grep -q: an early exit SIGPIPEs apt-cache, failing the pipe
			$pkgnames "${headers//\*/$abi}" 2>/dev/null |
			grep -xF "${headers//\*/$abi}" >/dev/null; then
			RL2_SERIES_ABI=$abi
			if [[ -n $memo ]]; then
				mkdir -p "${memo%/*}"
				echo "$abi" >"$memo.$$" && mv "$memo.$$" "$memo"
			fi
			break
		fi
		abi=
	done
	if [[ -z ${abi:-} ]]; then
		# offline: the newest release of the series already cached
		re=$(sed -e 's/[.+^$()|[\]/\\&/g' -e 's/\*/([0-9][0-9.]*)/' <<<"$rel")
		abi=$(find "$RL2_CACHE/kernels" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null |
			sed -nE "s/^$re\$/\\1/p" | sort -rV | head -n 1)
		if [[ -z $abi ]]; then
			msg "no $image with its $headers in the archive index (of ${RL2_APT_STATE:-the private apt state}; delete its lists/ to fetch it again)"
			return 1
		fi
		RL2_SERIES_ABI=$abi
	fi
	RL2_SERIES_CACHE[$alias]=$RL2_SERIES_ABI
}

# kernel_is_debug ALIAS: is ALIAS a kernel we build ourselves (flags "debug",
# or "debug=NAME" for a variant: scripts/build-debug-kernel)?
kernel_is_debug() {
	kernel_raw_field "$1" 6 | tr , '\n' | grep -qE '^debug(=|$)'
}

# kernel_is_native ALIAS: is ALIAS a kernel with the system calls of
# kernel-series/ (flags "native": scripts/build-native-kernel), booted
# without robust_list2.ko?
kernel_is_native() {
	kernel_raw_field "$1" 6 | tr , '\n' | grep -qx native
}

# kernel_arch ALIAS: the Debian architecture of ALIAS's image, from an
# "arch=ARCH" flag (amd64 without one).
kernel_arch() {
	local a
	a=$(kernel_raw_field "$1" 6 | tr , '\n' | sed -n 's/^arch=//p') || true
	echo "${a:-amd64}"
}

# kernel_karch ALIAS: the same as kbuild's ARCH (x86, arm64).
kernel_karch() {
	case $(kernel_arch "$1") in
	amd64) echo x86 ;;
	*) kernel_arch "$1" ;;
	esac
}

# apt_state SUITE [ARCH]: set RL2_APT_STATE to an APT_CONFIG of a private
# apt state under $RL2_CACHE/apt/SUITE[-ARCH]/ that sees SUITE for amd64
# (and ARCH): its own sources.list, lists, cache and an empty dpkg status, so
# apt-get update/download, apt-get source and apt-cache never touch the
# host's apt or dpkg state (nothing is ever installed through it, only
# downloaded; the host needs no extra apt source or dpkg architecture).  A
# stable SUITE is seen with its -updates and -security suites, bookworm and
# trixie with -backports too, sid alone; deb-src lines let apt-get source
# use it.  Its index is fetched once (root or not), and again when its
# sources change.
apt_state() {
	local suite=${1%%-*} arch=${2:-amd64} d src what
	d=$RL2_CACHE/apt/$suite what=$suite
	[[ $arch == amd64 ]] || { d+=-$arch; what+=" $arch"; }
	RL2_APT_STATE=$d/apt.conf
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/empty"
	[[ -f $d/status ]] || : >"$d/status"
	src=$(apt_sources "$suite")$'\n'
	if [[ $(cat "$d/sources.list" 2>/dev/null)$'\n' != "$src" || ! -f $d/apt.conf ]]; then
		printf '%s' "$src" >"$d/sources.list"
		rm -f "$d"/lists/*_Packages* "$d"/lists/*_Sources*	# fetch the index again
		cat >"$d/apt.conf.tmp" <<-EOT
		Dir::Etc::SourceList "$d/sources.list";
		Dir::Etc::SourceParts "$d/empty";
		Dir::Etc::Preferences "$d/empty/preferences";
		Dir::Etc::PreferencesParts "$d/empty";
		Dir::State::Lists "$d/lists";
		Dir::Cache "$d/cache";
		Dir::State::status "$d/status";
		APT::Architectures { "amd64"; $([[ $arch == amd64 ]] || echo "\"$arch\";") };
		APT::Sandbox::User "root";
		EOT
		mv "$d/apt.conf.tmp" "$d/apt.conf"
	fi
	compgen -G "$d/lists/*_Packages*" >/dev/null && return 0
	# A network blip fails an update: try three times.  A failed update
	# leaves some lists behind, which would pass for a whole index next
	# time: they go, so lists present means an update succeeded (a bad
	# index of a companion suite only warns: apt_update_tolerant).
	(
		flock 8
		compgen -G "$d/lists/*_Packages*" >/dev/null && exit 0
		local try again=
		for try in 1 2 3; do
			msg "apt-get update of the private $what index in $d$again"
			again=" (try $((try + 1)) of 3)"
			apt_update_tolerant env APT_CONFIG="$d/apt.conf" >"$d/update.log" 2>&1 && {
				grep -E '^E: Failed to fetch|warning' "$d/update.log" >&2 || true
				exit 0
			}
			rm -f "$d"/lists/*_Packages* "$d"/lists/*_Sources*
			((try == 3)) || sleep $((try * 20))
		done
		cat "$d/update.log" >&2
		exit 1
	) 8>"$d/.lock" || { msg "cannot fetch the $what index (network?)"; return 1; }
}

# apt_update_tolerant CMD...: "CMD... apt-get -q update" (CMD: how to enter
# a chroot), its output on stdout.  As in apt_state, a failure that only
# concerns a suite's companions (-updates, -backports, -security: a mirror
# caught syncing one, "File has unexpected size") is a warning: apt then
# takes the suite's own versions.  Any other error fails.
apt_update_tolerant() {
	local out rc=0
	out=$("$@" apt-get -q update 2>&1) || rc=$?
	printf '%s\n' "$out"
	((rc)) || return 0
	grep -q '^E: Failed to fetch' <<<"$out" || return "$rc"
	if grep '^E: ' <<<"$out" | grep -qvE \
		'^E: (Failed to fetch .*/dists/[a-z]+-(security|updates|backports)/|Some index files failed to download)'; then
		return "$rc"
	fi
	echo "$RL2_PROG: warning: only companion suites' indexes failed (above): going on"
}

# apt_sources SUITE: the sources.list of apt_state's private state of SUITE.
apt_sources() {
	local suite=$1 s
	case $suite in
	sid | unstable) set -- "$suite" ;;
	bookworm | trixie) set -- "$suite" "$suite-updates" "$suite-backports" ;;
	*) set -- "$suite" "$suite-updates" ;;
	esac
	for s; do
		echo "deb http://deb.debian.org/debian $s main"
		echo "deb-src http://deb.debian.org/debian $s main"
	done
	[[ $suite == sid || $suite == unstable ]] ||
		echo "deb http://deb.debian.org/debian-security $suite-security main"
}

# apt_foreign ARCH: set RL2_APT_FOREIGN to apt_state's APT_CONFIG of
# bookworm for amd64 and ARCH (the cross toolchains' packages).
apt_foreign() {
	apt_state bookworm "$1" || return 1
	RL2_APT_FOREIGN=$RL2_APT_STATE
}

# kernel_apt_conf ALIAS: set RL2_APT_STATE (apt_state) to the private apt
# state the packages of kernel ALIAS come from (its target suite, its
# architecture): every kernel of kernels.conf comes through one.
kernel_apt_conf() {
	local arch
	arch=$(kernel_arch "$1")
	apt_state "$(kernel_raw_field "$1" 5)" "$([[ $arch == amd64 ]] || echo "$arch")"
}

# vm_kcsan_env ALIAS: a KCSAN row (debug=kcsan) boots with panic_on_warn=0
# (in QEMU_APPEND, after the harness's panic_on_warn=1: the last one wins).
# KCSAN panics on its first report under panic_on_warn, and the kernel
# itself has races (process_one_work at boot): the guest's log scan
# (tests/qemu/init.sh dmesg_bad) then judges, failing a WARN or a race
# that names the module and listing the others.
vm_kcsan_env() {
	kernel_raw_field "$1" 6 | tr , '\n' | grep -qx 'debug=kcsan' || return 0
	[[ " ${QEMU_APPEND:-} " == *" panic_on_warn=0 " ]] ||
		export QEMU_APPEND="${QEMU_APPEND:+$QEMU_APPEND }panic_on_warn=0"
}

# vm_arch_env ALIAS: export what the VM harness (tests/qemu/) needs for the
# architecture of ALIAS: RL2_VM_ARCH, and for a foreign one its busybox and
# runtime tree (RL2_SYSROOT, for mkinitramfs) and its test binaries
# (RL2_TESTDIR, built by make -C tests arm64); and vm_kcsan_env's.
vm_arch_env() {
	local arch
	arch=$(kernel_arch "$1")
	export RL2_VM_ARCH=$arch
	vm_kcsan_env "$1"
	# the caller's own BUSYBOX, for the host-arch rows after a foreign one
	[[ -n ${RL2_HOST_BUSYBOX+x} ]] || RL2_HOST_BUSYBOX=${BUSYBOX-}
	if [[ $arch == amd64 ]]; then
		unset RL2_SYSROOT RL2_ARCH_TESTDIR BUSYBOX
		[[ -z $RL2_HOST_BUSYBOX ]] || export BUSYBOX=$RL2_HOST_BUSYBOX
		# the -m32 suites' libcmocka (scripts/toolchain i386)
		RL2_SYSROOT=$("$RL2_ROOT/scripts/toolchain" --sysroot i386) || return 1
		export RL2_SYSROOT
		return 0
	fi
	RL2_SYSROOT=$("$RL2_ROOT/scripts/toolchain" --sysroot "$arch") || return 1
	export BUSYBOX=$RL2_SYSROOT/bin/busybox
	export RL2_ARCH_TESTDIR=$RL2_ROOT/build/$arch/tests
	# armhf builds of the suites (make -C tests armhf) run in the same VM
	if [[ $arch == arm64 ]] && compgen -G "$RL2_ARCH_TESTDIR/t_*.armhf" >/dev/null; then
		RL2_SYSROOT+=:$("$RL2_ROOT/scripts/toolchain" --sysroot armhf) || return 1
	fi
	export RL2_SYSROOT
}

# kernel_suite ALIAS: the Debian suite ALIAS's row names (its target
# without -security, -backports, -updates): bullseye, bookworm, trixie, sid.
kernel_suite() {
	local t
	t=$(kernel_raw_field "$1" 5) || die "unknown kernel '$1' (see $RL2_KERNELS)"
	printf '%s\n' "${t%%-*}"
}

# kernel_chroot ALIAS: the build chroot ALIAS's module is built in (and a
# debug row's kernel): that of its suite, $RL2_CACHE/chroot/<suite>
# (build_chroot), whatever the host's release.  The compiler is the one
# the headers name, from the suite they come from (kernel_compiler).
kernel_chroot() {
	printf '%s\n' "$RL2_CACHE/chroot/$(kernel_suite "$1")"
}

# kernel_triplet ALIAS: the GNU triplet of ALIAS's architecture.
kernel_triplet() {
	case $(kernel_arch "$1") in
	amd64) echo x86_64-linux-gnu ;;
	arm64) echo aarch64-linux-gnu ;;
	*) die "no compiler known for $(kernel_arch "$1")" ;;
	esac
}

# kernel_compiler ALIAS KDIR: the package of the compiler that builds for
# the kbuild directory KDIR of ALIAS: the gcc-N its Debian headers name
# (.kernelvariables: "CC = ... gcc-N"), for a foreign architecture the
# cross gcc-N-TRIPLET; for a tree we built (a debug row), the suite's gcc.
kernel_compiler() {
	local n
	n=$(sed -n 's/^CC = .*gcc-\([0-9][0-9]*\)$/\1/p' "$2/.kernelvariables" 2>/dev/null) || true
	if [[ -z $n ]]; then
		[[ ! -f $2/.kernelvariables ]] || die "$2/.kernelvariables names no gcc-N"
		echo gcc
	elif [[ $(kernel_arch "$1") == amd64 ]]; then
		echo "gcc-$n"
	else
		echo "gcc-$n-$(kernel_triplet "$1")"
	fi
}

# build_chroot SUITE [PACKAGE...]: print the path of the build chroot of
# SUITE, $RL2_CACHE/chroot/SUITE, with make, libc6-dev, libelf-dev, dwarves
# (pahole: BTF for the 6.12 and newer headers, which ship a vmlinux) and each
# PACKAGE installed by its own apt: a copy of deb_chroot_base SUITE with
# the suite's sources (deb_sources), made once, a missing package added
# when asked for.  The host's apt, dpkg and sources are never touched, and
# its release does not matter: a row's headers are built with its own
# suite's compiler and kbuild programs.  Root.
build_chroot() {
	local suite=$1 d=$RL2_CACHE/chroot/$1 want
	shift
	want=(make libc6-dev libelf-dev dwarves "$@")
	chroot_has "$d" "${want[@]}" && { echo "$d"; return 0; }
	((EUID == 0)) || { msg "$d lacks ${want[*]}: run as root once"; return 1; }
	mkdir -p "${d%/*}"
	(
		flock 8
		chroot_has "$d" "${want[@]}" && exit 0
		if [[ ! -x $d/usr/bin/apt-get ]]; then
			base=$(deb_chroot_base "$suite") || exit 1
			msg "making the $suite build chroot $d (once)"
			rm -rf "$d.tmp"
			cp -a "$base" "$d.tmp"
			deb_sources "$suite" >"$d.tmp/etc/apt/sources.list"
			apt_update_tolerant chroot_run "$d.tmp" -- >"$d.log" 2>&1 ||
				{ tail -n 20 "$d.log" >&2; exit 1; }
			mv "$d.tmp" "$d"
		fi
		msg "installing ${want[*]} in $d"
		chroot_install "$d" "${want[@]}" >"$d.log" 2>&1 || { tail -n 30 "$d.log" >&2; exit 1; }
	) 8>"$d.lock" || { msg "preparing the $suite build chroot failed (log: $d.log)"; return 1; }
	echo "$d"
}

# chroot_has CHROOT PACKAGE...: is every PACKAGE installed in CHROOT?
chroot_has() {
	local root=$1 pkgs
	shift
	[[ -x $root/usr/bin/apt-get ]] || return 1
	mapfile -t pkgs < <(printf '%s\n' "$@" | sort -u)	# dpkg-query answers a name once
	(($(dpkg-query --admindir="$root/var/lib/dpkg" -W -f='${db:Status-Abbrev}\n' "${pkgs[@]}" 2>/dev/null |
		grep -c '^ii') == ${#pkgs[@]}))
}

# chroot_install CHROOT PACKAGE...: install with CHROOT's own apt (its index
# refreshed once if a package is not found there), then drop the .debs.
chroot_install() {
	local root=$1 cmd=(env DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends install)
	shift
	{ chroot_run "$root" -- "${cmd[@]}" "$@" ||
		{ apt_update_tolerant chroot_run "$root" -- && chroot_run "$root" -- "${cmd[@]}" "$@"; }; } &&
		chroot_run "$root" -- apt-get clean
}

# kernel_run ALIAS DIR... -- COMMAND...: COMMAND in ALIAS's build chroot
# (kernel_chroot), with ALIAS's kbuild directory (its headers' tree, or the
# tree of a kernel we build) and each DIR bound in at their own paths; the
# chroot has the compiler the headers name (scripts/fetch-kernel installs
# it with the headers).  Returns 77 when not root.
kernel_run() {
	local alias=$1 kdir dirs=()
	shift
	while (($#)) && [[ $1 != -- ]]; do dirs+=("$1"); shift; done
	shift
	if ((EUID)); then
		msg "skipped: building for $alias runs in $(kernel_chroot "$alias"), which needs root"
		return 77
	fi
	kdir=$("$RL2_ROOT/scripts/fetch-kernel" --print-kdir "$alias") || return 1
	chroot_run "$(kernel_chroot "$alias")" "${kdir%%/usr/src/*}" ${dirs[@]+"${dirs[@]}"} -- "$@"
}

# chroot_run CHROOT DIR... -- COMMAND...: run COMMAND in CHROOT, in a mount
# namespace of its own (nothing to unmount afterwards) with /proc mounted
# (objtool, apt) and each DIR bind-mounted at the same path inside.  Root.
chroot_run() {
	local root=$1 binds=()
	shift
	while (($#)) && [[ $1 != -- ]]; do binds+=("$1"); shift; done
	shift
	unshare -m -- sh -c 'root=$1 n=$2; shift 2
		while [ "$n" -gt 0 ]; do
			mkdir -p "$root$1" && mount --bind "$1" "$root$1" || exit 125
			shift; n=$((n - 1))
		done
		mount -t proc proc "$root/proc" && exec chroot "$root" "$@"' \
		sh "$root" "${#binds[@]}" ${binds[@]+"${binds[@]}"} "$@"
}

# deb_chroot_base SUITE: print the path of a minimal chroot of SUITE (amd64,
# debootstrap --variant=minbase) under $RL2_CACHE/deb-chroot/, made once: the
# pristine tree that scripts/build-deb and scripts/check-deb copy into the
# chroots they prepare.  Root.
deb_chroot_base() {
	local suite=$1 d=$RL2_CACHE/deb-chroot/$1-base
	mkdir -p "${d%/*}"
	[[ -f $d/etc/debian_version ]] || (
		flock 8
		[[ -f $d/etc/debian_version ]] && exit 0
		command -v debootstrap >/dev/null || PATH=$PATH:/usr/sbin
		msg "debootstrap $suite into $d (once)"
		rm -rf "$d.tmp"
		debootstrap --variant=minbase "$suite" "$d.tmp" "${RL2_DEBIAN_MIRROR:-http://deb.debian.org/debian}" \
			>"$d.log" 2>&1 || { tail -n 20 "$d.log" >&2; exit 1; }
		mv "$d.tmp" "$d"
	) 8>"$d.lock" || { msg "debootstrap of $suite failed (log: $d.log)"; return 1; }
	echo "$d"
}

# deb_build SRC ARCH LOG [DPKG-BUILDPACKAGE-ARG...]: dpkg-buildpackage -us -uc
# ARG... on the source tree SRC for ARCH (amd64, or -a ARCH: arm64, armhf) in
# the package build chroot, $RL2_CACHE/deb-chroot/bookworm-build: a copy of
# deb_chroot_base bookworm whose own dpkg has arm64 and armhf added and whose
# apt installs debian/control's build dependencies, so that the packages
# link against bookworm's libc, the oldest release they are for, whatever
# the host's release.  The results land beside SRC (in its parent, bound
# into the chroot at its own path); the output goes to LOG.  One build at a
# time (the chroot is shared by every worktree).  Root.
deb_build() {
	local src=$1 arch=$2 log=$3 root=$RL2_CACHE/deb-chroot/bookworm-build base want bd
	shift 3
	local cr=(chroot_run "$root" "${src%/*}" -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
		LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive)
	base=$(deb_chroot_base bookworm) || return 1
	(
		flock 8
		# libc6-dev:ARCH: dpkg-shlibdeps reads the target's libc from dpkg's database
		want="build-essential debhelper dh-dkms pkg-config crossbuild-essential-arm64 crossbuild-essential-armhf
libc6-dev:arm64 libc6-dev:armhf"
		if [[ $(cat "$root/.rl2-ready" 2>/dev/null) != "$want" ]]; then
			msg "preparing the package build chroot $root (once): $want"
			rm -rf "$root.tmp"
			cp -a "$base" "$root.tmp"
			deb_sources bookworm >"$root.tmp/etc/apt/sources.list"
			# shellcheck disable=SC2086 # $want is a list
			if ! { chroot_run "$root.tmp" -- dpkg --add-architecture arm64 &&
				chroot_run "$root.tmp" -- dpkg --add-architecture armhf &&
				apt_update_tolerant chroot_run "$root.tmp" -- &&
				chroot_run "$root.tmp" -- env DEBIAN_FRONTEND=noninteractive \
					apt-get -q -y --no-install-recommends install $want &&
				chroot_run "$root.tmp" -- apt-get clean; } >"$root.log" 2>&1; then
				tail -n 30 "$root.log" >&2
				msg "preparing $root failed (log: $root.log)"
				exit 1
			fi
			echo "$want" >"$root.tmp/.rl2-ready"
			rm -rf "$root"
			mv "$root.tmp" "$root"
		fi
		# debian/control's Build-Depends for ARCH, by the chroot's apt (a
		# no-op when they are there; its index refreshed once if one is missing).
		bd=(apt-get -q -y --no-install-recommends -o APT::Keep-Downloaded-Packages=false build-dep -a "$arch" "$src")
		"${cr[@]}" "${bd[@]}" >"$log" 2>&1 ||
			{ apt_update_tolerant "${cr[@]}" >>"$log" 2>&1 && "${cr[@]}" "${bd[@]}" >>"$log" 2>&1; } ||
			{ tail -n 30 "$log" >&2; msg "cannot install the build dependencies for $arch (log: $log)"; exit 1; }
		"${cr[@]}" DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-}" sh -c 'cd "$1" && shift && exec "$@"' sh "$src" \
			dpkg-buildpackage -us -uc -j"$(nproc)" "$@" >>"$log" 2>&1 ||
			{ tail -n 40 "$log" >&2; msg "dpkg-buildpackage $* failed (whole log: $log)"; exit 1; }
	) 8>"$root.lock"
}

# deb_sources SUITE: a sources.list of SUITE as a user of it has one (its
# -updates and -security suites too; sid has neither).
deb_sources() {
	local m=${RL2_DEBIAN_MIRROR:-http://deb.debian.org/debian}
	if [[ $1 == sid || $1 == unstable ]]; then
		printf 'deb %s %s main\n' "$m" "$1"
		return 0
	fi
	printf 'deb %s %s main\n' "$m" "$1" "$m" "$1-updates"
	echo "deb http://deb.debian.org/debian-security $1-security main"
}

all_kernels() { awk '!/^[[:space:]]*(#|$)/ { print $1 }' "$RL2_KERNELS"; }

# The default test matrix: every row not flagged "manual".
default_kernels() {
	awk '!/^[[:space:]]*(#|$)/ && $6 !~ /(^|,)manual(,|$)/ { print $1 }' "$RL2_KERNELS"
}

# The VM harness (qemu_accel, qemu_setup) lives in tests/qemu/ and knows
# nothing of scripts/; scripts that boot VMs source it after this file.
# shellcheck source=tests/qemu/qemu.sh
. "$RL2_ROOT/tests/qemu/qemu.sh"
