#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The UDP checksum in place of the ICRC between MetaRoCE peers
# (Documentation/wire.rst, "Integrity: UDP checksum instead of ICRC").
#   DP_TOPO=mm (default), MetaRoCE <-> MetaRoCE:
#   - the sysfs switch metaroce_udp_csum is 1 by default and refuses a bad
#     value (EINVAL) keeping the old one;
#   - both ends offer it (policy auto): ibv_rc_pingpong -c in metaroce mode,
#     data checked; `rdma res show qp -dd` says integrity udp-csum at both
#     ends; both devices count packets sent and accepted on the UDP
#     checksum and no ICRC drop; a capture shows packets of both ends with
#     the option bit, a non-zero UDP checksum and a zeroed ICRC field;
#   - mroce_dpcheck (every RC opcode, random lengths, zero-copy fragments;
#     data compared) and ib_write_bw 64 KiB over it; a pingpong over the
#     IPv6 GIDs;
#   - a veth without checksum offload (ethtool -K tx off): the sender sums
#     in software (tx_udp_csum_sw), the receiver still accepts, data checked;
#   - netem corrupting 2 % of one end's packets (copied payloads, so the
#     corruption can hit any byte): the UDP layer of the receiving namespace
#     drops them (InCsumErrors), none reaches the ICRC check, and the
#     pingpong still completes, data checked, by retransmission; the same
#     with the option off: the ICRC catches them (rx_drop_icrc);
#   - the option off on one end, or policy roce on one end: ICRC both ways,
#     no packet with a UDP checksum in the capture.
#   DP_TOPO=mx, MetaRoCE <-> rdma_rxe (udp_csum_rxe.sh): the option is on
#   but rxe does not offer it: MetaRoCE sends ICRC packets with a zero UDP
#   checksum only, data checked, rxe's error counters unchanged.
source "$(dirname "$0")/../lib.sh"

topo=${DP_TOPO:-mm}
dp_setup "$topo" ibv_rc_pingpong
build_c_tests
command -v tcpdump >/dev/null || ksft_skip_all "tcpdump not installed"
P=$T_PORT
CS1=/sys/class/infiniband/$DEV1/metaroce_udp_csum
[ -w "$CS1" ] || { t_fail "$DEV1 has a writable metaroce_udp_csum"; t_done; }
defer "echo 1 >$CS1"
if [ "$topo" = mm ]; then
	CS2=/sys/class/infiniband/$DEV2/metaroce_udp_csum
	POL1=/sys/class/infiniband/$DEV1/metaroce_mode_policy
	defer "echo 1 >$CS2"
	defer "echo auto >$POL1"
fi
ZC=/sys/module/metaroce/parameters/tx_zcopy
zc_orig=$(cat "$ZC")
defer "echo $zc_orig >$ZC"

cnt() { mroce_counter "$@"; }
# snap DEV: "tx_udp_csum_packets tx_udp_csum_sw rx_udp_csum_packets
# rx_drop_icrc resends" of DEV, resends being retransmits (go-back-N,
# timeouts) plus sack_retransmits (selective repeat, metaroce mode).
snap() {
	echo "$(cnt "$1" tx_udp_csum_packets) $(cnt "$1" tx_udp_csum_sw)" \
		"$(cnt "$1" rx_udp_csum_packets) $(cnt "$1" rx_drop_icrc)" \
		"$(($(cnt "$1" retransmits) + $(cnt "$1" sack_retransmits)))"
}
# delta BEFORE AFTER IDX: counter IDX (1-5) of AFTER minus BEFORE.
delta() {
	local -a b=($1) a=($2)
	echo $(( a[$3 - 1] - b[$3 - 1] ))
}
# udp_csum_errors NS: InCsumErrors of the Udp MIB in NS.
udp_csum_errors() {
	ns_exec "$1" cat /proc/net/snmp |
		awk '/^Udp:/ { if (!h) { for (i = 1; i <= NF; i++) n[$i] = i; h = 1 }
			      else print $n["InCsumErrors"] }'
}

