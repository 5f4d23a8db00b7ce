#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernels.conf series resolver (scripts/lib.sh kernel_resolve) against a
# fake archive: the newest ABI wins by version, not by string; variants
# (-rt, -cloud, -dbg, -unsigned) never match; an image without its headers
# is passed over; an exact pin passes through; every row reads the index of
# the private apt state of its suite and architecture only, never the
# system's; offline, the newest cached
# release of the series is used; nothing at all is a clear error; an
# arch=arm64 row resolves the same way and says its architecture.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export RL2_KERNELS=$tmp/kernels.conf RL2_CACHE=$tmp/cache RL2_APT_PKGNAMES="$tmp/pkgnames"
mkdir -p "$RL2_CACHE/kernels"
cat >"$RL2_KERNELS" <<'CONF'
# alias release image headers target flags
s61   6.1.0-*-amd64        linux-image-6.1.0-*-amd64        linux-headers-6.1.0-*-amd64        bookworm-security
s612  6.12.*+deb12-amd64   linux-image-6.12.*+deb12-amd64   linux-headers-6.12.*+deb12-amd64   bookworm-backports
pin   6.1.0-9-amd64        linux-image-6.1.0-9-amd64        linux-headers-6.1.0-9-amd64        bookworm
bad   6.1.0-*-amd64        linux-image-6.1.0-9-amd64        linux-headers-6.1.0-9-amd64        bookworm
a64   6.12.*+deb12-arm64   linux-image-6.12.*+deb12-arm64   linux-headers-6.12.*+deb12-arm64   bookworm-backports  arch=arm64
b510  5.10.0-*-amd64       linux-image-5.10.0-*-amd64       linux-headers-5.10.0-*-amd64       bullseye
s72   7.2.*+deb14-amd64    linux-binary-7.2.*+deb14-amd64   linux-headers-7.2.*+deb14-amd64    sid        manual
CONF
# a fake `apt-cache pkgnames PREFIX`: the names that start with PREFIX in the
# archive of the apt state APT_CONFIG names ($tmp/archive.<dir> for a
# private state under $RL2_CACHE/apt/<dir>/, else the system's $tmp/archive)
cat >"$tmp/pkgnames" <<FAKE
#!/bin/sh
a=$tmp/archive
case \${APT_CONFIG:-} in $RL2_CACHE/apt/*/apt.conf) a=\${APT_CONFIG%/apt.conf}; a=$tmp/archive.\${a##*/} ;; esac
while read -r n; do case \$n in "\$1"*) echo "\$n" ;; esac; done <"\$a"
FAKE
chmod +x "$tmp/pkgnames"
# the private states exist already (no apt-get update in a test)
for d in bullseye sid bookworm bookworm-arm64; do
	mkdir -p "$RL2_CACHE/apt/$d/lists"
	: >"$RL2_CACHE/apt/$d/lists/fake_Packages"
	: >"$RL2_CACHE/apt/$d/apt.conf"
	bash -c '. "$1/../../scripts/lib.sh"; apt_sources "$2"' _ "$here" "${d%-*}" \
		>"$RL2_CACHE/apt/$d/sources.list"
