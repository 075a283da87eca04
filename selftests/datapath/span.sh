#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The start of a MetaRoCE span under impairment (Documentation/wire.rst,
# "Switch PSN", "Selective repeat").  A connection without ECE starts as
# RoCEv2: its requester sends plain requests until the first marked packet
# from the peer, then switches at its next new message, the switch PSN.
# sack.sh impairs the path once both ends switched; here tc netem impairs
# both ends of the veth from before the connection exists, so the plain
# requests, the switch and the first of the span are reordered or lost
# together.  Two MetaRoCE devices, policy auto:
#  - mroce_dpcheck (data verified; WRITE, SEND, READ and atomics at once)
#    under "delay 1ms reorder 25% 50%" and under "loss 3%": every request
#    completes with its data, both ends reach metaroce mode, and each
#    responder's switch PSN (mode-rx-psn) is its peer requester's
#    (mode-tx-psn), although the span's first request may come ahead of
#    the plain ones and be held (out_of_sequence) until they are in;
#  - ib_write_bw, 64 KiB WRITEs reordered from the first packet: a NAK
#    for a gap among the plain requests resends those only, not the span
#    held behind them; the requests received twice (rx_duplicates, netem
#    duplicates none) stay under 2% of the packets sent.
source "$(dirname "$0")/../lib.sh"

dp_setup mm ib_write_bw
modinfo sch_netem >/dev/null 2>&1 || ksft_skip_all "sch_netem not available"
dp_static_neigh || ksft_skip_all "cannot set permanent neighbour entries"

for d in "$DEV1" "$DEV2"; do
	echo auto >"/sys/class/infiniband/$d/metaroce_mode_policy" ||
		ksft_skip_all "cannot set the mode policy of $d"
done
defer dp_netem_off


BIN=$SUITE_BIN/mroce_dpcheck
build_c_tests
secs=${MROCE_T_SPAN_SECS:-4}

# qp DEV: DEV's RC QP in RTS, one line.
qp() {
	dp_rc_rts "$1" | head -n 1
}
switched() {
	[ -n "$(dp_qp_attr "$(qp "$DEV1")" mode-rx-psn)" ] &&
		[ -n "$(dp_qp_attr "$(qp "$DEV2")" mode-rx-psn)" ]
}

# checked DESC NETEM...: mroce_dpcheck under NETEM from its first packet.
checked() {
	local desc=$1 seed=$RANDOM pid log q1 q2 ooo0
	shift
	log=$DP_LOGS/span-$seed.log
	dp_netem "$@" || t_fail "netem $* on $V1 and $V2"
	ooo0=$(dp_sum out_of_sequence)
	"$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 100000000 \
		-o write,send,read,atomic -s "$seed" >"$log" 2>&1 &
	pid=$!
	busywait 30000 switched || echo "#   not both switched within 30 s"
	q1=$(qp "$DEV1") q2=$(qp "$DEV2")
	sleep "$secs"
	dpcheck_done "$pid" "$log" "$desc: random requests (seed $seed)"
	dp_netem_off
	t_check "$desc: both ends in metaroce mode" \
		[ "$(dp_qp_attr "$q1" mode)/$(dp_qp_attr "$q2" mode)" = metaroce/metaroce ]
	t_check "$desc: $DEV2 found $DEV1's switch PSN ($(dp_qp_attr "$q1" mode-tx-psn) / $(dp_qp_attr "$q2" mode-rx-psn))" \
		[ -n "$(dp_qp_attr "$q1" mode-tx-psn)" -a "$(dp_qp_attr "$q1" mode-tx-psn)" = "$(dp_qp_attr "$q2" mode-rx-psn)" ]
	t_check "$desc: $DEV1 found $DEV2's switch PSN ($(dp_qp_attr "$q2" mode-tx-psn) / $(dp_qp_attr "$q1" mode-rx-psn))" \
		[ -n "$(dp_qp_attr "$q2" mode-tx-psn)" -a "$(dp_qp_attr "$q2" mode-tx-psn)" = "$(dp_qp_attr "$q1" mode-rx-psn)" ]
	echo "#   $(($(dp_sum out_of_sequence) - ooo0)) requests held"
}

checked "reordered from the first packet" delay 1ms reorder 25% 50%
checked "loss 3% from the first packet" loss 3%

n=${MROCE_T_SPAN_ITERS:-500}
dp_netem delay 1ms reorder 25% 50% || t_fail "netem on $V1 and $V2"
tx0=$(dp_sum tx_packets) dup0=$(dp_sum rx_duplicates) naks0=$(dp_sum tx_naks)
pt_run "ib_write_bw 64 KiB x $n, reordered from the first packet" 2 120 \
	ib_write_bw -s 65536 -n "$n"
tx=$(($(dp_sum tx_packets) - tx0)) dup=$(($(dp_sum rx_duplicates) - dup0))
naks=$(($(dp_sum tx_naks) - naks0))
dp_netem_off
t_check "ib_write_bw reordered from the first packet: $dup duplicates received ($naks NAKs), under 2% of $tx packets sent" \
	[ "$((dup * 50))" -lt "$tx" ]
echo "# $DEV1: $(dp_counters "$DEV1")"
t_done
