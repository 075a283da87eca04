#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Transport mode negotiation of RC connections (Documentation/wire.rst,
# "Negotiation and versions"), with unmodified ibv_rc_pingpong (-c: the
# received data is checked) and `rdma res show qp -dd`:
#   DP_TOPO=mm (default), MetaRoCE <-> MetaRoCE:
#   - policy auto on both ends: both QPs end in mode metaroce, and the
#     switch PSN each requester chose (mode-tx-psn) is the one the other
#     end's responder found (mode-rx-psn);
#   - policy roce on one end: both QPs stay roce, and a capture shows no
#     packet from that end with a mark bit set (the other end's are marked);
#   - policy metaroce on one end, auto on the other: metaroce;
#   - rping through rdma_cm, auto on both: metaroce agreed through ECE
#     (mode-peer ece), same switch PSNs; roce on one end: roce;
#   - the sysfs policy refuses a bad value (EINVAL, a kernel message) and
#     keeps the old one.
#   DP_TOPO=mx, MetaRoCE <-> rdma_rxe (nego_rxe.sh):
#   - policy auto, each end as server: data checked, the MetaRoCE QP stays
#     roce (peer roce), rxe's rcvd_pkts grew by exactly the packets
#     MetaRoCE sent and its error counters did not move; rping through
#     rdma_cm (rxe offers no ECE): MetaRoCE stays roce;
#   - policy metaroce, each end as client: the connection fails cleanly,
#     the MetaRoCE end with an error completion (bad response error as
#     requester, or WR flushed error once it has NAKed a request of the
#     peer) within seconds.
source "$(dirname "$0")/../lib.sh"

topo=${DP_TOPO:-mm}
dp_setup "$topo" ibv_rc_pingpong
command -v tcpdump >/dev/null || ksft_skip_all "tcpdump not installed"
P=$T_PORT
POL1=/sys/class/infiniband/$DEV1/metaroce_mode_policy
defer "echo auto >$POL1"
if [ "$topo" = mm ]; then
	POL2=/sys/class/infiniband/$DEV2/metaroce_mode_policy
	defer "echo auto >$POL2"
fi


# sampler: the last RC QP lines of both devices in RTS, into the q1 and q2
# files, until killed (the QPs die with the tools).  It does not sleep
# until it has seen both: on a slow machine one listing takes a large part
# of a short connection's life.
sampler() {
	local a b
	while :; do
		a=$(dp_rc_rts "$DEV1")
		[ -n "$a" ] && echo "$a" >"$DP_LOGS/q1.new" && mv "$DP_LOGS/q1.new" "$DP_LOGS/q1"
		b=$(dp_rc_rts "$DEV2")
		[ -n "$b" ] && echo "$b" >"$DP_LOGS/q2.new" && mv "$DP_LOGS/q2.new" "$DP_LOGS/q2"
		[ -s "$DP_LOGS/q1" ] && [ -s "$DP_LOGS/q2" ] && sleep 0.05
	done
}

# sampled DESC PORT SERVER_SIDE SERVER_CMD... -- CLIENT_CMD...: cs_run
# while the sampler runs; Q1 and Q2 hold the QPs' last attributes.
sampled() {
	local spid
	rm -f "$DP_LOGS/q1" "$DP_LOGS/q2"
	sampler &
	spid=$!
	cs_run "$1" "$2" "$3" 120 "${@:4}"
	kill "$spid"
	wait "$spid" 2>/dev/null
	Q1=$(cat "$DP_LOGS/q1" 2>/dev/null)
	Q2=$(cat "$DP_LOGS/q2" 2>/dev/null)
	echo "#   $DEV1 qp: $(grep -o ' drv_mode .*' <<<"$Q1")"
	echo "#   $DEV2 qp: $(grep -o ' drv_mode .*' <<<"$Q2")"
}

