#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Selective repeat between two MetaRoCE devices in metaroce mode
# (Documentation/wire.rst, "Selective repeat").  mroce_dpcheck moves
# checked data, one kind of request at a time (WRITE, SEND, READ,
# atomics); once both directions are in their MetaRoCE span (rdma res
# shows the switch PSNs), tc netem impairs both ends of the veth for
# MROCE_T_SACK_SECS seconds (default 5), then the run stops:
#  - loss: every request completes with its data; requests were resent by
#    selective repeat (sack_retransmits), the responder held requests that
#    came ahead of a hole (out_of_sequence) and sent no NAK (tx_naks
#    unchanged): nothing goes back N;
#  - reordering (netem "delay reorder") and duplication: data intact,
#    requests held, no NAK;
#  - `rdma res show qp -dd` shows the selective window's SACKED PSNs,
#    SRTT, RTO and reorder window;
#  - the same loss with the devices' policy roce: data intact, go-back-N
#    (NAKs sent), no selective resend.
# (Before the switch a connection is RoCEv2 and goes back N: the first
# messages of each direction are not impaired.)
source "$(dirname "$0")/../lib.sh"

BIN=$SUITE_BIN/mroce_dpcheck
secs=${MROCE_T_SACK_SECS:-5}
dp_setup mm tc
build_c_tests
modinfo sch_netem >/dev/null 2>&1 || ksft_skip_all "sch_netem not available"
dp_static_neigh || ksft_skip_all "cannot set permanent neighbour entries"

# netem ARGS...: the same impairment on both ends; netem_off: none.
netem() {
	ns_exec "$NS1" tc qdisc replace dev "$V1" root netem "$@" &&
		ns_exec "$NS2" tc qdisc replace dev "$V2" root netem "$@"
}
netem_off() {
	ns_exec "$NS1" tc qdisc del dev "$V1" root 2>/dev/null
	ns_exec "$NS2" tc qdisc del dev "$V2" root 2>/dev/null
	true
}
defer netem_off
# sum COUNTER: over both devices.
sum() {
	echo $(($(mroce_counter "$DEV1" "$1") + $(mroce_counter "$DEV2" "$1")))
}
policy() {
	echo "$1" >"/sys/class/infiniband/$DEV1/metaroce_mode_policy" &&
		echo "$1" >"/sys/class/infiniband/$DEV2/metaroce_mode_policy"
}
defer "policy auto"

COUNTERS="sack_retransmits out_of_sequence tx_naks rack_losses tlp_probes rto_fires spurious_retransmits rx_duplicates retransmits packet_seq_err"
# snap: the counters above, summed, as "name=value ...".
snap() {
	local c
	for c in $COUNTERS; do printf '%s=%s ' "$c" "$(sum "$c")"; done
}
# grew NAME: how much counter NAME grew between the snaps BEFORE and AFTER.
grew() {
	local b a
	b=$(echo "$BEFORE" | tr ' ' '\n' | sed -n "s/^$1=//p")
	a=$(echo "$AFTER" | tr ' ' '\n' | sed -n "s/^$1=//p")
	echo $((a - b))
}
# some_none A B: A is above 0 and B is 0.
some_none() {
	[ "$1" -gt 0 ] && [ "$2" -eq 0 ]
}
# switched MODE: both QPs in mode MODE, and, for metaroce, both directions
# past their switch PSN (each QP shows the peer's).
switched() {
	local out
	out=$(rdma res show qp -dd 2>/dev/null | grep "drv_mode $1 ")
	[ "$(echo "$out" | grep -c "drv_mode $1 ")" -ge 2 ] || return 1
	[ "$1" != metaroce ] || [ "$(echo "$out" | grep -c "mode-rx-psn")" -ge 2 ]
}
gone() {
	! kill -0 "$1" 2>/dev/null
}

