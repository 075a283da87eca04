#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Allocation failure on the packet path.  On a kernel with fault injection
# (the debug lane's, Documentation/debug.rst), while mroce_dpcheck moves
# checked RC data between two MetaRoCE devices, atomic slab allocations
# fail (failslab with ignore-gfp-wait: the packet path allocates with
# GFP_ATOMIC, the verbs path mostly with GFP_KERNEL):
#
#  1. task: only in the mroce_dpcheck process (task-filter and its
#     make-it-fail, set once traffic flows and cleared before it ends),
#     which runs the send path of both devices (the QP's task runs in the
#     caller of the send doorbell); 5 % of its atomic allocations;
#  2. system: any atomic slab allocation, softirq included, 1 % until a
#     bounded number of failures, so that the receive path (softirq), the
#     QPs' workers and the network stack fail too (the task filter never
#     fails an allocation in softirq);
#  3. pages: any atomic page allocation (fail_page_alloc, order 0 and up,
#     ignore-gfp-wait), softirq included, 10 % until a bounded number
#     (they are rare: slab refills, skb pages; 1 % gave 31 in 60 s): an
#     atomic kmalloc of the packet path fails when its slab cannot grow.
#     Page allocations that ask for no warning (__GFP_NOWARN) fail
#     without a stack: the sampled ones are the others.
#
# 6.1 has no stack-trace filter on x86_64 (no "only the module's
# allocations"): failslab's task filter and a bounded count are the
# filters.  Each phase injects at most MROCE_T_FAILPKT_TIMES failures
# (default 400) and counts them (failslab's "times" left); stacks of a
# few (rate-limited) show where they struck.  Checks: the failures were
# injected, in the first phase some in MetaRoCE's own code; the traffic completes with every request's data
# verified (a lost packet is resent: retransmits grow), in bounded time;
# no kernel report (the VM runner fails on one); objects back to
# baseline; the module unloads.
source "$(dirname "$0")/../lib.sh"

FS=/sys/kernel/debug/failslab
FP=/sys/kernel/debug/fail_page_alloc
TIMES=${MROCE_T_FAILPKT_TIMES:-400}
DPC=$SUITE_BIN/mroce_dpcheck

[ -d $FS ] && [ -d $FP ] ||
	ksft_skip_all "no $FS or $FP (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, CONFIG_FAULT_INJECTION_DEBUG_FS: the debug lane's kernel)"
verbs_prologue
dp_topo mm || ksft_skip_all "cannot build the mm topology"

objects() {
	cat /sys/class/infiniband/"$1"/metaroce_objects 2>/dev/null | tr '\n' ' '
}
objects_are() {
	[ "$(objects "$1")" = "$2" ]
}
base1=$(objects "$DEV1")
base2=$(objects "$DEV2")

# Restore failslab's and fail_page_alloc's settings at exit.
for d in $FS $FP; do
	for a in probability interval times space verbose \
		verbose_ratelimit_burst verbose_ratelimit_interval_ms \
		task-filter ignore-gfp-wait; do
		defer "echo $(cat $d/$a) >$d/$a"
	done
done
defer "echo $(cat $FP/min-order) >$FP/min-order"
echo 0 >$FP/min-order
fs_set() { # DIR PROBABILITY TASK_FILTER
	echo 0 >$1/probability
	echo 1 >$1/interval
	echo 0 >$1/space
	# A stack for 2 failures every 5 s (the kernel's rate limit): where
	# they struck, sampled (sites()).
	echo 2 >$1/verbose
	echo 2 >$1/verbose_ratelimit_burst
	echo 5000 >$1/verbose_ratelimit_interval_ms
	echo Y >$1/ignore-gfp-wait
	echo "$3" >$1/task-filter
	echo "$TIMES" >$1/times
	echo "$2" >$1/probability
}
fs_off() { # DIR
	echo 0 >$1/probability
}
defer "fs_off $FS"
defer "fs_off $FP"

