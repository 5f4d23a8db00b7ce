# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers sourced by scripts/*: paths, the kernels.conf table, logging, and
# the VM harness of tests/qemu/.  Sourcing scripts already run with `set -euo pipefail`.

RL2_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RL2_CACHE=${RL2_CACHE:-$HOME/.cache/robust_list2}	# downloads: never inside the repo
RL2_BUILD=${RL2_BUILD:-$RL2_ROOT/build}			# per-kernel build output
RL2_KERNELS=${RL2_KERNELS:-$RL2_ROOT/scripts/kernels.conf}
RL2_PROG=${0##*/}

msg() { printf '%s: %s\n' "$RL2_PROG" "$*" >&2; }
die() { msg "$*"; exit 1; }

# kernel_field ALIAS COLUMN: one field of ALIAS's row in kernels.conf.
# COLUMN is release, image, headers, target or flags (flags may be empty).
kernel_field() {
	local alias=$1 col
	case $2 in
	release) col=2 ;; image) col=3 ;; headers) col=4 ;; target) col=5 ;; flags) col=6 ;;
	*) die "kernel_field: unknown column '$2'" ;;
	esac
	awk -v a="$alias" -v c="$col" '!/^[[:space:]]*(#|$)/ && $1 == a { print $c; f = 1; exit }
		END { exit !f }' "$RL2_KERNELS" ||
		die "unknown kernel '$alias' (known: $(all_kernels | paste -sd ' '); see $RL2_KERNELS)"
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