# pp DESC SERVER_SIDE ITERS: ibv_rc_pingpong (1 KiB, data checked), sampled.
pp() {
	sampled "$1" $P "$2" \
		ibv_rc_pingpong -d {DEV} -g {GID} -s 1024 -n "$3" -c -- \
		ibv_rc_pingpong -d {DEV} -g {GID} -s 1024 -n "$3" -c {PEER}
}

# rp DESC SERVER_SIDE COUNT: rping through rdma_cm (4 KiB, data checked),
# sampled.
rp() {
	sampled "$1" cm:7174 "$2" \
		rping -s -V -C "$3" -S 4096 -a {PEER} -- \
		rping -c -V -C "$3" -S 4096 -a {PEER}
}

# expect DESC LINE NAME VALUE
expect() {
	local v
	v=$(dp_qp_attr "$2" "$3")
	if [ "$v" = "$4" ]; then
		t_pass "$1: $3 $4"
	else
		t_fail "$1: $3 is '$v', not '$4'"
	fi
}

# same_psn DESC A B: two non-empty, equal PSNs.
same_psn() {
	if [ -n "$2" ] && [ "$2" = "$3" ]; then
		t_pass "$1 ($2)"
	else
		t_fail "$1 ('$2' vs '$3')"
	fi
}

# marked_from PCAP IP: packets from IP whose BTH byte 8 has a mark bit
# (UDP header 8 bytes, BTH byte 8: udp[16]; IPv4 only).
marked_from() {
	tcpdump -nr "$1" "src host $2 and udp dst port 4791 and (udp[16] & 0x7f) != 0" 2>/dev/null | wc -l
}

from() {
	tcpdump -nr "$1" "src host $2 and udp dst port 4791" 2>/dev/null | wc -l
}

# fail_run DESC SERVER_SIDE WANT1 WANT2: a connection between side 1 with
# policy metaroce and rxe (side 2).  Side 1's tool must fail with WANT1 in
# its output and, when WANT2 is given, rxe's with WANT2, both within 20 s
# (a server that saw its client fail is stopped then).
fail_run() {
	local desc=$1 sside=$2 want1=$3 want2=$4 s=(NS1 DEV1 G1) c=(NS2 DEV2 G2) peer=$DP_IP1
	local log1=$DP_LOGS/fail-1.log log2=$DP_LOGS/fail-2.log slog clog pid1 pid2 rc1 rc2 t0 before
	[ "$sside" = 2 ] && s=(NS2 DEV2 G2) c=(NS1 DEV1 G1) peer=$DP_IP2
	if [ "$sside" = 1 ]; then slog=$log1 clog=$log2; else slog=$log2 clog=$log1; fi
	before=$(mroce_counter "$DEV1" rx_drop_unmarked)
	t0=$(date +%s)
	ns_exec "${!s[0]}" timeout 60 ibv_rc_pingpong -d "${!s[1]}" -g "${!s[2]}" -s 1024 -n 10 >"$slog" 2>&1 &
	local spid=$!
	busywait 5000 tcp_listening "${!s[0]}" $P
	ns_exec "${!c[0]}" timeout 60 ibv_rc_pingpong -d "${!c[1]}" -g "${!c[2]}" -s 1024 -n 10 "$peer" >"$clog" 2>&1 &
	local cpid=$!
	if [ "$sside" = 1 ]; then pid1=$spid pid2=$cpid; else pid1=$cpid pid2=$spid; fi
	wait "$pid1"
	rc1=$?
	t1=$(( $(date +%s) - t0 ))
	if [ -n "$want2" ]; then
		busywait 20000 sh -c "! kill -0 $pid2 2>/dev/null"
	fi
	kill "$pid2" 2>/dev/null
	wait "$pid2"
	rc2=$?
	t2=$(( $(date +%s) - t0 ))
	echo "#   MetaRoCE end: exit $rc1 after $t1 s: $(grep -i fail "$log1" | head -n 1)"
	echo "#   rxe end: exit $rc2 after $t2 s: $(grep -i fail "$log2" | head -n 1)"
	t_check "$desc: MetaRoCE end fails with '$want1' within 20 s" \
		sh -c "grep -Eq '$want1' '$log1' && [ $rc1 -ne 0 ] && [ $rc1 -ne 124 ] && [ $t1 -le 20 ]"
	[ -n "$want2" ] &&
		t_check "$desc: rxe end fails with '$want2' within 20 s" \
			sh -c "grep -Eq '$want2' '$log2' && [ $rc2 -ne 0 ] && [ $t2 -le 20 ]"
	t_check "$desc: rx_drop_unmarked counted the peer's packet" \
		test "$(mroce_counter "$DEV1" rx_drop_unmarked)" -gt "$before"
}

