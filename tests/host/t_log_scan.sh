#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The guest's kernel-log scan (tests/qemu/init.sh, BAD and dmesg_bad) against
# the report headers of every detector: the stock kernels' WARN/BUG/Oops and
# the debug kernel's KASAN, KFENCE, lockdep, DEBUG_ATOMIC_SLEEP, UBSAN and
# DEBUG_OBJECTS (as 6.12 prints them), and a clean log must stay clean.  The
# scan is run as the guest runs it: the dmesg_bad function of init.sh, with
# busybox awk.  tests/host/t_vm_detectors.sh shows the real reports.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
init=$here/../qemu/init.sh
busybox=${BUSYBOX:-/bin/busybox}
[[ -x $busybox ]] || { echo "t_log_scan: skipped: no $busybox"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The scan of init.sh, lifted out unchanged: its settings and dmesg_bad(),
# with dmesg_since reading a file instead of the kernel.
{
	sed -n -e '/^MARK=/p' -e '/^BAD=/p' -e '/^OOM_BEGIN=/p' -e '/^OOM_END=/p' "$init"
	# shellcheck disable=SC2016 # expanded by the scan, not here
	echo 'dmesg_since() { cat "$LOG"; }'
	sed -n '/^dmesg_bad() {/,/^}/p' "$init"
	echo 'dmesg_bad'
} >"$tmp/scan.sh"
if ! grep -q '^BAD=' "$tmp/scan.sh" || ! grep -q '^dmesg_bad() {' "$tmp/scan.sh"; then
	echo "not ok - cannot find BAD and dmesg_bad() in $init"
	exit 1
fi
scan() { LOG=$1 "$busybox" sh "$tmp/scan.sh"; }

passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
nok() { echo "not ok - $*"; failed=$((failed + 1)); }

while IFS= read -r line; do
	[[ -z $line || $line == \#* ]] && continue
	printf '%s\n' "$line" >"$tmp/log"
	if [[ -n $(scan "$tmp/log") ]]; then ok "caught: $line"; else nok "missed: $line"; fi
done <<'EOF_BAD'
# stock kernels
[   12.3] WARNING: CPU: 1 PID: 77 at module/kcall.c:120 rl2_stub+0x1/0x2 [robust_list2]
[   12.3] BUG: kernel NULL pointer dereference, address: 0000000000000008
[   12.3] Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] PREEMPT SMP
[   12.3] list_del corruption, ffff888003a1c040->next is LIST_POISON1 (dead000000000100)
[   12.3] list_add corruption. prev->next should be next (ffff888003a1c040), but was 0000000000000000.
[   12.3] WARNING: CPU: 0 PID: 300 at mm/slab_common.c:529 kmem_cache_destroy+0x1b4/0x1c0
[   12.3] BUG rl2_task (Tainted: G           O      ): Objects remaining in rl2_task on __kmem_cache_shutdown()
[   12.3] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [t_stress:123]
[   12.3] INFO: task t_fuse:201 blocked for more than 5 seconds.
[   12.3] Call Trace:
# the debug kernel (make check-debug)
[   12.3] BUG: KASAN: slab-out-of-bounds in rl2_walk+0x12/0x80 [robust_list2]
[   12.3] BUG: KASAN: use-after-free in rl2_task_put+0x2a/0x60 [robust_list2]
[   12.3] BUG: KFENCE: use-after-free read in rl2_walk+0x12/0x80 [robust_list2]
[   12.3] BUG: KFENCE: out-of-bounds write in rl2_slot_set+0x1/0x2 [robust_list2]
[   12.3] WARNING: possible circular locking dependency detected
[   12.3] WARNING: inconsistent lock state
[   12.3] WARNING: possible recursive locking detected
[   12.3] WARNING: suspicious RCU usage
[   12.3] WARNING: lock held when returning to user space!
[   12.3] BUG: sleeping function called from invalid context at mm/slub.c:4119
[   12.3] BUG: scheduling while atomic: t_exit_walk/88/0x00000002
[   12.3] UBSAN: array-index-out-of-bounds in module/walk.c:210:14
[   12.3] UBSAN: shift-out-of-bounds in module/registry.c:40:9
[   12.3] ODEBUG: free active (active state 0) object: ffff888004b2a000 object type: rcu_head hint: 0x0
[   12.3] unreferenced object 0xffff888003a1c040 (size 112): memory leak
EOF_BAD

# A clean log, with the lines the harness itself and a passing run write.
cat >"$tmp/log" <<'EOF_GOOD'
[    9.1] robust_list2-harness: start
[    9.5] robust_list2: loaded: ABI 2, walk budget 1048576 entries per exit
[   10.2] Freeing unused kernel image (initmem) memory: 2048K
[   11.0] kfence: initialized - using 2097152 bytes for 255 objects at 0x(____ptrval____)-0x(____ptrval____)
[   11.4] fuse: init (API version 7.41)
[   12.0] robust_list2: unloaded
EOF_GOOD
if [[ -z $(scan "$tmp/log") ]]; then ok "a clean log stays clean"; else nok "a clean log is called dirty: $(scan "$tmp/log")"; fi

# The expected OOM kill: only its Call Trace is excused, not a WARNING in it.
printf '%s\n' '[1] robust_list2-harness: expected OOM begin' '[2] Call Trace:' \
	'[3] robust_list2-harness: expected OOM end' >"$tmp/log"
if [[ -z $(scan "$tmp/log") ]]; then ok "the expected OOM's Call Trace is excused"; else nok "the expected OOM's Call Trace is not excused"; fi
printf '%s\n' '[1] robust_list2-harness: expected OOM begin' '[2] BUG: KASAN: use-after-free in x' \
	'[3] robust_list2-harness: expected OOM end' >"$tmp/log"
if [[ -n $(scan "$tmp/log") ]]; then ok "a KASAN report inside the OOM window is caught"; else nok "a KASAN report inside the OOM window is missed"; fi

# The KCSAN kernel (6.12-kcsan, booted with panic_on_warn=0): a data-race
# report that names the module fails the run; one inside the kernel is
# excused and its header listed for the host; a WARN still fails.
# (piped into grep without -q: under pipefail, a grep that exits at its
# first match can SIGPIPE the scan and fail the pipe, now and then)
kscan() { KCSAN=1 KCSAN_OUTSIDE=$tmp/outside scan "$1"; }
kcsan_report() {	# kcsan_report FUNCS FRAME...: one report, as 6.12 prints it
	local f=$1
	shift
	echo '[20.1] =================================================================='
	echo "[20.1] BUG: KCSAN: data-race in $f"
	echo '[20.1] '
	echo '[20.1] read-write to 0xffffffffc0012340 of 8 bytes by task 123 on cpu 1:'
	printf '[20.1]  %s\n' "$@"
	echo '[20.1] '
	echo '[20.1] Reported by Kernel Concurrency Sanitizer on:'
	echo '[20.1] CPU: 1 UID: 0 PID: 123 Comm: rl2fz-exec Not tainted 6.12.118-rl2kcsan #1'
	echo '[20.1] =================================================================='
}
rm -f "$tmp/outside"
kcsan_report 'process_one_work / worker_thread' 'process_one_work+0x3e2/0x8a0' \
	'worker_thread+0x35d/0x540' >"$tmp/log"
kcsan_report 'rl2_fi_cov_start [robust_list2] / rl2_fi_cov_start [robust_list2]' \
	'rl2_fi_cov_start+0x2a/0x80 [robust_list2]' 'rl2_ioctl+0x1c/0x60 [robust_list2]' \
	'__x64_sys_ioctl+0xb7/0xf0' >"$tmp/ours"
kcsan_report 'futex_wake / futex_wait_setup' 'futex_wake+0x91/0x2a0' \
	'rl2_wake+0x44/0xa0 [robust_list2]' 'rl2_walk_list+0x3f1/0x720 [robust_list2]' >"$tmp/deep"
if [[ -z $(kscan "$tmp/log") ]] && grep -q 'BUG: KCSAN: data-race in process_one_work / worker_thread' "$tmp/outside" 2>/dev/null; then
	ok "a KCSAN report inside the kernel is excused and listed"
else
	nok "a KCSAN report inside the kernel: scan '$(kscan "$tmp/log")', listed '$(cat "$tmp/outside" 2>/dev/null)'"
fi
if kscan "$tmp/ours" | grep 'BUG: KCSAN: data-race in rl2_fi_cov_start' >/dev/null; then
	ok "a KCSAN report in the module is caught"
else
	nok "a KCSAN report in the module is missed"
fi
if kscan "$tmp/deep" | grep 'BUG: KCSAN: data-race in futex_wake' >/dev/null; then
	ok "a KCSAN report with the module's frames below the race is caught"
else
	nok "a KCSAN report with the module's frames below the race is missed"
fi
# rhashtable's code, out of line in the module's rl2_rht_* on KCSAN
# kernels (module/registry.c): its races are the kernel's, also when a
# kernel function of rhashtable races above it; ours below them still count
rm -f "$tmp/outside"
{
	kcsan_report 'rl2_rht_find_or_insert [robust_list2] / rl2_rht_remove [robust_list2]' \
		'rl2_rht_find_or_insert+0x5c/0x1f0 [robust_list2]' \
		'rl2_slot_set_based+0x1dc/0x5c0 [robust_list2]' '__x64_sys_ioctl+0xca/0x100'
	kcsan_report 'rhashtable_insert_slow / rht_deferred_worker' \
		'rhashtable_insert_slow+0x2aa/0x9f0' 'rl2_rht_find_or_insert+0x1c0/0x1f0 [robust_list2]' \
		'rl2_slot_set_based+0x1dc/0x5c0 [robust_list2]'
} >"$tmp/rht"
if [[ -z $(kscan "$tmp/rht") ]] && [[ $(grep -c 'BUG: KCSAN' "$tmp/outside" 2>/dev/null) == 2 ]]; then
	ok "a KCSAN report inside rhashtable's code (rl2_rht_*) is excused and listed"
else
	nok "a KCSAN report inside rl2_rht_*: scan '$(kscan "$tmp/rht")', listed '$(cat "$tmp/outside" 2>/dev/null)'"
fi
kcsan_report 'rl2_slot_get [robust_list2] / rl2_rht_remove [robust_list2]' \
	'rl2_slot_get+0x44/0x120 [robust_list2]' 'rl2_ioctl_get+0x80/0x200 [robust_list2]' >"$tmp/half"
if kscan "$tmp/half" | grep 'BUG: KCSAN: data-race in rl2_slot_get' >/dev/null; then
	ok "a KCSAN report of ours racing with rl2_rht_* is caught"
else
	nok "a KCSAN report of ours racing with rl2_rht_* is missed"
fi
cat "$tmp/log" >"$tmp/both"
echo '[21.0] WARNING: CPU: 1 PID: 77 at kernel/futex/core.c:1101 futex_exit_release+0x5d/0x70' >>"$tmp/both"
if kscan "$tmp/both" | grep '^\[21.0\] WARNING: CPU' >/dev/null; then
	ok "a WARN after an excused KCSAN report is caught"
else
	nok "a WARN after an excused KCSAN report is missed"
fi
printf '%s\n' '[12.3] BUG: KCSAN: data-race in process_one_work / worker_thread' >"$tmp/log"
if [[ -n $(scan "$tmp/log") ]]; then ok "a KCSAN header on a kernel without KCSAN is caught"; else nok "a KCSAN header on a kernel without KCSAN is missed"; fi

echo "t_log_scan: $passed passed, $failed failed"
((failed == 0))
