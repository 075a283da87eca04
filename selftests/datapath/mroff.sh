#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Per-packet cost of an offset in a large memory region (issue 9 item 6):
# 64 KiB RDMA WRITEs into a 1 GiB region (512 MiB when the guest has less
# than 1.5 GiB free), at its start and at its end, alternately.  The data
# path finds the page of any offset in O(1), so both goodputs must agree
# within noise: the end's is at least 3/4 of the start's.
#   MROCE_T_MROFF_WRITES=N   WRITEs per position (default 800)
source "$(dirname "$0")/../lib.sh"

BIN=$SUITE_BIN/mroce_dpcheck
verbs_prologue
dp_topo mm || ksft_skip_all "cannot build the mm topology"

free_mib=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
mib=1024
[ "$free_mib" -lt 1536 ] && mib=512
out=$(timeout 300 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" \
	-W $mib -n "${MROCE_T_MROFF_WRITES:-800}" 2>&1)
rc=$?
echo "# $out" | tail -n 3
ratio=$(sed -n 's/.*end\/start \([0-9.]*\).*/\1/p' <<<"$out")
t_check "WRITEs at the end of a $mib MiB region complete, data checked" [ $rc -eq 0 ]
t_check "goodput at the end within noise of the start (end/start ${ratio:-?} >= 0.75)" \
	awk -v r="${ratio:-0}" 'BEGIN { exit !(r >= 0.75) }'
t_done
