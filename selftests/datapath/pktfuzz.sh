#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Packet fuzzing: mroce_pktfuzz sends mutated RoCEv2 packets (every RC, UC
# and UD opcode, with and without the MetaRoCE capability mark and the UDP
# checksum form), over IPv4 and then over IPv6 (the device's IPv6 GID), from
# the peer's namespace at MetaRoCE device 1 while
# mroce_dpcheck moves checked data over an RC and a UC connection between
# the two devices.  Aimed at its own victim QPs (PSNs around the expected
# one, the real R_Key), at the live QPs of mroce_dpcheck (only what the
# device must drop, or well-formed from a spoofed address) and at QPNs
# that do not exist.
#
# Checks: the fuzzer's own (every packet sent, no byte written outside the
# victims' regions, every victim back to RTS each epoch, victims executed
# well-formed requests); the real traffic completes with its data
# verified (so none of its QPs went to ERR); the accounting, from counters
# read with no traffic running:
#   - every UDP datagram the stack delivered reached the device and was
#     counted: delta Udp InDatagrams + Udp6 InDatagrams of namespace 1 ==
#     delta rx_packets;
#   - the packets the fuzzer sent with a wrong UDP checksum are the UDP
#     layers' InCsumErrors (IPv4 and IPv6), exactly (less any the backlog
#     dropped);
#   - rx_packets grew by at least what the fuzzer sent to the device, the
#     device's drop counters by at least the packets it had to drop, and
#     rx_drop_no_qp by at least those to QPNs that do not exist (less any
#     the backlog dropped, /proc/net/softnet_stat);
# then the device objects are back to baseline and the module unloads.
#
# MROCE_T_FUZZ_PACKETS (default 100000; IPv4), MROCE_T_FUZZ_PACKETS6
# (default half of it; IPv6) and MROCE_T_FUZZ_SEED (default random,
# printed; the IPv6 run uses SEED + 1) set the run; `make fuzz-vm
# PACKETS=N` runs it alone.
source "$(dirname "$0")/../lib.sh"

FUZZ=$SUITE_BIN/mroce_pktfuzz
DPC=$SUITE_BIN/mroce_dpcheck
PACKETS=${MROCE_T_FUZZ_PACKETS:-100000}
PACKETS6=${MROCE_T_FUZZ_PACKETS6:-$((PACKETS / 2))}
SEED=${MROCE_T_FUZZ_SEED:-$(( (RANDOM << 15) | RANDOM ))}

verbs_prologue
dp_topo mm || ksft_skip_all "cannot build the mm topology"
for c in all default; do
	ip netns exec "$NS1" sysctl -qw net.ipv4.conf.$c.rp_filter=0
done

objects() {
	cat /sys/class/infiniband/"$1"/metaroce_objects 2>/dev/null | tr '\n' ' '
}
cnt() {
	mroce_counter "$DEV1" "$1"
}
# udp NAME: a field of the Udp line of namespace 1's /proc/net/snmp plus
# the same of Udp6 (/proc/net/snmp6: Udp6NAME).
udp() {
	local v4 v6
	v4=$(ip netns exec "$NS1" awk -v f="$1" '$1 == "Udp:" {
		if (!n) { for (i = 2; i <= NF; i++) col[$i] = i; n = 1; next }
		print $col[f] }' /proc/net/snmp)
	v6=$(ip netns exec "$NS1" awk -v f="Udp6$1" '$1 == f { print $2 }' \
		/proc/net/snmp6)
	echo $((v4 + ${v6:-0}))
}
# Packets the receive backlogs dropped (second column, all CPUs).
softnet_drops() {
	local n=0 b
	while read -r _ b _; do
		n=$((n + 0x$b))
	done </proc/net/softnet_stat
	echo $n
}
DROPS="rx_drop_no_qp rx_drop_malformed rx_drop_icrc rx_drop_qp_state
rx_drop_peer rx_drop_overrun rx_drop_seq rx_drop_no_recv rx_drop_unmarked"
drops() {
	local c n=0
	for c in $DROPS; do
		n=$((n + $(cnt $c)))
	done
	echo $n
}
# snapshot: the figures the accounting compares, as "key=value ...".
snapshot() {
	echo "rx=$(cnt rx_packets) noqp=$(cnt rx_drop_no_qp) drops=$(drops)" \
		"udp=$(udp InDatagrams) csum=$(udp InCsumErrors)" \
		"backlog=$(softnet_drops)"
}
# field "key=value ..." KEY: the value of KEY (empty if none).
field() {
	local kv
	for kv in $1; do
		[ "${kv%%=*}" = "$2" ] && echo "${kv#*=}"
	done
	return 0
}
# delta KEY: how much KEY grew between the two snapshots.
delta() {
	echo $(($(field "$after" "$1") - $(field "$before" "$1")))
}
gone() {
	! kill -0 "$1" 2>/dev/null
}
objects_are() {
	[ "$(objects "$1")" = "$2" ]
}

base1=$(objects "$DEV1")
base2=$(objects "$DEV2")
before=$(snapshot)

# The real traffic: RC and UC, until SIGUSR1.  The real packets wait in
# the receive backlog behind the fuzzer's (up to 1000 packets: a second on
# the debug kernel, where 67 ms ACK timeouts ran out once): ACK timeout
# 1.07 s (-T 18), 8.6 s for the 7 retries.
pids=()
for kind in rc uc; do
	seed=$RANDOM
	uc=()
	[ $kind = uc ] && uc=(-u)
	"$DPC" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 100000000 -s $seed -T 18 \
		"${uc[@]}" >"$DP_LOGS/pktfuzz-$kind.log" 2>&1 &
	pids+=($!)
	echo "# mroce_dpcheck $kind: seed $seed"
