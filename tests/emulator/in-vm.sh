#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run inside the test VM by scripts/check-emulator:
#   in-vm.sh NAME:QEMU:GUEST...
# runs each GUEST under its QEMU, between an "emulator: NAME begin" line and
# an "emulator: NAME exit N" line; the host judges the guest's own lines.
for r in "$@"; do
	name=${r%%:*} rest=${r#*:}
	echo "emulator: $name begin"
	"${rest%%:*}" "${rest#*:}"
	echo "emulator: $name exit $?"
done
exit 0
