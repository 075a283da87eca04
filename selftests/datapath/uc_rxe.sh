#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# UC wire compatibility with rdma_rxe: MetaRoCE in a namespace, rxe in the
# initial namespace; ibv_uc_pingpong and perftest -c UC, each side as
# server and as client, and mroce_dpcheck -u across the two.
source "$(dirname "$0")/../lib.sh"

dp_setup mx ibv_uc_pingpong
build_c_tests

pp_sizes uc_pingpong ibv_uc_pingpong " vs rxe"
for side in 2 1; do
	for t in "ib_send_bw -s 4096" "ib_write_bw -s 65536"; do
		# shellcheck disable=SC2086
		pt_run "$t -c UC vs rxe, server on side $side" $side 120 \
			$t -c UC -n 200
	done
done
seed=$RANDOM
t_check "dpcheck -u: $DEV1 <-> $DEV2 (rxe), 200 random UC ops (seed $seed)" \
	timeout 300 "$SUITE_BIN/mroce_dpcheck" -u \
	-a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 200 -s $seed
echo "# $DEV1: $(dp_counters "$DEV1")"
t_done
