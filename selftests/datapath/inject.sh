#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Hostile packets: inject.py sends hand-made RoCEv2 packets from the peer
# namespace to MetaRoCE device 1 while mroce_dpcheck moves checked data
# between the two MetaRoCE devices.  Each class of bad packet must raise
# its counter (a packet marked as protected by the UDP checksum but
# carrying none must fail the ICRC check; one with a valid checksum is
# accepted on it and reaches the PSN check: the live QPs offer it); well-formed requests at the expected PSN that overrun the
# region or the receive (to a victim QP of mroce_dpneg -V) must put only
# that QP in ERR and leave memory around it alone.  Forged packets from a
# third host, or to an address that is not the QP's, must do nothing at
# all, and ACKs forged inside an outstanding READ must not complete it with
# bytes that never came.  The real traffic must
# complete with its data verified, the device objects must return to
# their baseline and the module must unload.  MROCE_T_INJECT_PARTS picks
# parts: live victim peer read_ack (all by default).
source "$(dirname "$0")/../lib.sh"

INJ=$SUITE_DIR/inject.py
CHECK=$SUITE_BIN/mroce_dpcheck
NEG=$SUITE_BIN/mroce_dpneg

verbs_prologue
$PY -c "import scapy.all" 2>/dev/null || ksft_skip_all "python3-scapy not installed"
dp_topo mm || ksft_skip_all "cannot build the mm topology"

objects() {
	cat /sys/class/infiniband/"$1"/metaroce_objects 2>/dev/null | tr '\n' ' '
}
cnt() {
	mroce_counter "$DEV1" "$1"
}
base1=$(objects "$DEV1")
base2=$(objects "$DEV2")

# Real traffic: mroce_dpcheck rounds until told to stop; each round's
# exit status is kept.
STOP=$DP_LOGS/inject.stop
RCS=$DP_LOGS/inject.rcs
: >"$RCS"
traffic() {
	local i=0
	while [ ! -e "$STOP" ]; do
		i=$((i + 1))
		"$CHECK" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 3000 \
			>"$DP_LOGS/inject-dpcheck-$i.log" 2>&1
		echo "$i $?" >>"$RCS"
	done
}
traffic &
tpid=$!
defer "touch $STOP; kill $tpid"

# Every class of bad packet at the live QP, each checked against its
# counter by inject.py (EXPECT there), three rounds of packets each.
live() {
	ip netns exec "$NS2" nice -n 10 $PY "$INJ" --src $DP_IP2 --dst $DP_IP1 --live "$DEV1" \
		--count 3 short_bth short_hdr bad_icrc csum_zero csum_good \
		bad_opcode no_qp bad_pad bad_tver bad_pkey far_psn \
		>"$DP_LOGS/inject-live.log" 2>&1
	while read -r line; do
		case $line in
		"ok "*) t_pass "${line#ok }" ;;
		"not ok "*) t_fail "${line#not ok }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$DP_LOGS/inject-live.log"
	grep -q "^ok \|^not ok " "$DP_LOGS/inject-live.log" ||
		{ t_fail "inject.py --live"; tail -n 5 "$DP_LOGS/inject-live.log" | sed 's/^/#   /'; }
}

# victim_start KIND: a victim QP of mroce_dpneg -V KIND on DEV1 (a coproc
# that waits for a line on its stdin: Python starts slowly under TCG).
# Sets VLOG and the injector's arguments VARGS (--qpn --psn --rkey --va
# --len) from the line it prints; fails when none comes.
victim_start() {
	local kv
	VLOG=$DP_LOGS/victim-$1.log
	# Appending, both: the injector's lines go to the same file.
	: >"$VLOG"
	coproc VICTIM { nice -n 10 "$NEG" -a "$DEV1" -g "$G1" -b "$DEV2" \
		-G "$G2" -V "$1" >>"$VLOG" 2>&1; }
	VPID=$VICTIM_PID
	if ! busywait 30000 grep -q "^victim " "$VLOG"; then
		kill $VPID
		return 1
	fi
	VARGS=()
	for kv in $(grep "^victim " "$VLOG" | cut -d' ' -f2-); do
		VARGS+=("--${kv%%=*}" "${kv#*=}")
	done
}

