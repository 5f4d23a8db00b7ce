#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run inside the test VM by scripts/check-emulator:
#   in-vm.sh NAME:PROG[:ARG]...
# runs each PROG with its ARGs (colon-separated, no spaces) between an
# "emulator: NAME begin" line and an "emulator: NAME exit N" line; the host
# judges the guest's own lines.
for r in "$@"; do
	name=${r%%:*}
	cmd=$(echo "${r#*:}" | tr : ' ')
	echo "emulator: $name begin"
	# shellcheck disable=SC2086 # the words of the command
	$cmd
	echo "emulator: $name exit $?"
done
exit 0
