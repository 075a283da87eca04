#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Zero-copy transmit and paged receive between two MetaRoCE devices.
# An RC request or READ response whose payload comes from a user memory
# region of at least tx_zcopy bytes (module parameter, default 256) leaves
# with the region's pages attached to the skb by reference, the pad and
# ICRC in a trailer fragment (counter tx_zcopy_packets); the receiving
# device takes such a packet as it arrives, payload in page fragments,
# without linearizing it (counter rx_paged_packets).  Checked here:
#  - mroce_dpcheck (random lengths up to 96 KiB, random offsets, 1-4 SGEs
#    over two regions, inline, every RC opcode; data compared) over IPv4
#    and IPv6 with zero-copy on: both counters climb on both devices;
#  - READ only: the responder's READ responses leave by reference;
#  - tx_zcopy=0, and a veth without scatter-gather (ethtool -K sg off):
#    every packet is copied again (tx_zcopy_packets still), data checked;
#  - a sender killed while its packets, whose pages belong to its memory
#    regions, wait in a netem queue: the process exits, its regions are
#    deregistered and unpinned, then the packets leave and are received
#    (the skbs hold their own page references), and the module unloads
#    (the runner fails the run on any kernel report).
source "$(dirname "$0")/../lib.sh"

BIN=$SUITE_BIN/mroce_dpcheck
PARAM=/sys/module/metaroce/parameters/tx_zcopy
dp_setup mm ib_write_bw
build_c_tests
if [ ! -w "$PARAM" ]; then
	t_fail "metaroce has a writable tx_zcopy parameter"
	t_done
fi
orig=$(cat "$PARAM")
defer "echo $orig >$PARAM"

cnt() { mroce_counter "$@"; }
# snap: the four counters of interest, "tx1 rx1 tx2 rx2".
snap() {
	echo "$(cnt "$DEV1" tx_zcopy_packets) $(cnt "$DEV1" rx_paged_packets)" \
		"$(cnt "$DEV2" tx_zcopy_packets) $(cnt "$DEV2" rx_paged_packets)"
}
# cnt_cmp OP BEFORE AFTER IDX...: each listed counter (1-4) of AFTER stands in
# relation OP (test's -gt, -eq) to the same one of BEFORE.
cnt_cmp() {
	local op=$1 i
	local -a b=($2) a=($3)
	shift 3
	for i in "$@"; do
		[ "${a[i - 1]}" "$op" "${b[i - 1]}" ] || return 1
	done
}
grew() { cnt_cmp -gt "$@"; }
same() { cnt_cmp -eq "$@"; }

t_check "tx_zcopy_packets and rx_paged_packets exist" \
	test -n "$(cnt "$DEV1" tx_zcopy_packets)" -a \
	-n "$(cnt "$DEV1" rx_paged_packets)"
echo 256 >"$PARAM"

for fam in v4 v6; do
	if [ $fam = v4 ]; then g1=$G1 g2=$G2; else g1=$G1_6 g2=$G2_6; fi
	b=$(snap)
	t_check "$fam: dpcheck, 150 random WRs, zero-copy on, data verified" \
		timeout 300 "$BIN" -a "$DEV1" -g "$g1" -b "$DEV2" -G "$g2" -n 150 -s 7
	a=$(snap)
	echo "# $fam: counters tx1 rx1 tx2 rx2 before: $b, after: $a"
	t_check "$fam: both devices sent by reference and received paged" \
		grew "$b" "$a" 1 2 3 4
done

b=$(snap)
t_check "READ only: dpcheck -o read, data verified" \
	timeout 300 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 60 -s 9 -o read
a=$(snap)
echo "# read: before: $b, after: $a"
t_check "READ only: responses left by reference and arrived paged" \
	grew "$b" "$a" 1 2 3 4

echo 0 >"$PARAM"
b=$(snap)
t_check "tx_zcopy=0: dpcheck, data verified" \
	timeout 300 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 60 -s 11
a=$(snap)
echo "# tx_zcopy=0: before: $b, after: $a"
t_check "tx_zcopy=0: nothing sent by reference or received paged" \
	same "$b" "$a" 1 2 3 4
echo 256 >"$PARAM"

ns_exec "$NS1" ethtool -K "$V1" sg off >/dev/null 2>&1
if ns_exec "$NS1" ethtool -k "$V1" | grep -q '^scatter-gather: off'; then
	b=$(snap)
	t_check "veth without scatter-gather: dpcheck, data verified" \
		timeout 300 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 60 -s 13
	a=$(snap)
	echo "# sg off on $V1: before: $b, after: $a"
	t_check "sg off: $DEV1 copies, $DEV2 still sends by reference" \
		eval 'same "$b" "$a" 1 4 && grew "$b" "$a" 2 3'
	ns_exec "$NS1" ethtool -K "$V1" sg on >/dev/null 2>&1
else
	t_skip "veth without scatter-gather" "ethtool cannot turn sg off on $V1"
fi

# Pages in flight after their owner is gone: netem holds the sender's
# packets for 2 s, long enough for the killed process to exit and its
# QP and regions to be destroyed (regions unpinned) while they wait.
ns_exec "$NS1" tc qdisc add dev "$V1" root netem delay 2000ms limit 100000 ||
	ksft_skip_all "no netem"
P=$((T_PORT + 36))
log=$DP_LOGS/zc-kill
b=$(snap)
ns_exec "$NS2" timeout 60 ib_write_bw -d "$DEV2" -x "$G2" -F -s 65536 \
	-n 100000 -p $P >"$log.server" 2>&1 &
spid=$!
busywait 5000 tcp_listening "$NS2" $P
ns_exec "$NS1" timeout 60 ib_write_bw -d "$DEV1" -x "$G1" -F -s 65536 \
	-n 100000 -p $P $DP_IP2 >"$log.client" 2>&1 &
cpid=$!
# Until WRITEs are queued in netem, then kill the sender outright.
busywait 20000 eval '[ "$(cnt "$DEV1" tx_zcopy_packets)" -gt $(( ${b%% *} + 200 )) ]'
pkill -9 -f "ib_write_bw -d $DEV1" 2>/dev/null
wait $cpid 2>/dev/null
r0=$(cnt "$DEV2" rx_paged_packets)
qps=$(rdma res show qp link "$DEV1/1" 2>/dev/null | grep -c 'type RC')
queued=$(ns_exec "$NS1" tc -s qdisc show dev "$V1" |
	grep -o 'backlog [0-9]*b [0-9]*p' | head -1)
echo "# sender gone, $qps RC QPs left on $DEV1, netem still holds: $queued"
t_check "sender killed and its QP destroyed with packets still in netem" \
	eval '[ "$qps" = 0 ] && [ -n "$queued" ] && [ "${queued##* }" != 0p ]'
sleep 4
r1=$(cnt "$DEV2" rx_paged_packets)
echo "# $DEV2 rx_paged_packets when the sender was gone: $r0, 4 s later: $r1"
t_check "the queued packets arrived after their sender died" \
	test "$r1" -gt "$r0"
kill $spid 2>/dev/null
wait $spid 2>/dev/null
ns_exec "$NS1" tc qdisc del dev "$V1" root
t_check "devices still answer: dpcheck after the kill, data verified" \
	timeout 300 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 20 -s 15
t_done
