#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `make check-debug`: the selftests on a kernel with its bug detectors on
# (KASAN, lockdep, DEBUG_ATOMIC_SLEEP, debugobjects, kmemleak, UBSAN, ...).
# See Documentation/debug.rst.
#
#   tools/debugkernel/lane.sh [--plant-only | --tests-only]
#
#   1. build (or reuse) the debug kernel and metaroce.ko against it
#      (tools/debugkernel/build.sh), then the provider and the selftests'
#      C programs on the host;
#   2. one boot loads metaroce.ko without a planted bug, then with each
#      planted bug (plant_bug=...): the load without one must leave a clean
#      log, each bug must leave its detector's report, tools/vm/splat.sh (the
#      runner's own pattern) must find it, and tools/vm/run.sh must fail the
#      run.  This proves every detector armed and the runner failing on it;
#   3. one boot runs the selftests (DEBUG_LANE_TESTS, default the subset
#      below; "all" for every program), which must pass with no report.
#
# DEBUG_LANE_DEADLINE (epoch seconds, set by .ci/run): what does not fit
# before it is skipped with the reason, never failed for time.
#
# TAP output; logs in build/vm/debug-plant and build/vm/debug-selftests.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUN=$ROOT/tools/vm/run.sh
SPLAT=$ROOT/tools/vm/splat.sh
GUEST=$ROOT/tools/debugkernel/guest.sh
VMDIR=$ROOT/build/vm

# What fits the lane's time budget under KASAN + lockdep in a TCG guest
# (Documentation/debug.rst has the figures): module life, links, GIDs,
# teardown, error paths; data path between MetaRoCE devices and against
# rdma_rxe, selective repeat under loss, reordering and duplication (not
# sack.sh's wider loss matrix, MROCE_T_SACK_MATRIX=0); the
# packet fuzzer under checked traffic (20000 IPv4 and 10000 IPv6 packets
# here, MROCE_T_FUZZ_PACKETS); every verbs object, slab allocation failure
# on the verbs path, dma-buf regions (vgem); then the fault matrix under
# traffic (faults.sh), the rxe peer removed (peer_gone_rxe.sh) and
# allocation failure on the packet path (failpkt.sh), last so that under
# CI's deadline they are what is skipped first.
DEFAULT_TESTS="link.sh gid.sh teardown.sh errors.sh dpcheck.sh dpneg.sh dpcheck_rxe.sh sack.sh ud_srq_pingpong.sh pktfuzz.sh verbs_objects.sh limits.sh failslab.sh dmabuf.sh faults.sh peer_gone_rxe.sh failpkt.sh"
TESTS=${DEBUG_LANE_TESTS:-$DEFAULT_TESTS}
TIMEOUT=${DEBUG_LANE_TIMEOUT:-3600}
# .ci/run sets a deadline (epoch seconds) from CI's time limit: see
# "Time budget and CI" in Documentation/debug.rst.  Under a deadline a step
# that does not fit is skipped, and says why; only a detector's report or a
# failing test fails the lane.
DEADLINE=${DEBUG_LANE_DEADLINE:-}

# Seconds each step took on the 2-core build machine with other VMs
# running beside it (upper bounds: Documentation/debug.rst).  Under a
# deadline a step starts only when its figure fits before it, and is
# stopped at it.  PLANT_SECS: the planted-bug boot; BOOT_SECS: a debug boot
# up to the guest script; TAIL_SECS: the guest's end (kmemleak scans,
# dmesg, power off); TEST_SECS: each program in the guest.
PLANT_SECS=370
BOOT_SECS=270
TAIL_SECS=90
TEST_SECS=${DEBUG_LANE_TEST_SECS:-"link.sh=430 gid.sh=150 teardown.sh=470 errors.sh=125 ud_srq_pingpong.sh=185 dpcheck.sh=90 dpcheck_rxe.sh=110 dpneg.sh=80 sack.sh=650 faults.sh=350 pktfuzz.sh=350 verbs_objects.sh=75 limits.sh=70 failslab.sh=230 dmabuf.sh=160 peer_gone_rxe.sh=180 failpkt.sh=450"}

# Each planted bug and the report its detector prints (the first line of it).
# lockdep switches itself off for good after its own report and after any
# taint that makes it unreliable, which a KASAN report is (TAINT_BAD_PAGE):
# lock_order comes first, the KASAN bugs last.
PLANTS=(
	"lock_order|WARNING: possible circular locking dependency detected"
	"sleep_in_atomic|BUG: sleeping function called from invalid context"
	"leak|unreferenced object"
	"ubsan|UBSAN: shift-out-of-bounds"
	"odebug|ODEBUG: free active"
	"uaf|BUG: KASAN: (slab-)?use-after-free"
	"double_free|BUG: KASAN: double-free"
)

n=0 failed=0

# budget MAX [RESERVE]: seconds a step may take: MAX, or less when the
# deadline, less RESERVE seconds kept for what follows, is nearer.
budget() {
	local max=$1 left
	[ -n "$DEADLINE" ] || { echo "$max"; return; }
	left=$((DEADLINE - ${2:-0} - $(date +%s)))
	[ "$left" -lt 1 ] && left=1
	[ "$left" -lt "$max" ] && max=$left
	echo "$max"
}