done
defer "kill ${pids[*]}"
# live_qps: the QPNs of DEV1 (all, comm mroce_dpcheck).
qps_of() {
	rdma resource show qp link "$DEV1/1" 2>/dev/null |
		awk -v c="$1" '{ for (i = 1; i < NF; i++) {
			if ($i == "lqpn") q = $(i + 1); if ($i == "comm") m = $(i + 1) }
			if (c == "" || m == c) print q }' | paste -sd, -
}
two_live() {
	[ "$(qps_of mroce_dpcheck | tr ',' '\n' | grep -c .)" -ge 2 ]
}
busywait 60000 two_live || t_fail "mroce_dpcheck QPs on $DEV1"
live=$(qps_of mroce_dpcheck)
echo "# live QPs of $DEV1: $live; fuzzing with seed $SEED, $PACKETS IPv4 and $PACKETS6 IPv6 packets"

# fuzz NAME GIDIDX SRC DST PACKETS SEED: one run of the fuzzer into
# $DP_LOGS/NAME.log, its TAP relayed.
logs=()
fuzz() {
	local log=$DP_LOGS/$1.log t0=$(date +%s) frc
	logs+=("$log")
	ip netns exec "$NS2" "$FUZZ" -a "$DEV1" -g "$2" -S "$3" -D "$4" \
		-n "$5" -s "$6" -l "$live" -x "$(qps_of)" >"$log" 2>&1
	frc=$?
	tap_relay "$1: " <"$log"
	grep -q "^ok \|^not ok " "$log" ||
		{ t_fail "mroce_pktfuzz ran (exit $frc)"; tail -n 5 "$log" | sed 's/^/#   /'; }
	echo "# $1: fuzzing took $(($(date +%s) - t0)) s"
}
fuzz pktfuzz "$G1" $DP_IP2 $DP_IP1 "$PACKETS" "$SEED"
[ "$PACKETS6" -gt 0 ] &&
	fuzz pktfuzz6 "$G1_6" $DP_IP6_2 $DP_IP6_1 "$PACKETS6" $((SEED + 1))

# The runs' account lines (sent= stack= dev= must_drop= no_qp= csum_bad=
# ...), summed key by key; empty unless every run printed one.
acct=$(grep -h "^# account " "${logs[@]}" | cut -d' ' -f3- | awk -v runs=${#logs[@]} '
	{ for (i = 1; i <= NF; i++) { split($i, p, "=")
		if (!(p[1] in s)) k[++n] = p[1]
		s[p[1]] += p[2] } }
	END { if (NR != runs) exit
		for (i = 1; i <= n; i++) printf "%s%s=%s", (i > 1 ? " " : ""), k[i], s[k[i]]
		print "" }')

kill -USR1 "${pids[@]}" 2>/dev/null
i=0
for kind in rc uc; do
	pid=${pids[i]}
	i=$((i + 1))
	busywait 120000 gone "$pid" || kill -KILL "$pid"
	wait "$pid"
	rc=$?
	t_check "real $kind traffic during the fuzzing: every request completed, data verified ($(tail -n 1 "$DP_LOGS/pktfuzz-$kind.log"))" \
		test "$rc" = 0
	[ "$rc" = 0 ] || grep FAIL "$DP_LOGS/pktfuzz-$kind.log" | head -3 | sed 's/^/#   /'
done
t_check "$DEV1 objects back to baseline" busywait 10000 objects_are "$DEV1" "$base1"
t_check "$DEV2 objects back to baseline" busywait 10000 objects_are "$DEV2" "$base2"
sleep 1
after=$(snapshot)

sent=$(field "$acct" sent) for_dev=$(field "$acct" dev)
must=$(field "$acct" must_drop) no_qp=$(field "$acct" no_qp)
csum_bad=$(field "$acct" csum_bad)
if [ -z "$sent" ]; then
	t_fail "no account line from mroce_pktfuzz"
else
	lost=$(delta backlog) rx=$(delta rx) udpd=$(delta udp)
	csum=$(delta csum) drops=$(delta drops) noqp=$(delta noqp)
	echo "# fuzzers, both runs: $acct"
	echo "# $DEV1: rx_packets +$rx, drops +$drops (no_qp +$noqp); Udp InDatagrams +$udpd, InCsumErrors +$csum; backlog drops +$lost"
	echo "# $DEV1: $(dp_counters "$DEV1")"
	t_check "every datagram UDP delivered was counted by $DEV1 (InDatagrams +$udpd, rx_packets +$rx)" \
		test "$udpd" = "$rx"
	t_check "UDP dropped the $csum_bad packets with a wrong checksum (InCsumErrors +$csum, backlog drops $lost)" \
		test "$csum" -le "$csum_bad" -a $((csum + lost)) -ge "$csum_bad"
	t_check "rx_packets grew by the $for_dev packets sent to the device at least (+$rx)" \
		test $((rx + lost)) -ge "$for_dev"
	t_check "the $must packets the device had to drop are counted (drop counters +$drops)" \
		test $((drops + lost)) -ge "$must"
	t_check "the $no_qp packets to QPNs that do not exist are in rx_drop_no_qp (+$noqp)" \
		test $((noqp + lost)) -ge "$no_qp"
fi
rdma link del "$DEV1" && rdma link del "$DEV2"
t_check "metaroce unloads" rmmod metaroce
t_done
