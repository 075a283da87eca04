#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# UC (IBTA 9.7) between two MetaRoCE devices in two namespaces:
#  - ibv_uc_pingpong (SEND, data checked with -c) in both directions, from
#    one byte to multi-packet messages, IPv4 and IPv6 GIDs;
#  - perftest ib_send_bw / ib_write_bw -c UC;
#  - mroce_dpcheck -u: random SEND, SEND_IMM, WRITE, WRITE_IMM with
#    checksums;
#  - uc_gap: multi-packet SENDs and WRITE_IMMs over a path that drops 5% of
#    the packets (netem): every send completes, every message that
#    completes is whole, the others are dropped silently (rx_drop_seq).
source "$(dirname "$0")/../lib.sh"

dp_setup mm ibv_uc_pingpong
build_c_tests
BIN=$SUITE_BIN

pp_sizes uc_pingpong ibv_uc_pingpong
pp_run "uc_pingpong IPv6 GID -s 8192" 2 60 ibv_uc_pingpong -6 -s 8192 -n 50 -c
for t in "ib_send_bw -s 4096" "ib_write_bw -s 65536"; do
	# shellcheck disable=SC2086
	pt_run "$t -c UC" 2 120 $t -c UC -n 200
done

seed=$RANDOM
t_check "dpcheck -u: $DEV1 <-> $DEV2, 300 random UC ops (seed $seed)" \
	timeout 300 "$BIN/mroce_dpcheck" -u -a "$DEV1" -g "$G1" -b "$DEV2" \
	-G "$G2" -n 300 -s $seed

# uc_gap_run: uc_gap over a path that drops 5% of A's packets.
uc_gap_run() {
	local v1=${NS1}v out rc drops0 drops1 delivered
	drops0=$(mroce_counter "$DEV2" rx_drop_seq)
	dp_static_neigh || t_fail "uc_gap: permanent neighbour entries"
	if ! ip netns exec "$NS1" tc qdisc add dev "$v1" root netem loss 5%; then
		t_skip "uc_gap" "no netem (sch_netem)"
		return
	fi
	out=$(timeout 120 "$BIN/uc_gap" -a "$DEV1" -g "$G1" -b "$DEV2" \
		-G "$G2" -n 400)
	rc=$?
	ip netns exec "$NS1" tc qdisc del dev "$v1" root
	echo "$out" | sed 's/^/# /'
	delivered=$(sed -n 's/^delivered \([0-9]*\) of.*/\1/p' <<<"$out")
	drops1=$(mroce_counter "$DEV2" rx_drop_seq)
	echo "# $DEV2 rx_drop_seq $drops0 -> $drops1"
	t_check "uc_gap: lossy path, only whole messages complete, in order" \
		[ "$rc" -eq 0 ]
	t_check "uc_gap: some messages lost (${delivered:-?} of 400 delivered)" \
		[ "${delivered:-400}" -lt 400 -a "${delivered:-0}" -gt 0 ]
	t_check "uc_gap: the responder counted the gaps (rx_drop_seq)" \
		[ "${drops1:-0}" -gt "${drops0:-0}" ]
}
uc_gap_run
echo "# $DEV1: $(dp_counters "$DEV1")"
echo "# $DEV2: $(dp_counters "$DEV2")"
t_done