# left: seconds to the deadline (a large number without one).
left() {
	if [ -n "$DEADLINE" ]; then
		echo $((DEADLINE - $(date +%s)))
	else
		echo 999999
	fi
}

ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}
nok() {
	n=$((n + 1))
	failed=1
	echo "not ok $n - $*"
}
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

run_plant=1 run_tests=1
case "${1:-}" in
--plant-only) run_tests=0 ;;
--tests-only) run_plant=0 ;;
"") ;;
*) echo "usage: lane.sh [--plant-only | --tests-only]" >&2; exit 2 ;;
esac

mkdir -p "$VMDIR"
echo "TAP version 13"
# A cold build needs about 3 GB (the source 1.5, objects 0.7, the ccache);
# under a deadline (CI) a machine without that room skips the lane, saying
# why, rather than failing half way through the build.
cache=${DEBUG_KERNEL_CACHE:-$ROOT/build/debugkernel}
free_kb=$(df -Pk "$ROOT" 2>/dev/null | awk 'NR == 2 { print $4 }')
if [ -n "$DEADLINE" ] && [ ! -f "$cache/env" ] &&
   [ "${free_kb:-0}" -lt $((4 * 1024 * 1024)) ]; then
	skip "debug kernel build" "$((${free_kb:-0} / 1024)) MiB free under $ROOT, a cold build needs about 4 GiB; nothing of the lane ran"
	echo "1..$n"
	exit 0
fi
start=$SECONDS
# Under a deadline the build must leave the time for the planted-bug boot.
timeout -k 10 "$(budget 36000 "$PLANT_SECS")" "$ROOT/tools/debugkernel/build.sh" \
	>"$VMDIR/debugkernel-build.log" 2>&1
rc=$?
if [ -n "$DEADLINE" ] && { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; }; then
	skip "debug kernel build" "not finished ${PLANT_SECS}s before the deadline, after $((SECONDS - start))s (the ccache keeps what was built); nothing of the lane ran"
	echo "1..$n"
	exit 0
elif [ "$rc" -ne 0 ]; then
	tail -30 "$VMDIR/debugkernel-build.log" >&2
	nok "debug kernel and metaroce.ko build (see build/vm/debugkernel-build.log)"
	echo "1..$n"
	exit 1
fi
# shellcheck source=/dev/null
. "${DEBUG_KERNEL_CACHE:-$ROOT/build/debugkernel}/env"
ok "debug kernel $DEBUG_KREL and metaroce.ko build ($((SECONDS - start))s)"

# The provider and the selftests' C programs, on the host: the programs
# build what is missing in the guest, which under TCG on this kernel takes
# minutes per program (and what the guest builds is lost with its overlay).
start=$SECONDS
if make -s -C "$ROOT" provider >"$VMDIR/debug-host-build.log" 2>&1 &&
   make -s -C "$ROOT/selftests/verbs" >>"$VMDIR/debug-host-build.log" 2>&1 &&
   make -s -C "$ROOT/selftests/datapath" >>"$VMDIR/debug-host-build.log" 2>&1; then
	ok "provider and selftest programs built on the host ($((SECONDS - start))s)"
else
	tail -20 "$VMDIR/debug-host-build.log" >&2
	nok "provider and selftest programs build (see build/vm/debug-host-build.log)"
	echo "1..$n"
	exit 1
fi

# The guest needs the debug module, and KDIR/KVER of the debug kernel for
# the tests that run make in the guest.
export MROCE_T_DEBUG_MODULE=$DEBUG_MODULE MROCE_T_DEBUG_KMODS=${DEBUG_TEST_KMODS:-} KDIR=$DEBUG_KDIR
# kasan_multi_shot: every KASAN report, not only the first.  no5lvl: QEMU's
# "-cpu max" offers 5-level paging, and one boot of this 6.1 kernel with
# KASAN reported a wild-memory-access on a direct-map address
# (ff11000001072...) in do_raw_spin_lock() from handle_edge_irq(), at 2.9 s,
# interrupting identify_boot_cpu(); another boot did not.  Our reading: the
# CPU feature bits (LA57 among them) are rewritten there, so KASAN briefly
# sees a 4-level address space.  The report taints the kernel, which turns
# lockdep off for the whole run.
VM_ARGS=(--kernel "$DEBUG_KIMAGE" --modules "$DEBUG_MODROOT" --append "kasan_multi_shot no5lvl")

# The kernel log between "mroce-plant: begin BUG" and "... end BUG".
plant_frame() {
	sed -n "/mroce-plant: begin $1\$/,/mroce-plant: end $1\$/p" "$2"
}

