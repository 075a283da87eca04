#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Incast testbed: four MetaRoCE senders and a victim, each in its own
# namespace, a router namespace, one MetaRoCE receiver.  The router's
# egress to the receiver is the bottleneck: tbf at 50 Mbit/s over RED,
# which marks ECN-capable packets CE once its average queue passes 12 KB
# and drops what does not fit (no PFC anywhere: a lossy fabric).
# mroce_incast has the four senders WRITE 64 KiB messages, four at a time,
# into their slots of the receiver's memory while the victim WRITEs 64 B
# messages one at a time:
# - every message completes and the receiver's slots hold the last data;
# - the bottleneck marked packets, the receiver counted them and sent
#   CNPs, and the senders' DCQCN reaction points took them;
# - the figures (bottleneck use, completion times against the ideal,
#   victim latency, drops at the router) are printed for the log; make
#   bench compares stacks on them.
# Then the same incast on a lossy fabric (metaroce_fabric=lossy): the
# senders' packets are not ECN-capable, so RED drops instead of marking,
# and only their delay-based windows (mroce_wcc.c) slow them down:
# - the fabric knob takes lossless or lossy and refuses anything else;
# - every message completes intact, drops repaired by selective repeat;
# - the windows shrank on delay (tracepoint mroce_cc_window) and show in
#   rdma res (cc-window, cc-rtt-us, ...) below their cap while it runs.
source "$(dirname "$0")/../lib.sh"

N=4 RATE=50
BIN=$SUITE_BIN/mroce_incast
mroce_load_or_skip
use_build_provider
command -v tc >/dev/null || ksft_skip_all "tc not installed"
build_c_tests
mkdir -p "$DP_LOGS"
# before any traffic (lib.sh, trace_setup)
trace_setup metaroce/mroce_cc_window || TR=

# ---- topology
R=$(uname_of r) D=$(uname_of d)
new_netns "$R" && new_netns "$D" || ksft_skip_all "cannot create namespaces"
ns_exec "$R" sysctl -qw net.ipv4.ip_forward=1
veth_pair "${D}v" "$D" "${D}r" "$R" || ksft_skip_all "cannot create veths"
ns_exec "$D" ip addr add 10.20.0.2/24 dev "${D}v"
ns_exec "$D" ip route add default via 10.20.0.1
ns_exec "$R" ip addr add 10.20.0.1/24 dev "${D}r"
mroce_dev_on "${D}m" "${D}v" "$D" || ksft_skip_all "no MetaRoCE device"
SENDERS=()
for i in $(seq 1 $((N + 1))); do
	S=$(uname_of s$i)
	new_netns "$S" && veth_pair "${S}v" "$S" "${S}r" "$R" ||
		ksft_skip_all "cannot create sender $i"
	ns_exec "$S" ip addr add 10.10.$i.2/24 dev "${S}v"
	ns_exec "$S" ip route add default via 10.10.$i.1
	ns_exec "$R" ip addr add 10.10.$i.1/24 dev "${S}r"
	mroce_dev_on "${S}m" "${S}v" "$S" || ksft_skip_all "no MetaRoCE device"
	SENDERS+=("${S}m")
done
for dev in "${D}m" "${SENDERS[@]}"; do
	busywait 5000 gid_index "$dev" v4 >/dev/null ||
		ksft_skip_all "no IPv4 GID on $dev"
done
ns_exec "$R" tc qdisc add dev "${D}r" root handle 1: tbf rate ${RATE}mbit \
	burst 16kb latency 50ms &&
	ns_exec "$R" tc qdisc add dev "${D}r" parent 1:1 handle 10: red \
	limit 120000 min 12000 max 36000 avpkt 1100 burst 12 probability 0.2 \
	bandwidth ${RATE}mbit ecn
t_check "bottleneck: tbf $RATE Mbit/s with RED marking ECN on the router" test $? = 0

args=(-r "${D}m:$(gid_index "${D}m" v4)")
for i in $(seq 0 $((N - 1))); do
	args+=(-s "${SENDERS[$i]}:$(gid_index "${SENDERS[$i]}" v4)")
done
args+=(-v "${SENDERS[$N]}:$(gid_index "${SENDERS[$N]}" v4)")

