#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Loss recovery of every RC opcode: tc netem drops 1% and then 5% of the
# packets on both ends of the veth while mroce_dpcheck moves checked data
# with one kind of request at a time (READ, WRITE, SEND, atomics) and
# ib_read_bw moves 64 KiB READs.  Every work request must complete
# successfully with its data intact (go-back-N, IBTA 9.7.5.2; a READ is
# resumed from its first missing response, o9-30).
#   DP_TOPO=mm (default): MetaRoCE <-> MetaRoCE
#   DP_TOPO=mx: MetaRoCE <-> rxe; mroce_dpcheck picks the direction of each
#   request at random, ib_read_bw runs with each side as the requester.
# MROCE_T_LOSS="1 5" (percent) and MROCE_T_LOSS_ITERS (default 40) size it.
source "$(dirname "$0")/../lib.sh"

BIN=$SUITE_BIN/mroce_dpcheck
topo=${DP_TOPO:-mm}
iters=${MROCE_T_LOSS_ITERS:-40}
dp_setup "$topo" ib_read_bw
build_c_tests
modinfo sch_netem >/dev/null 2>&1 || ksft_skip_all "sch_netem not available"

# netem PCT: drop PCT% of the packets leaving either end of the veth.
netem() {
	ns_exec "$NS1" tc qdisc replace dev "$V1" root netem loss "$1%" &&
		ns_exec "$NS2" tc qdisc replace dev "$V2" root netem loss "$1%"
}
defer "ns_exec '$NS2' tc qdisc del dev '$V2' root 2>/dev/null"

# netem's loss is for RoCE packets, not for address resolution.
dp_static_neigh || ksft_skip_all "cannot set permanent neighbour entries"

if [ "$topo" = mx ]; then
	name="MetaRoCE <-> rxe"
	# server side, then what the client side is: the client is the requester
	read_runs=("2 MetaRoCE -> rxe" "1 rxe -> MetaRoCE")
else
	name="MetaRoCE <-> MetaRoCE"
	read_runs=("2 MetaRoCE -> MetaRoCE")
fi

for pct in ${MROCE_T_LOSS:-1 5}; do
	netem "$pct" || { t_fail "netem loss $pct% on $V1 and $V2"; continue; }
	for ops in read write send atomic; do
		seed=$RANDOM
		retr=$(mroce_counter "$DEV1" retransmits)
		t_check "$name, loss $pct%: $iters random $ops requests, data verified (seed $seed)" \
			timeout 300 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" \
			-n "$iters" -o "$ops" -s "$seed"
		echo "#   $DEV1 retransmits: $(($(mroce_counter "$DEV1" retransmits) - retr))"
	done
	for run in "${read_runs[@]}"; do
		pt_run "ib_read_bw 64 KiB, loss $pct%, ${run#* }" "${run%% *}" 300 \
			ib_read_bw -s 65536 -n 30
	done
done
echo "# $DEV1: $(dp_counters "$DEV1")"
t_done
