#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# RC error behaviour (IBTA 9.7.5.2, 9.7.6.1.3, 9.9.3, 10.3.1): mroce_dpneg
# runs RNR, retry exceeded, remote access, length and flush cases on fresh
# QP pairs and checks the completions on both sides, the QP states, the
# memory around the target region and the retry counters.
#   DP_TOPO=mm (default): MetaRoCE <-> MetaRoCE
#   DP_TOPO=mx: MetaRoCE requester -> rxe responder, and rxe -> MetaRoCE
# MROCE_T_DPNEG_CASES=SUBSTR runs only the cases whose name contains SUBSTR.
# local_err_stop (nothing is sent behind a WQE that failed locally) runs on
# its own, with netem delaying the responder's packets.
source "$(dirname "$0")/../lib.sh"

BIN=$SUITE_BIN/mroce_dpneg
topo=${DP_TOPO:-mm}
verbs_prologue
[ "$topo" = mx ] && { modprobe rdma_rxe 2>/dev/null || ksft_skip_all "rdma_rxe not available"; }
dp_topo "$topo" || ksft_skip_all "cannot build the $topo topology"

objects() {
	cat /sys/class/infiniband/"$1"/metaroce_objects 2>/dev/null | tr '\n' ' '
}

# run_neg DESC REQ GID RESP GID: one mroce_dpneg run, one TAP line per case.
run_neg() {
	local desc=$1 log=$DP_LOGS/dpneg-$2-$4.log line rc
	timeout 600 "$BIN" -a "$2" -g "$3" -b "$4" -G "$5" \
		${MROCE_T_DPNEG_CASES:+-t "$MROCE_T_DPNEG_CASES"} >"$log" 2>&1
	rc=$?
	while read -r line; do
		case $line in
		"ok "*) t_pass "$desc: ${line#ok [0-9]* }" ;;
		"not ok "*) t_fail "$desc: ${line#not ok [0-9]* }" ;;
		"# "*) echo "$line" ;;
		esac
	done <"$log"
	[ $rc -le 1 ] || { t_fail "$desc: mroce_dpneg exited $rc"; tail -n 5 "$log" | sed 's/^/#   /'; }
}

# local_err_stop: a MetaRoCE requester with the responder's packets (its
# ACKs) delayed 100 ms, so the WQEs behind the failing one are posted while
# the first one is certainly still waiting for its ACK.
run_local_err() {
	local desc=$1
	ns_exec "$NS2" tc qdisc add dev "$V2" root netem delay 100ms ||
		{ t_fail "$desc: netem on $V2"; return; }
	MROCE_T_DPNEG_CASES=local_err_stop run_neg "$desc" "$DEV1" "$G1" "$DEV2" "$G2"
	ns_exec "$NS2" tc qdisc del dev "$V2" root
}

base1=$(objects "$DEV1")
if [ "$topo" = mx ]; then
	run_neg "MetaRoCE -> rxe" "$DEV1" "$G1" "$DEV2" "$G2"
	run_neg "rxe -> MetaRoCE" "$DEV2" "$G2" "$DEV1" "$G1"
	run_local_err "MetaRoCE -> rxe, ACKs delayed"
else
	base2=$(objects "$DEV2")
	run_neg "MetaRoCE -> MetaRoCE" "$DEV1" "$G1" "$DEV2" "$G2"
	run_local_err "MetaRoCE -> MetaRoCE, ACKs delayed"
	t_check "$DEV2 objects back to baseline" test "$(objects "$DEV2")" = "$base2"
fi
t_check "$DEV1 objects back to baseline" test "$(objects "$DEV1")" = "$base1"
echo "# $DEV1: $(dp_counters "$DEV1")"
[ "$topo" = mm ] && echo "# $DEV2: $(dp_counters "$DEV2")"
t_done
