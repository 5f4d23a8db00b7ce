#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The library as a package: `make install-lib` into a DESTDIR, then a
# consumer built only with what pkg-config says, against that staged copy,
# and run on the host (no device here, so the calls must answer ENOSYS).
# Also checks the soname links, the man pages and the symbol versions.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"

robust_version() { sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$RL2_ROOT/dkms.conf"; }
stage=$RL2_BUILD/install
rm -rf "$stage"
make -s -C "$RL2_ROOT" install-lib PREFIX=/usr DESTDIR="$stage" >/dev/null

lib=$stage/usr/lib
for f in librobust_list2.so.0 librobust_list2.so librobust_list2.a \
	pkgconfig/robust_list2.pc; do
	[[ -e $lib/$f ]] || die "install-lib did not install $f"
done
[[ $(readlink "$lib/librobust_list2.so") == librobust_list2.so.0 ]] ||
	die "librobust_list2.so does not point to the soname"
objdump -p "$lib/librobust_list2.so.0" | grep -q 'SONAME *librobust_list2.so.0' ||
	die "wrong SONAME"
nm -D --defined-only "$lib/librobust_list2.so.0" | grep -q ' set_robust_list2@@ROBUST_LIST2_0.1$' ||
	die "set_robust_list2 is not versioned ROBUST_LIST2_0.1"
nm -D --defined-only "$lib/librobust_list2.so.0" | grep -q ' robust_list2_slot@@ROBUST_LIST2_0.2$' ||
	die "robust_list2_slot is not versioned ROBUST_LIST2_0.2"
for h in robust_list2.h linux/robust_list2.h; do
	[[ -f $stage/usr/include/$h ]] || die "install-lib did not install <$h>"
done
for m in "$RL2_ROOT"/libshim/man/*.3; do
	[[ -f $stage/usr/share/man/man3/${m##*/} ]] || die "man page ${m##*/} not installed"
done

cat >"$stage/consumer.c" <<'EOC'
#include <errno.h>
#include <stdio.h>
#include <robust_list2.h>

int main(void)
{
	void *head;

	if (set_robust_list2(NULL, 0, FUTEX_ROBUST_LIST_CMD_LIST_LIMIT, 0) != -1 || errno != ENOSYS)
		return 1;
	if (get_robust_list2(0, &head, 0, 0) != -1 || errno != ENOSYS)
		return 2;
	printf("consumer: %s, ENOSYS without the device\n", robust_list2_version());
	return 0;
}
EOC
# pkg-config drops -I/usr/include and -L/usr/lib unless told otherwise;
# with a sysroot those are exactly the staged directories we need.
export PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$stage
export PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
flags=$(pkg-config --cflags --libs robust_list2)
# shellcheck disable=SC2086
cc -Wall -Wextra -Werror -o "$stage/consumer" "$stage/consumer.c" $flags
[[ -e /dev/robust_list2 ]] && die "this host has /dev/robust_list2; cannot check ENOSYS"
LD_LIBRARY_PATH=$lib "$stage/consumer"
ldd_out=$(LD_LIBRARY_PATH=$lib ldd "$stage/consumer")
grep -q "librobust_list2.so.0 => $lib" <<<"$ldd_out" || die "consumer not linked to the staged library"
# Loading at boot: the modules-load.d entry both module installs write.
make -s -C "$RL2_ROOT" modules-load DESTDIR="$stage" >/dev/null
[[ $(cat "$stage/etc/modules-load.d/robust_list2.conf") == robust_list2 ]] ||
	die "modules-load.d/robust_list2.conf does not name the module"

# The command-line tool: installed with its man page, and on this host
# (no module) it must say so with exit status 3.
make -s -C "$RL2_ROOT" install-tools PREFIX=/usr DESTDIR="$stage" >/dev/null
[[ -f $stage/usr/share/man/man1/robust-list2.1 ]] || die "robust-list2.1 not installed"
version=$("$stage/usr/bin/robust-list2" --version)
[[ $version == *"$(robust_version)"* ]] || die "robust-list2 --version says '$version'"
rc=0
err=$("$stage/usr/bin/robust-list2" status 2>&1 >/dev/null) || rc=$?
((rc == 3)) || die "robust-list2 status without the module exited $rc, not 3"
[[ $err == *"is not loaded (try: robust-list2 load)"* ]] ||
	die "robust-list2 status without the module gives no load hint: '$err'"
echo "install: DESTDIR install, pkg-config ($flags), the consumer and robust-list2: ok"
