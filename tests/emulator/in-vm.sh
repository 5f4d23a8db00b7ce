#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run inside the test VM by scripts/check-emulator:
#   in-vm.sh PATCHED_QEMU DEBIAN_QEMU GUEST
# runs GUEST under both emulators and prints one "emulator: NAME exit N" line
# after each; the host judges the guest's own lines.
for q in "$1:patched" "$2:debian"; do
	"${q%:*}" "$3"
	echo "emulator: ${q##*:} exit $?"
done
exit 0