# rxe counters that move when it rejects or loses what MetaRoCE sent (not
# completer_retry_err: rxe's own retransmission timer, which fires on a
# clean path too under TCG).
RXE_ERRS="out_of_seq_request rcvd_seq_err retry_exceeded_err send_err"

if [ "$topo" = mm ]; then
	pp "auto <-> auto" 2 10000
	for q in Q1 Q2; do
		expect "auto <-> auto, $q" "${!q}" mode metaroce
		expect "auto <-> auto, $q" "${!q}" mode-peer marked
		expect "auto <-> auto, $q" "${!q}" mode-ver 1
	done
	same_psn "auto <-> auto: $DEV1's switch PSN is the one $DEV2 found" \
		"$(dp_qp_attr "$Q1" mode-tx-psn)" "$(dp_qp_attr "$Q2" mode-rx-psn)"
	same_psn "auto <-> auto: $DEV2's switch PSN is the one $DEV1 found" \
		"$(dp_qp_attr "$Q2" mode-tx-psn)" "$(dp_qp_attr "$Q1" mode-rx-psn)"

	if command -v rping >/dev/null; then
		# rdma_cm carries the ECE offer in its REQ and the answer in
		# its REP: both ends know before the first packet.
		rp "rping, auto <-> auto" 2 1000
		for q in Q1 Q2; do
			expect "rping, auto <-> auto, $q" "${!q}" mode metaroce
			expect "rping, auto <-> auto, $q" "${!q}" mode-peer ece
		done
		same_psn "rping: $DEV1's switch PSN is the one $DEV2 found" \
			"$(dp_qp_attr "$Q1" mode-tx-psn)" "$(dp_qp_attr "$Q2" mode-rx-psn)"
		same_psn "rping: $DEV2's switch PSN is the one $DEV1 found" \
			"$(dp_qp_attr "$Q2" mode-tx-psn)" "$(dp_qp_attr "$Q1" mode-rx-psn)"
		echo roce >"$POL2"
		rp "rping, auto <-> roce" 2 1000
		expect "rping, auto <-> roce, $DEV1" "$Q1" mode roce
		expect "rping, auto <-> roce, $DEV2" "$Q2" mode roce
		echo auto >"$POL2"
	else
		t_skip "rping, auto <-> auto" "rping not installed"
	fi

	echo roce >"$POL2"
	pcap=$DP_LOGS/roce.pcap
	ns_exec "$NS1" tcpdump -i "$V1" -s 96 -U -w "$pcap" udp port 4791 2>/dev/null &
	tpid=$!
	busywait 5000 test -s "$pcap"
	pp "auto <-> roce" 1 10000
	sleep 1
	kill "$tpid"
	wait "$tpid" 2>/dev/null
	expect "auto <-> roce, $DEV1" "$Q1" mode roce
	expect "auto <-> roce, $DEV1" "$Q1" mode-peer roce
	expect "auto <-> roce, $DEV2" "$Q2" mode roce
	expect "auto <-> roce, $DEV2" "$Q2" mode-policy roce
	expect "auto <-> roce, $DEV2" "$Q2" mode-peer marked
	n2=$(from "$pcap" "$DP_IP2")
	m2=$(marked_from "$pcap" "$DP_IP2")
	m1=$(marked_from "$pcap" "$DP_IP1")
	echo "#   captured from $DEV2: $n2 packets, $m2 marked; marked from $DEV1: $m1"
	t_check "policy roce: $DEV2 sent packets, none marked" test "$n2" -gt 0 -a "$m2" -eq 0
	t_check "policy auto: $DEV1's packets are marked" test "$m1" -gt 0

	echo metaroce >"$POL2"
	pp "auto <-> metaroce" 2 10000
	expect "auto <-> metaroce, $DEV1" "$Q1" mode metaroce
	expect "auto <-> metaroce, $DEV2" "$Q2" mode metaroce
	expect "auto <-> metaroce, $DEV2" "$Q2" mode-policy metaroce
	echo auto >"$POL2"

	err=$(bash -c "echo bogus >$POL1" 2>&1)
	case $err in
	*"Invalid argument"*) t_pass "sysfs: 'bogus' is refused ($err)" ;;
	*) t_fail "sysfs: 'bogus' is not refused with EINVAL: '$err'" ;;
	esac
	t_check "sysfs: the policy is still auto" grep -qx auto "$POL1"
	t_check "sysfs: the kernel says why" sh -c "dmesg | tail -n 20 | grep -q 'metaroce_mode_policy: .bogus. is not one of auto, roce, metaroce'"
	t_check "sysfs: 'roce' is taken" sh -c "echo roce >$POL1 && grep -qx roce $POL1 && echo auto >$POL1"