# c NAME DEV...: counter NAME summed over DEVs.
c() {
	local n=$1 s=0 d
	shift
	for d in "$@"; do s=$((s + $(mroce_counter "$d" "$n"))); done
	echo "$s"
}
m0=$(c np_ecn_marked_roce_packets "${D}m") s0=$(c np_cnp_sent "${D}m")
h0=$(c rp_cnp_handled "${SENDERS[@]}")
log=$DP_LOGS/incast.txt
incast() {
	timeout 300 "$BIN" "${args[@]}" "$@" >"$log" 2>&1
}
t_check "$N:1 incast of 64 KiB WRITEs with a victim flow: every message completes, slots checked" \
	incast -m 65536 -n 30 -d 4 -R $RATE -I 200 -o "$DP_LOGS/incast-fct.txt" ||
	grep -E "FAIL|Bail" "$log" | head -5 | sed 's/^/#   /'
sleep 1
m=$(($(c np_ecn_marked_roce_packets "${D}m") - m0))
s=$(($(c np_cnp_sent "${D}m") - s0))
h=$(($(c rp_cnp_handled "${SENDERS[@]}") - h0))
red=$(ns_exec "$R" tc -s qdisc show dev "${D}r" | tr '\n' ' ')
t_check "the bottleneck marked: receiver counted $m CE, sent $s CNPs, senders handled $h" \
	test "$m" -gt 0 -a "$s" -gt 0 -a "$h" -gt 0
sed 's/^/#   /' "$log"
echo "#   router: $(sed -n 's/.*\(qdisc red.*\)/\1/p' <<<"$red" | tr -s ' ' | head -c 300)"

# ---- the same on a lossy fabric: no ECN, delay-based windows
S1=/sys/class/infiniband/${SENDERS[0]}
t_check "metaroce_fabric is lossless by default" \
	test "$(cat "$S1/metaroce_fabric")" = lossless
t_check_fail "metaroce_fabric refuses 'pfc'" sh -c "echo pfc >$S1/metaroce_fabric"
t_check_fail "metaroce_cc_beta refuses 1025" sh -c "echo 1025 >$S1/metaroce_cc_beta"
# MROCE_INCAST_SET="name=value ...": more device attributes for this round
# (metaroce_cc_target_delay_us=1000, ...), for tuning.
for dev in "${D}m" "${SENDERS[@]}"; do
	echo lossy >"/sys/class/infiniband/$dev/metaroce_fabric"
	echo 0 >"/sys/class/infiniband/$dev/metaroce_ecn"
	for kv in ${MROCE_INCAST_SET:-}; do
		echo "${kv#*=}" >"/sys/class/infiniband/$dev/${kv%%=*}"
	done
done
t_check "metaroce_fabric reads lossy" test "$(cat "$S1/metaroce_fabric")" = lossy
cap=$(cat "$S1/metaroce_cc_max_window")
m0=$(c np_ecn_marked_roce_packets "${D}m")
[ -n "$TR" ] && echo >"$TR/trace"
log=$DP_LOGS/incast-lossy.txt
res=$DP_LOGS/incast-lossy-res.txt
incast -m 65536 -n 30 -d 4 -R $RATE -I 200 -o "$DP_LOGS/incast-lossy-fct.txt" &
pid=$!
: >"$res"
for i in 1 2 3 4 5 6 7 8; do
	sleep 1
	rdma -dd res show qp link "${SENDERS[0]}/1" 2>/dev/null |
		grep -o "cc-window [0-9]*.*" >>"$res"
done
wait $pid
rc=$?
t_check "lossy fabric, $N:1 incast without ECN: every message completes, slots checked" \
	test $rc = 0
[ $rc = 0 ] || grep -E "FAIL|Bail" "$log" | head -5 | sed 's/^/#   /'
sleep 1
m=$(($(c np_ecn_marked_roce_packets "${D}m") - m0))
t_check "no packet was ECN-capable, none marked ($m)" test "$m" = 0
if [ -n "$TR" ]; then
	cuts=$(grep -c " mroce_cc_window: .* cut=1 " "$TR/trace")
	t_check "the senders' windows shrank on delay or loss ($cuts decreases traced)" \
		test "$cuts" -gt 0
	grep -m 3 " mroce_cc_window: " "$TR/trace" | sed 's/^ */#   /'
else
	t_skip "the senders' windows shrank" "no tracepoint mroce_cc_window"
fi
below=$(awk -v cap="$cap" '$2 < cap { n++ } END { print n + 0 }' "$res")
t_check "rdma res shows ${SENDERS[0]}'s window below its cap $cap ($below of $(wc -l <"$res") samples)" \
	test "$below" -gt 0
sed 's/^/#   /' "$res" | head -4
red=$(ns_exec "$R" tc -s qdisc show dev "${D}r" | tr '\n' ' ')
sed 's/^/#   /' "$log"
echo "#   router: $(sed -n 's/.*\(qdisc red.*\)/\1/p' <<<"$red" | tr -s ' ' | head -c 300)"
t_done