# victim_end DESC: tell the victim to check, report what it says.
victim_end() {
	echo go >&"${VICTIM[1]}"
	wait $VPID
	if grep -q "^ok victim_" "$VLOG"; then
		t_pass "$1"
	else
		t_fail "$1: $(grep victim_ "$VLOG")"
		tail -n 3 "$VLOG" | sed 's/^/#   /'
		echo "#   after: $(dp_counters "$DEV1")"
	fi
}

# Well-formed requests at the expected PSN, to a victim QP, from the peer:
# only that QP goes to ERR, with one NAK, and memory is left alone.
victim() {
	local kind=$1 class=$2 naks
	victim_start "$kind" || { t_fail "victim $kind: no victim QP"; return; }
	naks=$(cnt tx_naks)
	ip netns exec "$NS2" nice -n 10 $PY "$INJ" --src $DP_IP2 --dst $DP_IP1 \
		"${VARGS[@]}" "$class" >>"$VLOG" 2>&1
	victim_end "$class at the expected PSN: victim QP in ERR, memory intact"
	t_check "$class: one NAK" test $(($(cnt tx_naks) - naks)) -ge 1
}
part() {
	[[ " ${MROCE_T_INJECT_PARTS:-live victim peer read_ack} " == *" $1 "* ]]
}
part live && live
if part victim; then
	victim write reth_overrun
	victim send send_too_long
fi

# Peer identity: a third host, NS3, reaches DEV1 through NS2 (a router),
# and forges packets with the victim's QPN, PSN and R_Key from its own
# address and from a spoofed one; NS2, the connected peer, sends one to an
# address of NS1 that is not the QP's.  Every packet is dropped and counted
# (rx_drop_peer), the victim sees nothing, its QP stays in RTS.
NS3=$(uname_of c)
DP_IP3=198.51.100.2
new_netns "$NS3" && veth_pair "${NS3}v" "$NS3" "${NS3}w" "$NS2" &&
	ip -n "$NS3" addr add $DP_IP3/24 dev "${NS3}v" &&
	ip -n "$NS3" route add default via 198.51.100.1 &&
	ip -n "$NS2" addr add 198.51.100.1/24 dev "${NS3}w" &&
	ip netns exec "$NS2" sysctl -qw net.ipv4.ip_forward=1 &&
	ip -n "$NS1" route add 198.51.100.0/24 via $DP_IP2 &&
	ip -n "$NS1" addr add 192.0.2.11/24 dev "$V1" ||
	ksft_skip_all "cannot build the third host"
for ns in "$NS1" "$NS2"; do
	for c in all default; do
		ip netns exec "$ns" sysctl -qw net.ipv4.conf.$c.rp_filter=0
	done
done
peer() {
	local kind=$1 drops before
	shift
	victim_start "peer_$kind" || { t_fail "victim peer_$kind: no victim QP"; return; }
	before=$(cnt rx_drop_peer)
	ip netns exec "$NS3" nice -n 10 $PY "$INJ" --src $DP_IP3 --dst $DP_IP1 \
		"${VARGS[@]}" "$@" >>"$VLOG" 2>&1
	ip netns exec "$NS3" nice -n 10 $PY "$INJ" --src 198.51.100.77 \
		--dst $DP_IP1 "${VARGS[@]}" "$@" >>"$VLOG" 2>&1
	ip netns exec "$NS2" nice -n 10 $PY "$INJ" --src $DP_IP2 \
		--dst 192.0.2.11 "${VARGS[@]}" "$@" >>"$VLOG" 2>&1
	drops=$(awk '$1 ~ /^forged_/ { n += $2 } END { print n + 0 }' "$VLOG")
	victim_end "$kind victim: $* from a third host, spoofed, to another address: nothing done"
	t_check "$kind: the $drops forged packets counted in rx_drop_peer" \
		test $(($(cnt rx_drop_peer) - before)) -ge "$drops"
}
if part peer; then
	peer rc forged_rc_send forged_rc_write forged_ack
	peer uc forged_uc_send forged_uc_write