# run DESC OPS MODE NETEM...: mroce_dpcheck moves OPS; once both QPs are
# in MODE (and switched), NETEM on both ends for $secs s; then it stops and
# every request must have completed with its data.  Sets BEFORE / AFTER,
# the counters from the start of the impairment to the end of the run.
run() {
	local desc=$1 ops=$2 mode=$3 seed=$RANDOM pid rc log
	shift 3
	log=$DP_LOGS/sack-$seed.log
	"$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 100000000 \
		-o "$ops" -s "$seed" >"$log" 2>&1 &
	pid=$!
	busywait 30000 switched "$mode" ||
		echo "#   QPs not both in mode $mode: $(rdma res show qp -dd | grep -o 'drv_mode [a-z]*' | tr '\n' ' ')"
	BEFORE=$(snap)
	netem "$@" || t_fail "netem $* on $V1 and $V2"
	sleep "$secs"
	SACKED_SEEN=$(rdma res show qp -dd 2>/dev/null |
		      grep -o "drv_sq-sacked.*drv_reorder-wnd-us [0-9]*" | head -2)
	kill -USR1 "$pid" 2>/dev/null
	busywait 120000 gone "$pid" || kill -KILL "$pid"
	wait "$pid"
	rc=$?
	AFTER=$(snap)
	netem_off
	t_check "$desc: random $ops requests, data verified (seed $seed; $(tail -n 1 "$log"))" \
		[ "$rc" = 0 ]
	[ "$rc" = 0 ] || grep FAIL "$log" | head -3 | sed 's/^/#   /'
	echo "#   $(for c in $COUNTERS; do printf '%s +%s ' "$c" "$(grew "$c")"; done)"
}

policy auto || ksft_skip_all "cannot set the mode policy"

# ---- loss
sack=0 ooo=0 naks=0
for ops in write send read atomic; do
	run "metaroce mode, loss 3%" "$ops" metaroce loss 3%
	sack=$((sack + $(grew sack_retransmits)))
	ooo=$((ooo + $(grew out_of_sequence)))
	naks=$((naks + $(grew tx_naks)))
	[ "$ops" = write ] && echo "$SACKED_SEEN" | sed 's/^/#   /'
	[ "$ops" = write ] &&
		t_check "rdma res show qp -dd: sq-sacked, srtt-us, rto-us, reorder-wnd-us" \
			sh -c "echo '$SACKED_SEEN' | grep -q 'srtt-us [1-9]'"
done
t_check "metaroce mode, loss 3%: requests resent selectively ($sack)" \
	[ "$sack" -gt 0 ]
t_check "metaroce mode, loss 3%: requests held ahead of a hole ($ooo)" \
	[ "$ooo" -gt 0 ]
t_check "metaroce mode, loss 3%: no NAK sent ($naks)" [ "$naks" -eq 0 ]

# ---- reordering and duplication
ooo=0 naks=0
for ops in write send; do
	run "metaroce mode, delay 1 ms reorder 25%" "$ops" metaroce \
		delay 1ms reorder 25% 50%
	ooo=$((ooo + $(grew out_of_sequence)))
	naks=$((naks + $(grew tx_naks)))
done
t_check "metaroce mode, reordering: requests held, not NAKed ($ooo held, $naks NAKs)" \
	some_none "$ooo" "$naks"
run "metaroce mode, duplicate 10%" write,send,read,atomic metaroce \
	duplicate 10%
t_check "metaroce mode, duplicate 10%: duplicates seen ($(grew rx_duplicates)), no NAK ($(grew tx_naks))" \
	some_none "$(grew rx_duplicates)" "$(grew tx_naks)"

# ---- roce mode: go-back-N, as RoCEv2 peers expect
policy roce || t_fail "policy roce"
run "roce mode, loss 3%" write roce loss 3%
t_check "roce mode, loss 3%: go-back-N (NAKs $(grew tx_naks), no selective resend)" \
	some_none "$(grew tx_naks)" "$(grew sack_retransmits)"
t_check "roce mode, loss 3%: NAKs received counted (packet_seq_err +$(grew packet_seq_err))" \
	[ "$(grew packet_seq_err)" -gt 0 ]
echo "# $DEV1: $(dp_counters "$DEV1")"
t_done