else
	for side in 2 1; do
		declare -A b
		for c in rcvd_pkts sent_pkts $RXE_ERRS; do b[$c]=$(mroce_counter "$DEV2" "$c"); done
		tx0=$(mroce_counter "$DEV1" tx_packets)
		rx0=$(mroce_counter "$DEV1" rx_packets)
		pp "auto <-> rxe, server on side $side" $side 10000
		expect "auto <-> rxe, $DEV1" "$Q1" mode roce
		expect "auto <-> rxe, $DEV1" "$Q1" mode-peer roce
		t_check "auto <-> rxe: no switch PSN on $DEV1" test -z "$(dp_qp_attr "$Q1" mode-tx-psn)$(dp_qp_attr "$Q1" mode-rx-psn)"
		tx=$(( $(mroce_counter "$DEV1" tx_packets) - tx0 ))
		rx=$(( $(mroce_counter "$DEV1" rx_packets) - rx0 ))
		rr=$(( $(mroce_counter "$DEV2" rcvd_pkts) - b[rcvd_pkts] ))
		rs=$(( $(mroce_counter "$DEV2" sent_pkts) - b[sent_pkts] ))
		echo "#   $DEV1 sent $tx packets (policy auto: marked), rxe received $rr; rxe sent $rs, $DEV1 received $rx"
		t_check "auto <-> rxe, server on side $side: rxe received every packet MetaRoCE sent" test "$tx" -gt 0 -a "$rr" -eq "$tx"
		errs=""
		for c in $RXE_ERRS; do
			[ "$(mroce_counter "$DEV2" "$c")" = "${b[$c]}" ] || errs+=" $c"
		done
		t_check "auto <-> rxe, server on side $side: rxe error counters unchanged" test -z "$errs"
	done
	if command -v rping >/dev/null; then
		rp "rping, auto <-> rxe" 2 1000
		expect "rping, auto <-> rxe, $DEV1" "$Q1" mode roce
		expect "rping, auto <-> rxe, $DEV1" "$Q1" mode-peer roce
	fi
	echo metaroce >"$POL1"
	# Which of rxe's packets comes first, the ACK of our SEND (we fail
	# with a bad response) or its own SEND (we NAK it, rxe fails with an
	# invalid request, our SEND is flushed), is up to rxe's tasks.
	fail_run "forced metaroce -> rxe (client)" 2 \
		"Failed status (bad response error|Work Request Flushed Error)"
	fail_run "rxe -> forced metaroce (server)" 1 "Failed status Work Request Flushed Error" \
		"Failed status remote invalid request error"
	echo auto >"$POL1"
fi
echo "# $DEV1: $(dp_counters "$DEV1")"
[ "$topo" = mm ] && echo "# $DEV2: $(dp_counters "$DEV2")"
t_done