done
cat >"$tmp/archive.bullseye" <<'ARCHIVE'
linux-image-5.10.0-9-amd64
linux-headers-5.10.0-9-amd64
linux-image-5.10.0-46-amd64
linux-headers-5.10.0-46-amd64
linux-image-5.10.0-47-rt-amd64
linux-headers-5.10.0-47-rt-amd64
ARCHIVE
cat >"$tmp/archive.sid" <<'ARCHIVE'
linux-image-7.2.13+deb14-amd64
linux-binary-7.2.9+deb14-amd64
linux-headers-7.2.9+deb14-amd64
linux-binary-7.2.13+deb14-amd64
linux-headers-7.2.13+deb14-amd64
linux-binary-unsigned-7.2.14+deb14-amd64
linux-binary-7.2.15+deb14-cloud-amd64
linux-headers-7.2.15+deb14-cloud-amd64
ARCHIVE
# the system's: nothing may read it (decoys newer than every private one)
cat >"$tmp/archive" <<'ARCHIVE'
linux-image-6.1.0-99-amd64
linux-headers-6.1.0-99-amd64
linux-image-6.12.199+deb12-amd64
linux-headers-6.12.199+deb12-amd64
linux-image-6.12.199+deb12-arm64
linux-headers-6.12.199+deb12-arm64
linux-image-5.10.0-99-amd64
linux-headers-5.10.0-99-amd64
linux-binary-7.2.99+deb14-amd64
linux-headers-7.2.99+deb14-amd64
ARCHIVE
cat >"$tmp/archive.bookworm" <<'ARCHIVE'
linux-image-6.1.0-9-amd64
linux-headers-6.1.0-9-amd64
linux-image-6.1.0-10-amd64
linux-headers-6.1.0-10-amd64
linux-image-6.1.0-57-amd64
linux-headers-6.1.0-57-amd64
linux-image-6.1.0-58-amd64
linux-image-6.1.0-59-rt-amd64
linux-headers-6.1.0-59-rt-amd64
linux-image-6.1.0-60-cloud-amd64
linux-image-6.1.0-61-amd64-dbg
linux-image-6.1.0-62-amd64-unsigned
linux-image-6.12.95+deb12-amd64
linux-headers-6.12.95+deb12-amd64
linux-image-6.12.118+deb12-amd64
linux-headers-6.12.118+deb12-amd64
ARCHIVE
# amd64 + arm64
{ cat "$tmp/archive.bookworm"; cat <<'ARCHIVE'
linux-image-6.12.118+deb12-arm64
linux-headers-6.12.118+deb12-arm64
linux-image-6.12.119+deb12-arm64-16k
linux-headers-6.12.119+deb12-arm64-16k
ARCHIVE
} >"$tmp/archive.bookworm-arm64"
fail=0
field() { bash -c '. "$1/../../scripts/lib.sh"; kernel_field "$2" "$3"' _ "$here" "$1" "$2"; }
# expect DESCRIPTION WANT ALIAS COLUMN
expect() {
	local got
	got=$(field "$3" "$4" 2>"$tmp/err") || got="error: $(cat "$tmp/err")"
	if [[ $got == "$2" ]]; then
		echo "ok - $1: $got"
	else
		echo "not ok - $1: wanted '$2', got '$got'"
		fail=1
	fi
}
# refused DESCRIPTION ALIAS MESSAGE
refused() {
	local got
	if got=$(field "$2" release 2>&1); then
		echo "not ok - $1: resolved to '$got'"
		fail=1
	elif [[ $got == *"$3"* ]]; then
		echo "ok - $1: one clear line"
	else
		echo "not ok - $1: got '$got'"
		fail=1
	fi
}
expect "newest ABI by version, variants ignored, -58 has no headers" 6.1.0-57-amd64 s61 release
expect "the image of the same ABI" linux-image-6.1.0-57-amd64 s61 image
expect "the headers of the same ABI" linux-headers-6.1.0-57-amd64 s61 headers
expect "6.12.118 > 6.12.95 (version order, not string order)" 6.12.118+deb12-amd64 s612 release
expect "an exact pin passes through" 6.1.0-9-amd64 pin release
expect "the target is not touched" bookworm-security s61 target
expect "an arch=arm64 row: its own names, -16k ignored" 6.12.118+deb12-arm64 a64 release
arch() { bash -c '. "$1/../../scripts/lib.sh"; echo "$(kernel_arch "$2") $(kernel_karch "$2")"' _ "$here" "$1"; }
for a in "s61:amd64 x86" "a64:arm64 arm64"; do
	if [[ $(arch "${a%%:*}") == "${a#*:}" ]]; then
		echo "ok - ${a%%:*}: Debian and kbuild architecture ${a#*:}"
	else
		echo "not ok - ${a%%:*}: wanted '${a#*:}', got '$(arch "${a%%:*}")'"
		fail=1
	fi
done
expect "bullseye: its private state's index, not the system's" 5.10.0-46-amd64 b510 release
expect "bullseye: the headers of that ABI" linux-headers-5.10.0-46-amd64 b510 headers
expect "sid: its private state's index, not the system's" 7.2.13+deb14-amd64 s72 release
expect "sid: the vmlinuz package, not -unsigned or -cloud" linux-binary-7.2.13+deb14-amd64 s72 image
expect "the flags are not touched" manual s72 flags

: >"$tmp/archive.bookworm"	# no index (a fresh machine before apt-get update)
mkdir -p "$RL2_CACHE/kernels/6.1.0-55-amd64" "$RL2_CACHE/kernels/6.1.0-7-amd64"
expect "offline: the newest cached release" 6.1.0-55-amd64 s61 release
rm -rf "${RL2_CACHE:?}/kernels/"*
refused "nothing to resolve" s61 "no linux-image-6.1.0-*-amd64 with its linux-headers-6.1.0-*-amd64 in the archive index"
refused "a half series row" bad "a series needs a * in release, image and headers"
exit $fail