# Capture on side 1's veth while a command runs.
cap_start() {
	CAP=$DP_LOGS/$1.pcap
	# ip netns exec execs tcpdump: $! is tcpdump itself.
	ip netns exec "$NS1" tcpdump -i "$V1" -w "$CAP" -U udp port 4791 \
		>/dev/null 2>&1 &
	CAP_PID=$!
	busywait 5000 test -s "$CAP"
}
cap_stop() {
	sleep 0.5
	kill "$CAP_PID" 2>/dev/null
	wait "$CAP_PID" 2>/dev/null
}
# cap_count FILTER: packets of the capture that match a tcpdump filter.
cap_count() {
	tcpdump -nr "$CAP" "udp dst port 4791 and ($1)" 2>/dev/null | wc -l
}
# Packets from IP with the option bit and a UDP checksum (BTH byte 8 is
# udp[16]; the ICRC field is the last four bytes of the UDP payload).
CSUM_PKT='udp[6:2] != 0 and (udp[16] & 0x50) = 0x50'
ZERO_ICRC='udp[udp[4:2] - 4:4] = 0'

# pp NAME SERVER_SIDE ITERS SIZE: ibv_rc_pingpong, data checked.
pp() {
	pp_run "$1" "$2" 120 ibv_rc_pingpong -s "$4" -n "$3" -c
}

# integrity DEV: the integrity attribute of DEV's RC QP in RTS, polled
# while a long pingpong runs in the background (empty if none was seen).
integrity() {
	rdma -dd res show qp link "$1/1" 2>/dev/null |
		sed -e ':a' -e 'N' -e '$!ba' -e 's/\n[[:space:]]\+/ /g' |
		grep ' type RC state RTS ' |
		sed -n 's/.* drv_integrity \([^ ]*\).*/\1/p' | head -n 1
}
seen_integrity() { [ "$(integrity "$1")" = "$2" ]; }

# ---- MetaRoCE <-> rdma_rxe
if [ "$topo" = mx ]; then
	RXE_ERRS="out_of_seq_request rcvd_seq_err retry_exceeded_err send_err"
	declare -A rb
	for c in $RXE_ERRS; do rb[$c]=$(cnt "$DEV2" "$c"); done
	b1=$(snap "$DEV1")
	cap_start rxe
	for side in 2 1; do
		pp "rxe: ibv_rc_pingpong -s 4096, server on side $side" $side 100 4096
	done
	cap_stop
	a1=$(snap "$DEV1")
	echo "# $DEV1 counters before: $b1, after: $a1"
	t_check "rxe: $DEV1 sent nothing with the UDP checksum" \
		test "$(delta "$b1" "$a1" 1)" -eq 0 -a "$(delta "$b1" "$a1" 3)" -eq 0
	n=$(cap_count "src host $DP_IP1")
	z=$(cap_count "src host $DP_IP1 and udp[6:2] = 0")
	echo "# capture: $n packets from $DEV1, $z of them with a zero UDP checksum"
	t_check "rxe: every packet from $DEV1 has a zero UDP checksum (ICRC)" \
		test "$n" -gt 0 -a "$z" -eq "$n"
	errs=""
	for c in $RXE_ERRS; do
		[ "$(cnt "$DEV2" "$c")" = "${rb[$c]}" ] || errs+=" $c"
	done
	t_check "rxe: rxe error counters unchanged${errs:+ (moved:$errs)}" \
		test -z "$errs"
	t_done
fi

# ---- MetaRoCE <-> MetaRoCE
t_check "metaroce_udp_csum is 1 by default" test "$(cat "$CS1")" = 1
t_check_fail "metaroce_udp_csum refuses 'maybe'" sh -c "echo maybe >$CS1"
t_check "metaroce_udp_csum kept 1" test "$(cat "$CS1")" = 1

# Both offer: the attribute, sampled during a long pingpong that is
# stopped once both ends showed it (data is checked in the runs below).
# ip netns exec execs timeout, which passes the kill on to the pingpong.
ip netns exec "$NS2" timeout 90 ibv_rc_pingpong -d "$DEV2" -g "$G2" -s 1024 \
	-n 1000000 >"$DP_LOGS/attr-server.log" 2>&1 &
spid=$!
busywait 5000 tcp_listening "$NS2" $P
ip netns exec "$NS1" timeout 90 ibv_rc_pingpong -d "$DEV1" -g "$G1" -s 1024 \
	-n 1000000 $DP_IP2 >"$DP_LOGS/attr-client.log" 2>&1 &
cpid=$!
t_check "both offer: $DEV1 QP shows integrity udp-csum" \
	busywait 60000 seen_integrity "$DEV1" udp-csum
t_check "both offer: $DEV2 QP shows integrity udp-csum" \
	busywait 60000 seen_integrity "$DEV2" udp-csum
