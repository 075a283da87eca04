#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# sack.sh's impairment matrix where RoCEv2 rules: every kind of request at
# once (WRITE, SEND, READ, atomics: mroce_dpcheck, data verified, each
# request's direction at random) for MROCE_T_IMPAIR_SECS seconds (default
# 3) under each of tc netem's loss 0.1%, 1%, 5% and 10%, reordering,
# duplication, corruption and delay jitter, on both ends of the veth:
#   DP_TOPO=mm (default): two MetaRoCE devices with policy roce
#   (go-back-N, as with any RoCEv2 peer);
#   DP_TOPO=mx: MetaRoCE <-> rdma_rxe (impair_rxe.sh).
# Every request completes successfully with its data, and the MetaRoCE
# side holds nothing and resends nothing selectively (out_of_sequence and
# sack_retransmits unchanged): a RoCEv2 connection stays RoCEv2 whatever
# the path does.
source "$(dirname "$0")/../lib.sh"

BIN=$SUITE_BIN/mroce_dpcheck
topo=${DP_TOPO:-mm}
secs=${MROCE_T_IMPAIR_SECS:-3}
dp_setup "$topo" tc
build_c_tests
modinfo sch_netem >/dev/null 2>&1 || ksft_skip_all "sch_netem not available"
dp_static_neigh || ksft_skip_all "cannot set permanent neighbour entries"

defer dp_netem_off
none() {
	[ "$1" -eq 0 ] && [ "$2" -eq 0 ]
}

if [ "$topo" = mx ]; then
	name="MetaRoCE <-> rxe"
else
	name="MetaRoCE <-> MetaRoCE, policy roce"
	for d in "$DEV1" "$DEV2"; do
		echo roce >"/sys/class/infiniband/$d/metaroce_mode_policy" ||
			ksft_skip_all "cannot set the mode policy of $d"
	done
	defer "echo auto >/sys/class/infiniband/$DEV1/metaroce_mode_policy;
	       echo auto >/sys/class/infiniband/$DEV2/metaroce_mode_policy"
fi

for imp in "loss 0.1%" "loss 1%" "loss 5%" "loss 10%" \
	   "delay 1ms reorder 25% 50%" "duplicate 10%" "corrupt 2%" \
	   "delay 200us 150us distribution normal"; do
	seed=$RANDOM
	log=$DP_LOGS/impair-$seed.log
	held=$(mroce_counter "$DEV1" out_of_sequence)
	sack=$(mroce_counter "$DEV1" sack_retransmits)
	retr=$(mroce_counter "$DEV1" retransmits)
	# shellcheck disable=SC2086 # the impairment is netem's words
	dp_netem $imp || { t_fail "netem $imp on $V1 and $V2"; continue; }
	"$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 100000000 \
		-o write,send,read,atomic -s "$seed" >"$log" 2>&1 &
	pid=$!
	sleep "$secs"
	dpcheck_done "$pid" "$log" \
		"$name, $imp: random write,send,read,atomic requests (seed $seed)"
	dp_netem_off
	held=$(($(mroce_counter "$DEV1" out_of_sequence) - held))
	sack=$(($(mroce_counter "$DEV1" sack_retransmits) - sack))
	t_check "$name, $imp: RoCEv2 recovery ($DEV1: $held held, $sack selective resends, $(($(mroce_counter "$DEV1" retransmits) - retr)) go-back-N retransmits)" \
		none "$held" "$sack"
done
echo "# $DEV1: $(dp_counters "$DEV1")"
t_done