fi

# ACKs inside a READ: DEV1 READs 16 packets from DEV2 whose packets netem
# holds back 5 s; meanwhile ACKs for PSNs inside the READ, forged from
# DEV2's address, reach DEV1 at once (sent in NS1, they go through lo).
# They must not count as acknowledgements: the READ completes with every
# byte of DEV2's region.
read_ack() {
	local ready=$DP_LOGS/inject.go ilog=$DP_LOGS/inject-read-ack.log ipid psn seq0 t0 ms
	rm -f "$ready"
	victim_start read_ack || { t_fail "victim read_ack: no victim QP"; return; }
	psn=$(printf '0x%x' $((0x101)))
	# Not niced: on a busy host it must send within the responses' delay.
	ip netns exec "$NS1" $PY "$INJ" --src $DP_IP2 --dst $DP_IP1 \
		"${VARGS[@]}" --psn "$psn" --local --wait "$ready" forged_ack >"$ilog" 2>&1 &
	ipid=$!
	busywait 60000 grep -q '^ready' "$ilog" || t_fail "read_ack: injector not ready"
	seq0=$(cnt rx_drop_seq)
	echo "#   $DEV1 before read_ack: $(dp_counters "$DEV1")"
	ip netns exec "$NS2" tc qdisc add dev "$V2" root netem delay 5000ms
	echo go >&"${VICTIM[1]}"
	busywait 5000 grep -q '^posted' "$VLOG"
	sleep 0.2
	t0=$(date +%s%N)
	touch "$ready"
	busywait 10000 grep -q '^forged_ack' "$ilog"
	ms=$((($(date +%s%N) - t0) / 1000000))
	wait $ipid
	wait $VPID
	ip netns exec "$NS2" tc qdisc del dev "$V2" root
	# The ACKs count only if they came before the held-back responses.
	t_check "read_ack: the forged ACKs were out within 4.5 s (${ms} ms)" \
		test "$ms" -lt 4500
	if grep -q "^ok victim_read_ack" "$VLOG"; then
		t_pass "forged ACKs inside an outstanding READ are ignored, data verified"
	else
		t_fail "forged ACKs inside a READ: $(grep victim_ "$VLOG")"
		sed 's/^/#   inj: /' "$ilog"
	fi
	echo "#   $DEV1 after read_ack: $(dp_counters "$DEV1")"
	t_check "read_ack: the 4 forged ACKs arrived and were counted in rx_drop_seq" \
		test $(($(cnt rx_drop_seq) - seq0)) -ge 4
}

touch "$STOP"
wait $tpid
rounds=$(wc -l <"$RCS")
bad=$(awk '$2 != 0' "$RCS" | wc -l)
if [ "$rounds" -gt 0 ] && [ "$bad" -eq 0 ]; then
	t_pass "real traffic: $rounds mroce_dpcheck rounds, data verified"
else
	t_fail "real traffic: $bad of $rounds mroce_dpcheck rounds failed"
	grep -h FAIL "$DP_LOGS"/inject-dpcheck-*.log | head -5 | sed 's/^/#   /'
fi
echo "# $DEV1: $(dp_counters "$DEV1")"
# After the real traffic: the delay it needs would stall that traffic.
part read_ack && read_ack

objects_are() {
	[ "$(objects "$1")" = "$2" ]
}
t_check "$DEV1 objects back to baseline" busywait 5000 objects_are "$DEV1" "$base1"
t_check "$DEV2 objects back to baseline" busywait 5000 objects_are "$DEV2" "$base2"
rdma link del "$DEV1" && rdma link del "$DEV2"
t_check "metaroce unloads" rmmod metaroce
t_done