check_plants() {
	local dmesg=$VMDIR/debug-plant/dmesg.txt frame=$VMDIR/debug-plant/frame.txt
	local p bug want bugs=()
	for p in "${PLANTS[@]}"; do bugs+=("${p%%|*}"); done
	if [ "$(left)" -lt "$PLANT_SECS" ]; then
		skip "planted-bug boot" "$(left)s left before the deadline, it needs up to ${PLANT_SECS}s"
		return
	fi
	start=$SECONDS
	"$RUN" --name debug-plant --timeout "$(budget "$TIMEOUT")" "${VM_ARGS[@]}" -- \
		"$GUEST" plant "${bugs[@]}" >"$VMDIR/debug-plant.log" 2>&1
	local rc=$?
	if [ -n "$DEADLINE" ] && [ "$rc" -eq 124 ] && [ "$(left)" -le 0 ]; then
		skip "planted-bug boot" "stopped at the deadline after $((SECONDS - start))s (it took ${PLANT_SECS}s when measured)"
		return
	elif [ "$rc" -eq 126 ]; then
		ok "the runner fails a run with planted bugs (run.sh exit 126, $((SECONDS - start))s)"
	else
		nok "the runner fails a run with planted bugs (run.sh exit $rc, want 126; see build/vm/debug-plant.log)"
	fi
	[ -f "$dmesg" ] || { nok "planted-bug run left no dmesg.txt"; return; }

	plant_frame none "$dmesg" >"$frame"
	if ! grep -q 'mroce-plant: end none' "$frame"; then
		nok "metaroce.ko loads and unloads without a planted bug (no frame in the log)"
	elif "$SPLAT" "$frame" >/dev/null; then
		nok "metaroce.ko loads and unloads without a planted bug: the log has a report"
		"$SPLAT" "$frame" | sed 's/^/# /' | head -40
	else
		ok "metaroce.ko loads and unloads with no report when no bug is planted"
	fi

	for p in "${PLANTS[@]}"; do
		bug=${p%%|*} want=${p#*|}
		plant_frame "$bug" "$dmesg" >"$frame"
		if ! grep -q "mroce-plant: end $bug" "$frame"; then
			nok "plant_bug=$bug: no frame in the log (guest died?)"
		elif ! grep -aEq "$want" "$frame"; then
			nok "plant_bug=$bug: no '$want' report"
		elif ! "$SPLAT" "$frame" >/dev/null; then
			nok "plant_bug=$bug: the runner's pattern misses the report"
		else
			ok "plant_bug=$bug: '$want' reported and caught by the runner"
		fi
	done
	rm -f "$frame"
}

check_tests() {
	local sum=$VMDIR/debug-selftests/summary.txt only='' prog least=999999 secs
	[ "$TESTS" = all ] || only=$TESTS
	# Under a deadline the guest starts a program only if its figure fits
	# (selftests/run_guest.sh, MROCE_T_DEADLINE), and stops in time for
	# its own end.
	for prog in $TEST_SECS; do
		secs=${prog#*=} prog=${prog%%=*}
		if [ -z "$only" ] || [[ " $only " == *" $prog "* ]]; then
			[ "$secs" -lt "$least" ] && least=$secs
		fi
	done
	if [ -n "$DEADLINE" ] && [ "$(left)" -lt $((BOOT_SECS + TAIL_SECS + least)) ]; then
		skip "selftests on the debug kernel" "$(left)s left before the deadline: not enough to boot (${BOOT_SECS}s), run one program (${least}s) and end (${TAIL_SECS}s)"
		return
	fi
	start=$SECONDS
	MROCE_T_ONLY=$only MROCE_T_EST=$TEST_SECS \
	MROCE_T_FUZZ_PACKETS=${MROCE_T_FUZZ_PACKETS:-20000} \
	MROCE_T_SACK_MATRIX=${MROCE_T_SACK_MATRIX:-0} \
	MROCE_T_DEADLINE=${DEADLINE:+$((DEADLINE - TAIL_SECS))} \
		"$RUN" --name debug-selftests --timeout "$(budget "$TIMEOUT")" "${VM_ARGS[@]}" -- \
		"$GUEST" tests >"$VMDIR/debug-selftests.log" 2>&1
	local rc=$?
	grep -E '^(ok|not ok) [0-9]+ - ' "$VMDIR/debug-selftests.log" | sed 's/^/# /'
	if [ -n "$DEADLINE" ] && [ "$rc" -eq 124 ] && [ "$(left)" -le 0 ] &&
	   [ ! -f "$VMDIR/debug-selftests/splat.txt" ]; then
		# The guest overran its deadline: no summary, but what ran is above,
		# and run.sh found no report in its log.
		skip "selftests on the debug kernel" "the VM was stopped at the deadline after $((SECONDS - start))s"
		return
	elif [ "$rc" -eq 0 ] && [ -f "$sum" ] && grep -q '^failed 0$' "$sum"; then
		ok "selftests on the debug kernel ($(tr '\n' ' ' <"$sum")in $((SECONDS - start))s): no report"
	else
		nok "selftests on the debug kernel (run.sh exit $rc; see build/vm/debug-selftests.log)"
		grep -A30 'kernel splat' "$VMDIR/debug-selftests.log" | sed 's/^/# /' | head -60
	fi
}

[ "$run_plant" = 1 ] && check_plants
[ "$run_tests" = 1 ] && check_tests
echo "1..$n"
exit $failed
