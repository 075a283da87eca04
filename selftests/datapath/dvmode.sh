#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The per-QP transport mode override, metaroce_dv_qp_set_mode() of the
# provider's metaroce_dv.h, with mroce_dvmode: its errors; two RC QP pairs
# on the same MetaRoCE devices, one set to roce and one to metaroce, side by
# side with data checked, each in its mode on both ends.  DP_TOPO=mx
# (dvmode_rxe.sh) runs it against rxe: a QP set to roce works, one set to
# metaroce fails its first SEND with IBV_WC_BAD_RESP_ERR.
source "$(dirname "$0")/../lib.sh"

BIN=$SUITE_BIN/mroce_dvmode
topo=${DP_TOPO:-mm}
mroce_load_or_skip
use_build_provider
build_c_tests
dp_topo "$topo" || ksft_skip_all "cannot build the $topo topology"

log=$DP_LOGS/dvmode.log
args=(-a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2")
[ "$topo" = mx ] && args+=(-x)
timeout 300 "$BIN" "${args[@]}" >"$log" 2>&1
rc=$?
while read -r line; do
	case $line in
	"ok "*) t_pass "$topo: ${line#ok [0-9]* - }" ;;
	"not ok "*) t_fail "$topo: ${line#not ok [0-9]* - }" ;;
	"# "*) echo "$line" ;;
	esac
done <"$log"
[ $rc -le 1 ] || { t_fail "$topo: mroce_dvmode exited $rc"; tail -n 5 "$log" | sed 's/^/#   /'; }
echo "# $DEV1: $(dp_counters "$DEV1")"
t_done
