#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Allocation failure on the verbs path.  On a kernel with fault injection
# (the debug lane's, Documentation/debug.rst), verbs_hold -n NTH opens the
# device and creates one object of every type (PD, MR, CQs, SRQ, RC, UC,
# UD and SRQ QPs, AH, receives queued, rings mapped) with its NTH slab
# allocation from ibv_open_device on failing (failslab through
# /proc/thread-self/fail-nth: only that process, every allocation flag,
# ib_core's and ib_uverbs' allocations for it as well as the module's).
# One run without a failure counts the allocations; NTH then sweeps them
# at MROCE_T_FAILSLAB_RUNS (default 24) points spread over the count.
# Each run must end cleanly: "ready" (the failure was absorbed) or one step
# reported failed by the program, never killed by a signal of its own or
# hung; the kernel log must hold no report (run.sh fails the run on one,
# kmemleak's included); afterwards the module's object counters, the rdma
# resource counts and the ring buffers are back to their baseline and the
# device deletes.  Page allocations (rings, pinned pages) are not swept:
# failing those fails the process's own page faults first.
source "$(dirname "$0")/../lib.sh"

FS=/sys/kernel/debug/failslab
RUNS=${MROCE_T_FAILSLAB_RUNS:-24}

[ -d $FS ] ||
	ksft_skip_all "no $FS (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS: the debug lane's kernel)"
[ -e /proc/thread-self/fail-nth ] || ksft_skip_all "no /proc/thread-self/fail-nth"

verbs_prologue
dev=f$$x
verbs_one_dev "$dev"
gid=$VERBS_GID

objects() { cat "/sys/class/infiniband/$dev/metaroce_objects"; }
resources() { rdma resource show "$dev" 2>/dev/null | sed 's/^[0-9]*: //'; }
rings() { grep -c 'mroce_kring_alloc' /proc/vmallocinfo; }
state() { echo "objects: $(objects) | rdma: $(resources) | rings: $(rings)"; }
base=$(state)
echo "# baseline $base"
same_as_base() { [ "$(state)" = "$base" ]; }

# failslab skips allocations that may sleep unless told otherwise; fail-nth
# works whatever the probability (0: nothing else fails).
old_wait=$(cat $FS/ignore-gfp-wait)
defer "echo $old_wait >$FS/ignore-gfp-wait"
echo N >$FS/ignore-gfp-wait
echo 0 >$FS/verbose

out=$(mktemp)
defer rm -f "$out"
# run NTH: one verbs_hold -n NTH; sets $result to "ready LEFT",
# "failed STEP" or "died ...".
run() {
	local pid
	"$SUITE_BIN/verbs_hold" -n "$1" "$dev" "$gid" >"$out" 2>&1 &
	pid=$!
	if busywait 60000 sh -c "grep -q 'ready\|failed' $out || ! kill -0 $pid 2>/dev/null" &&
	   grep -q '^ready' "$out"; then
		kill -9 "$pid"
		wait "$pid" 2>/dev/null
		result="ready $(sed -n 's/^fail-nth left //p' "$out")"
		return
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		wait "$pid"
		local rc=$?
		if [ "$rc" -eq 1 ] && grep -q 'verbs_hold: .* failed' "$out"; then
			result="failed $(grep -m1 -o 'verbs_hold: .* failed' "$out" |
					sed 's/^verbs_hold: //; s/ failed$//')"
			return
		fi
		result="died: exit $rc, $(head -c 200 "$out" | tr '\n' ' ')"
		return
	fi
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	result="died: no ready or failure in 60 s"
}

run 1000000
total=$((1000000 - ${result#ready }))
if [[ $result != ready* ]] || [ "$total" -le 0 ]; then
	t_fail "a run without a failure counts its allocations ($result)"
	t_done
fi
t_pass "a full creation makes $total slab allocations from ibv_open_device"

ready=0 failed=0 died=0 steps=
for i in $(seq 0 $((RUNS - 1))); do
	# Spread over 1..total, each point somewhere in its stride.
	nth=$((1 + i * total / RUNS + RANDOM % (total / RUNS + 1)))
	[ "$nth" -gt "$total" ] && nth=$total
	run "$nth"
	case $result in
	ready*) ready=$((ready + 1)) ;;
	failed*) failed=$((failed + 1)) steps+="${result#failed }@$nth " ;;
	*) died=$((died + 1)); echo "# nth $nth: $result" ;;
	esac
done
echo "# $RUNS runs: $ready absorbed the failure, $failed failed a step ($steps), $died otherwise"
t_check "every run ends ready or with a failed step" [ "$died" -eq 0 ]
t_check "the injected failures made steps fail" [ "$failed" -gt 0 ]
t_check "objects, rdma resources and rings back to baseline" busywait 20000 same_as_base
echo "# after $(state)"
t_check "rdma link del $dev with nothing left" rdma link del "$dev"
t_done
