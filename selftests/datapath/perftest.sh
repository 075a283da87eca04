#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# perftest between two MetaRoCE devices in two namespaces: RDMA WRITE,
# READ, SEND and atomics (bandwidth and latency tests), with and without
# inline data.  perftest checks completions, not data: mroce_dpcheck does.
source "$(dirname "$0")/../lib.sh"

dp_setup "${DP_TOPO:-mm}" ib_write_bw

pt() { # DESC SIDE TOOL ARGS...
	local desc=$1 side=$2 tool=$3
	shift 3
	pt_run "$tool $desc, server on side $side" "$side" 120 "$tool" "$@"
}
for side in 2 1; do
	pt "64 KiB" $side ib_write_bw -s 65536 -n 200
	pt "64 KiB" $side ib_read_bw -s 65536 -n 200
	pt "4 KiB" $side ib_send_bw -s 4096 -n 200
	pt "" $side ib_atomic_bw -n 200
done
pt "2 B (inline)" 2 ib_write_lat -s 2 -n 200
pt "2 B (inline)" 2 ib_send_lat -s 2 -n 200
pt "2 B" 2 ib_read_lat -s 2 -n 200
echo "# $DEV1: $(dp_counters "$DEV1")"
echo "# $DEV2: $(dp_counters "$DEV2")"
t_done