# sites MARK: the MetaRoCE function each sampled failure struck in (the
# first [metaroce] frame of its stack), from the kernel log after MARK.
sites() {
	dmesg | sed -n "/failpkt: $1\$/,\$p" | awk '
	function done() { n++; if (fn != "") m[fn]++; else other++; inside = 0 }
	/FAULT_INJECTION: forcing a failure/ { if (inside) done(); inside = 1; fn = ""; next }
	inside && fn == "" && /\[metaroce\]/ {
		if (match($0, /[A-Za-z_0-9.]+\+0x/)) fn = substr($0, RSTART, RLENGTH - 3)
	}
	inside && /<\/TASK>/ { done() }
	END { if (inside) done(); printf "%d", n - other
		for (f in m) printf " %s:%d", f, m[f]; printf " elsewhere:%d\n", other }'
}

grown() { # DEV COUNTER FROM BY
	[ $(($(mroce_counter "$1" "$2") - $3)) -ge "$4" ]
}
gone() {
	! kill -0 "$1" 2>/dev/null
}
retransmits() {
	echo $(($(mroce_counter "$DEV1" retransmits) + $(mroce_counter "$DEV2" retransmits)))
}

# phase DESC DIR PROBABILITY TASK_FILTER: mroce_dpcheck until 100 more
# packets after the failures (of fault DIR) are used up (or 60 s), then
# stopped and checked.
phase() {
	local desc=$1 d=$2 p=$3 tf=$4 seed=$RANDOM log pid rx retr left rc t0
	log=$DP_LOGS/failpkt-$seed.log
	rx=$(mroce_counter "$DEV2" rx_packets)
	"$DPC" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 100000000 -s $seed \
		-T 18 >"$log" 2>&1 &
	pid=$!
	busywait 60000 grown "$DEV2" rx_packets "$rx" 200
	retr=$(retransmits)
	t0=$(date +%s)
	echo "failpkt: $seed" >/dev/kmsg
	[ "$tf" = Y ] && echo 1 >/proc/$pid/make-it-fail
	fs_set "$d" "$p" "$tf"
	busywait 60000 sh -c "[ \$(cat $d/times) = 0 ] || ! kill -0 $pid 2>/dev/null"
	left=$(cat $d/times)
	fs_off "$d"
	[ "$tf" = Y ] && echo 0 >/proc/$pid/make-it-fail 2>/dev/null
	rx=$(mroce_counter "$DEV2" rx_packets)
	busywait 60000 sh -c "! kill -0 $pid 2>/dev/null" ||
		busywait 60000 grown "$DEV2" rx_packets "$rx" 100
	kill -USR1 $pid 2>/dev/null
	busywait 120000 gone $pid || kill -KILL $pid
	wait $pid
	rc=$?
	echo "#   $desc: $((TIMES - left)) failures injected in $(($(date +%s) - t0)) s, retransmits +$(($(retransmits) - retr)); $(tail -n 1 "$log")"
	t_check "$desc: allocation failures injected ($((TIMES - left)) of $TIMES)" \
		test "$left" -lt "$TIMES"
	hit=$(sites "$seed")
	echo "#   sampled failures in MetaRoCE and where: $hit"
	[ "$tf" = Y ] &&
		t_check "$desc: sampled failures struck MetaRoCE's own code" \
			test "${hit%% *}" -gt 0
	if [ $rc = 137 ]; then
		t_fail "$desc: mroce_dpcheck hung (killed after 120 s)"
	else
		t_check "$desc: every request completed, data verified (seed $seed)" test $rc = 0
		[ $rc = 0 ] || grep FAIL "$log" | head -3 | sed 's/^/#   /'
	fi
}

phase "failslab in mroce_dpcheck's send path, 5 %" $FS 5 Y
phase "failslab system-wide, atomic allocations, 1 %" $FS 1 N
phase "fail_page_alloc system-wide, atomic page allocations, 10 %" $FP 10 N
echo "# $DEV1: $(dp_counters "$DEV1")"
t_check "$DEV1 objects back to baseline" busywait 10000 objects_are "$DEV1" "$base1"
t_check "$DEV2 objects back to baseline" busywait 10000 objects_are "$DEV2" "$base2"
rdma link del "$DEV1" && rdma link del "$DEV2"
t_check "metaroce unloads" rmmod metaroce
t_done
