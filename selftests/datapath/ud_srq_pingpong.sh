#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# UD sends with GRH (ibv_ud_pingpong) and SRQ receives over several RC QPs
# (ibv_srq_pingpong) between two MetaRoCE devices in two namespaces, with
# each side as server.
source "$(dirname "$0")/../lib.sh"

dp_setup mm ibv_ud_pingpong

for side in 2 1; do
	pp_run "ud_pingpong -s 1000, server on side $side" $side 60 \
		ibv_ud_pingpong -s 1000 -n 50 -c
	pp_run "srq_pingpong 4 QPs -s 3000, server on side $side" $side 90 \
		ibv_srq_pingpong -q 4 -s 3000 -n 50 -c
done
pp_run "ud_pingpong IPv6 GID" 2 60 ibv_ud_pingpong -6 -s 512 -n 20 -c
echo "# $DEV1: $(dp_counters "$DEV1")"
echo "# $DEV2: $(dp_counters "$DEV2")"
t_done
