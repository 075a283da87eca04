#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Wire compatibility with rdma_rxe: MetaRoCE in a namespace, rxe on the
# other end of the veth in the initial namespace (6.1's rxe socket lives in
# init_net), each as server and as client.
source "$(dirname "$0")/../lib.sh"

dp_setup mx ibv_rc_pingpong

for side in 2 1; do
	pp_run "rc_pingpong -s 4096 vs rxe, server on side $side" $side 60 \
		ibv_rc_pingpong -s 4096 -n 50 -c
	pp_run "ud_pingpong vs rxe, server on side $side" $side 60 \
		ibv_ud_pingpong -s 1000 -n 50 -c
	pp_run "srq_pingpong 4 QPs vs rxe, server on side $side" $side 90 \
		ibv_srq_pingpong -q 4 -s 3000 -n 50 -c
	for t in "ib_write_bw -s 65536" "ib_read_bw -s 65536" "ib_send_bw -s 4096" \
		 "ib_atomic_bw" "ib_write_lat -s 2" "ib_send_lat -s 2" \
		 "ib_read_lat -s 2"; do
		# shellcheck disable=SC2086
		pt_run "$t vs rxe, server on side $side" $side 120 $t -n 200
	done
done
echo "# $DEV1: $(dp_counters "$DEV1")"
t_done