kill $cpid $spid 2>/dev/null
wait $cpid $spid 2>/dev/null
t_check "both offer: the sampled pingpong is gone" \
	busywait 10000 eval '[ -z "$(rdma res show qp link "$DEV1/1" 2>/dev/null | grep "type RC")" ]'

b1=$(snap "$DEV1") b2=$(snap "$DEV2")
cap_start both
pp "both offer: ibv_rc_pingpong -s 4096, server on side 2" 2 100 4096
cap_stop
a1=$(snap "$DEV1") a2=$(snap "$DEV2")
echo "# $DEV1: $b1 -> $a1; $DEV2: $b2 -> $a2 (tx_csum tx_sw rx_csum drop_icrc resends)"
t_check "both offer: both sent and accepted packets on the UDP checksum" \
	eval '[ $(delta "$b1" "$a1" 1) -gt 0 ] && [ $(delta "$b2" "$a2" 1) -gt 0 ] &&
	      [ $(delta "$b1" "$a1" 3) -gt 0 ] && [ $(delta "$b2" "$a2" 3) -gt 0 ]'
t_check "both offer: no ICRC drop, nothing summed in software (veth offloads)" \
	eval '[ $(delta "$b1" "$a1" 4) -eq 0 ] && [ $(delta "$b2" "$a2" 4) -eq 0 ] &&
	      [ $(delta "$b1" "$a1" 2) -eq 0 ] && [ $(delta "$b2" "$a2" 2) -eq 0 ]'
# The client (side 1) sends its first 4 KiB message, 4 packets at path MTU
# 1024, before it has heard the server's offer: those carry the ICRC.
for ip in $DP_IP1 $DP_IP2; do
	n=$(cap_count "src host $ip")
	c=$(cap_count "src host $ip and $CSUM_PKT and $ZERO_ICRC")
	echo "# capture: $n packets from $ip, $c with the option bit, a UDP checksum and a zero ICRC field"
	t_check "both offer: $ip sends with the UDP checksum and a zero ICRC field" \
		test "$c" -gt 0 -a "$c" -ge $(( n - 4 ))
done

b1=$(snap "$DEV1") b2=$(snap "$DEV2")
t_check "both offer: dpcheck, 60 random WRs (zero-copy fragments), data verified" \
	timeout 300 "$SUITE_BIN/mroce_dpcheck" -a "$DEV1" -g "$G1" -b "$DEV2" \
	-G "$G2" -n 60 -s 21
pt_run "both offer: ib_write_bw -s 65536" 2 120 ib_write_bw -s 65536 -n 300
a1=$(snap "$DEV1") a2=$(snap "$DEV2")
t_check "dpcheck, ib_write_bw: UDP checksum used, no ICRC drop" \
	eval '[ $(delta "$b1" "$a1" 1) -gt 0 ] && [ $(delta "$b2" "$a2" 3) -gt 0 ] &&
	      [ $(delta "$b1" "$a1" 4) -eq 0 ] && [ $(delta "$b2" "$a2" 4) -eq 0 ]'

b1=$(snap "$DEV1") b2=$(snap "$DEV2")
pp_run "both offer, IPv6 GIDs: ibv_rc_pingpong -s 4096, data checked" 2 120 \
	ibv_rc_pingpong -6 -s 4096 -n 50 -c
a1=$(snap "$DEV1") a2=$(snap "$DEV2")
t_check "IPv6: UDP checksum used both ways, no ICRC drop" \
	eval '[ $(delta "$b1" "$a1" 1) -gt 0 ] && [ $(delta "$b2" "$a2" 1) -gt 0 ] &&
	      [ $(delta "$b1" "$a1" 4) -eq 0 ] && [ $(delta "$b2" "$a2" 4) -eq 0 ]'

# No checksum offload on side 1's veth: summed in software.
ns_exec "$NS1" ethtool -K "$V1" tx off >/dev/null 2>&1
if ns_exec "$NS1" ethtool -k "$V1" | grep -q '^tx-checksumming: off'; then
	b1=$(snap "$DEV1") b2=$(snap "$DEV2")
	t_check "tx checksum offload off: dpcheck, data verified" \
		timeout 300 "$SUITE_BIN/mroce_dpcheck" -a "$DEV1" -g "$G1" \
		-b "$DEV2" -G "$G2" -n 40 -s 23
	a1=$(snap "$DEV1") a2=$(snap "$DEV2")
	echo "# $DEV1: $b1 -> $a1; $DEV2: $b2 -> $a2"
	t_check "tx offload off: $DEV1 sums in software, $DEV2 accepts them" \
		eval '[ $(delta "$b1" "$a1" 2) -gt 0 ] &&
		      [ $(delta "$b1" "$a1" 2) -eq $(delta "$b1" "$a1" 1) ] &&
		      [ $(delta "$b2" "$a2" 3) -gt 0 ] && [ $(delta "$b2" "$a2" 4) -eq 0 ]'
	ns_exec "$NS1" ethtool -K "$V1" tx on >/dev/null 2>&1
