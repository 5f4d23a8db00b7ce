#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The supported-kernel floor is written once, dkms.conf's
# BUILD_EXCLUSIVE_KERNEL_MIN; fail if Kbuild does not hand that to
# module/compat.h, if compat.h states a floor of its own, if the README
# "Supported kernels" section or debian/control's description name another,
# or if a test kernel is below it.  Also: the version has one source (dkms.conf), and the
# Debian packages agree with it, the soname, the version map and the uapi ABI.
set -euo pipefail
cd "$(dirname "$0")/../.."

fail=0
die() { echo "check-consistency: $*" >&2; fail=1; }

dkms_min=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL_MIN="\(.*\)"/\1/p' dkms.conf)
readme_min=$(sed -n 's/^Minimum kernel: \([0-9.]*\).*/\1/p' README.md)

[ -n "$dkms_min" ] || die "dkms.conf has no BUILD_EXCLUSIVE_KERNEL_MIN"
grep -q 'BUILD_EXCLUSIVE_KERNEL_MIN=.*dkms\.conf' Kbuild && grep -q -- '-DRL2_KERNEL_MIN_MAJOR=' Kbuild ||
	die "Kbuild does not pass dkms.conf's BUILD_EXCLUSIVE_KERNEL_MIN as RL2_KERNEL_MIN_*"
grep -q '^#elif LINUX_VERSION_CODE < KERNEL_VERSION(RL2_KERNEL_MIN_MAJOR, RL2_KERNEL_MIN_MINOR, 0)$' module/compat.h ||
	die "module/compat.h does not test the floor Kbuild passes (RL2_KERNEL_MIN_*)"
! grep -n "KERNEL_VERSION(${dkms_min/./, }, 0)" module/*.[ch] >&2 ||
	die "the floor $dkms_min is written in module/ above; it comes from dkms.conf"
[ "$dkms_min" = "$readme_min" ] ||
	die "dkms.conf says $dkms_min, README.md 'Minimum kernel:' says '$readme_min'"
grep -q "Linux $dkms_min and newer" debian/control ||
	die "debian/control's description does not say 'Linux $dkms_min and newer'"

while read -r alias release _; do
	case "$alias" in ''|\#*) continue ;; esac
	lowest=$(printf '%s\n%s\n' "$dkms_min" "${release%%-*}" | sort -V | head -n1)
	[ "$lowest" = "$dkms_min" ] ||
		die "test kernel $alias ($release) is below the floor $dkms_min"
	grep -q "^| $alias " README.md ||
		die "README.md 'Supported kernels' has no row for test kernel $alias"
done < scripts/kernels.conf

version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
if grep -rn --include='*.c' --include='*.h' -E '"[0-9]+\.[0-9]+\.[0-9]+"' module libshim | grep -v '^.*SPDX'; then
	die "a version string is hard-coded above; dkms.conf ($version) is the only source"
fi

# The versions of the packages (debian/): one version, one soname, one ABI.
#  - debian/changelog's upstream version (before the Debian revision) is
#    dkms.conf's PACKAGE_VERSION: DKMS, the module's modinfo, the library
#    and the packages all say the same;
#  - the soname's major (libshim/Makefile SONAME) names the library package
#    (librobust-list2-N, in debian/control and the symbols file);
#  - the symbols file lists exactly the version map's global symbols and
#    node names, each with the version of its node (ROBUST_LIST2_X.Y ->
#    X.Y.0), and no node is newer than the package: a consumer's generated
#    "Depends: librobust-list2-N (>= X.Y.0)" must be satisfiable by it;
#  - robust-list2-dkms provides robust-list2-abi-N, N the uapi
#    ROBUST_LIST2_ABI_VERSION, which the library package recommends.
deb_version=$(sed -n '1s/^robust-list2 (\([^)]*\)).*/\1/p' debian/changelog)
[ "${deb_version%-*}" = "$version" ] ||
	die "debian/changelog's first entry is '$deb_version'; dkms.conf PACKAGE_VERSION is $version (want $version-N)"
soname=$(sed -n 's/^SONAME *:= *\(.*\)/\1/p' libshim/Makefile)
somajor=${soname##*.so.}
libpkg=librobust-list2-$somajor
grep -q "^Package: $libpkg\$" debian/control ||
	die "libshim/Makefile's SONAME is $soname, but debian/control has no package $libpkg"
sym=debian/$libpkg.symbols
if [ ! -f "$sym" ]; then
	die "no $sym for $soname"
else
	[ "$(head -n 1 "$sym")" = "$soname $libpkg #MINVER#" ] ||
		die "$sym: first line is not '$soname $libpkg #MINVER#'"
	# the map's symbols as "name@NODE X.Y.0", and each node's own name
	want=$(awk '
		/^[A-Za-z_0-9.]+ *\{/ { node = $1; sub(/ *\{.*/, "", node); print node "@" node; g = 0; next }
		/global:/ { g = 1; next }
		/local:/ { g = 0; next }
		/^\}/ { g = 0; next }
		g && /;/ { s = $1; sub(/;.*/, "", s); if (s != "") print s "@" node }
	' libshim/librobust_list2.map | awk -F@ '{ v = $2; sub(/^[A-Z0-9_]*_/, "", v); print $0 " " v ".0" }' | sort)
	have=$(sed -n 's/^ \([^ ]*\) \([^ ]*\)$/\1 \2/p' "$sym" | sort)
	[ "$want" = "$have" ] || {
		die "$sym does not list the version map's symbols (libshim/librobust_list2.map):"
		diff <(echo "$want") <(echo "$have") | sed -n 's/^</  map only:/p; s/^>/  symbols only:/p' >&2 || true
	}
	newest=$(printf '%s\n' "$want" | awk '{ print $2 }' | sort -V | tail -n 1)
	[ "$(printf '%s\n%s\n' "$newest" "$version" | sort -V | tail -n 1)" = "$version" ] ||
		die "the version map has a node for $newest, newer than the package version $version"
fi
abi=$(sed -n 's/^#define ROBUST_LIST2_ABI_VERSION[[:space:]]*\([0-9]*\)$/\1/p' uapi/linux/robust_list2.h)
[ -n "$abi" ] || die "no ROBUST_LIST2_ABI_VERSION in uapi/linux/robust_list2.h"
provides=$(sed -n 's/^Provides:.*robust-list2-abi-\([0-9]*\).*/\1/p' debian/control)
[ "$provides" = "$abi" ] ||
	die "debian/control: robust-list2-dkms provides robust-list2-abi-'$provides'; the uapi ABI version is $abi"
grep -q "^Recommends:.*robust-list2-abi-$abi\\b" debian/control ||
	die "debian/control: $libpkg does not recommend robust-list2-abi-$abi"
# the tool's man page names the version it documents
grep -q "^\.TH ROBUST-LIST2 1 [^ ]* \"robust_list2 $version\"" tools/robust-list2.1 ||
	die "tools/robust-list2.1: .TH does not name robust_list2 $version"

[ "$fail" = 0 ] && echo "consistency: floor $dkms_min, version $version (debian $deb_version, $soname, ABI $abi): ok"
exit "$fail"