else
	t_skip "tx checksum offload off" "ethtool cannot turn tx off on $V1"
fi

# Corruption on side 1's egress.  Side 1 is the server: its first packet
# answers one of side 2's, so every packet it sends is checksum-only when
# both offer.  Copied payloads (tx_zcopy=0): netem corrupts a byte of the
# linear part, which then holds the whole packet.
dp_static_neigh
echo 0 >"$ZC"
ns_exec "$NS1" tc qdisc add dev "$V1" root netem corrupt 2% ||
	ksft_skip_all "no netem"
defer "ns_exec $NS1 tc qdisc del dev $V1 root 2>/dev/null"
# corrupt_run DESC: the pingpong; sets DCS (InCsumErrors in side 2's
# namespace), DICRC (DEV2's rx_drop_icrc) and DRETX (DEV1's resends).
corrupt_run() {
	local e0 e1 b1 a1 b2 a2
	e0=$(udp_csum_errors "$NS2") b1=$(snap "$DEV1") b2=$(snap "$DEV2")
	pp "$1: ibv_rc_pingpong 100 x 4 KiB completes, data checked" 1 100 4096
	e1=$(udp_csum_errors "$NS2") a1=$(snap "$DEV1") a2=$(snap "$DEV2")
	DCS=$(( e1 - e0 ))
	DICRC=$(delta "$b2" "$a2" 4)
	DRETX=$(delta "$b1" "$a1" 5)
	echo "# $1: UDP InCsumErrors +$DCS, $DEV2 rx_drop_icrc +$DICRC, $DEV1 resends +$DRETX, $DEV1 tx_udp_csum +$(delta "$b1" "$a1" 1)"
}
corrupt_run "corrupt 2%, both offer"
t_check "both offer: corrupted packets dropped on the UDP checksum, none reached the ICRC check" \
	test "$DCS" -gt 0 -a "$DICRC" -eq 0
t_check "both offer: lost packets were retransmitted" test "$DRETX" -gt 0
echo 0 >"$CS1"
corrupt_run "corrupt 2%, $DEV1 does not offer"
t_check "option off: corrupted packets dropped on the ICRC" \
	test "$DICRC" -gt 0 -a "$DICRC" -gt "$DCS"
ns_exec "$NS1" tc qdisc del dev "$V1" root
echo "$zc_orig" >"$ZC"

# icrc_run DESC CAPTURE: a pingpong (4 KiB, captured) after which no
# packet went or came with the UDP checksum on either end (ICRC both ways)
# and the capture holds no packet with a UDP checksum.
icrc_run() {
	local b1 b2 a1 a2

	b1=$(snap "$DEV1") b2=$(snap "$DEV2")
	cap_start "$2"
	pp "$1: ibv_rc_pingpong -s 4096" 2 50 4096
	cap_stop
	a1=$(snap "$DEV1") a2=$(snap "$DEV2")
	t_check "$1: ICRC both ways" \
		eval '[ $(delta "$b1" "$a1" 1) -eq 0 ] && [ $(delta "$b2" "$a2" 1) -eq 0 ] &&
		      [ $(delta "$b1" "$a1" 3) -eq 0 ] && [ $(delta "$b2" "$a2" 3) -eq 0 ]'
	t_check "$1: no packet with a UDP checksum in the capture" \
		test "$(cap_count 'udp[6:2] != 0')" -eq 0
}

# Option off on one end (side 2), then policy roce on side 1: ICRC both ways.
echo 1 >"$CS1"
echo 0 >"$CS2"
icrc_run "$DEV2 does not offer" off
echo 1 >"$CS2"
echo roce >"$POL1"
icrc_run "policy roce on $DEV1" roce
t_check "policy roce on $DEV1: none of its packets marked" \
	test "$(cap_count "src host $DP_IP1 and (udp[16] & 0x7f) != 0")" -eq 0
echo auto >"$POL1"
t_done
