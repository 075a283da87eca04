#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# ECN and CNPs between two MetaRoCE devices (Documentation/wire.rst, "ECN
# and CNPs"):
# - data packets (requests, READ responses) leave ECN-capable, ECT(0), and
#   ACKs do not, IPv4 and IPv6, as tcpdump sees them; metaroce_ecn=0 turns
#   it off;
# - a tc filter on the veth plays a congested switch: it marks the
#   ECT(0) packets DEV1 sends Congestion Experienced.  DEV2 counts them
#   (np_ecn_marked_roce_packets) and answers each with a CNP (np_cnp_sent,
#   metaroce_np_min_time_between_cnps=0), which DEV1 counts
#   (rp_cnp_handled); every request still completes with its data;
# - the CNP on the wire: 60 bytes of IPv4, DSCP metaroce_cnp_dscp and not
#   ECN-capable, BTH opcode 0x81 with BECN, P_Key 0xffff, PSN 0, 16 zero
#   bytes;
# - metaroce_np_min_time_between_cnps=1000000 (1 s) sends at most one CNP
#   per QP a second; metaroce_np_enable=0 none, marks still counted;
# - DEV1 as DCQCN reaction point (metaroce_rp_enable): the CNPs cut its
#   QP's rate (rp_cnp_handled, tracepoint mroce_rp_rate) and its WRITEs
#   leave paced: with the rate bounded to 16-40 Mb/s, 64 KiB WRITEs run
#   at most at 40 Mb/s, well below the same run with the reaction point
#   off; when the marks stop in the middle of a run, the QP's rate
#   climbs back and it is released (the trace's last event).
source "$(dirname "$0")/../lib.sh"

BIN=$SUITE_BIN/mroce_dpcheck
dp_setup mm tcpdump
build_c_tests
command -v tc >/dev/null || ksft_skip_all "tc not installed"
A=/sys/class/infiniband/$DEV1 B=/sys/class/infiniband/$DEV2

# The rate tracepoint, enabled before any traffic.
trace_setup metaroce/mroce_rp_rate

# cap_start NS DEV FILTER: capture on the veth end DEV of NS, hex dumps;
# cap_stop FILE: stop it, one line per packet: "TC OPCODE LEN HEX..."
# (the IP traffic class, the BTH opcode, the IP packet's length).
cap_start() {
	CAP=$DP_LOGS/ecn-$RANDOM.txt
	ns_exec "$1" timeout 120 tcpdump -l -n -x -i "$2" "$3" >"$CAP" 2>"$CAP.err" &
	CPID=$!
	busywait 10000 grep -q listening "$CAP.err"
}
cap_stop() {
	sleep 1
	# SIGINT to tcpdump itself (timeout and ip netns exec do not pass a
	# signal on): it writes out what it has and exits.
	pkill -INT -x tcpdump
	wait "$CPID" 2>/dev/null
	awk '
	function byte(h,  i, v) {	# two hex digits (mawk: no strtonum)
		v = 0
		for (i = 1; i <= 2; i++)
			v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return v
	}
	function flush() {
		if (hex == "") return
		n = length(hex) / 2
		b0 = byte(substr(hex, 1, 2)); b1 = byte(substr(hex, 3, 2))
		if (int(b0 / 16) == 6) { tc = (b0 % 16) * 16 + int(b1 / 16); off = 48 }
		else { tc = b1; off = 28 }
		printf "%d %s %d %s\n", tc, substr(hex, off * 2 + 1, 2), n, hex
		hex = ""
	}
	/^[0-9]/ { flush(); next }
	/0x[0-9a-f]+:/ { for (i = 2; i <= NF; i++) hex = hex $i }
	END { flush() }' "$CAP"
}
# ect_split <LINES: every ACK (0x11, 0x12, MR_ACK 0xc7) not ECN-capable,
# every other packet ECT(0); prints "DATA ACKS BAD".
ect_split() {
	awk '{ ack = ($2 == "11" || $2 == "12" || $2 == "c7"); e = $1 % 4
		if (ack) { a++; if (e != 0) bad++ } else { d++; if (e != 2) bad++ } }
		END { printf "%d %d %d\n", d, a, bad }'
}

# ---- ECT(0) on data packets, none on ACKs (tcpdump in the VM misses
# packets: the ACKs of both runs together must include some)
acks=0
for fam in v4 v6; do
	if [ $fam = v4 ]; then g1=$G1 g2=$G2 f="udp port 4791"; else g1=$G1_6 g2=$G2_6 f="ip6 and udp port 4791"; fi
	cap_start "$NS1" "$V1" "$f"
	t_check "dpcheck $fam" timeout 120 "$BIN" -a "$DEV1" -g "$g1" -b "$DEV2" -G "$g2" -n 40
	read -r d a bad < <(cap_stop | ect_split)
	t_check "$fam: $d data packets ECT(0), $a ACKs not ECN-capable ($bad otherwise)" \
		test "$d" -gt 20 -a "$bad" = 0
	acks=$((acks + a))
done
t_check "ACKs were among the packets checked ($acks)" test "$acks" -gt 0

echo 0 >"$A/metaroce_ecn"
cap_start "$NS1" "$V1" "src host $DP_IP1 and udp port 4791"
t_check "dpcheck with metaroce_ecn=0 on $DEV1" \
	timeout 120 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 20
pkts=$(cap_stop)
all=$(grep -c . <<<"$pkts") n=$(awk '$1 % 4 != 0' <<<"$pkts" | wc -l)
t_check "metaroce_ecn=0: none of $all packets of $DEV1 is ECN-capable ($n are)" \
	test "$all" -gt 10 -a "$n" = 0
echo 1 >"$A/metaroce_ecn"
t_check_fail "metaroce_ecn=2 is refused" sh -c "echo 2 > $A/metaroce_ecn"
t_check_fail "metaroce_cnp_dscp=64 is refused" sh -c "echo 64 > $B/metaroce_cnp_dscp"

# ---- CE marks from a "switch": DEV1's ECT(0) packets marked CE on the way
ns_exec "$NS1" tc qdisc add dev "$V1" clsact
t_check "tc marks $DEV1's ECT(0) RoCE packets CE" \
	ns_exec "$NS1" tc filter add dev "$V1" egress protocol ip u32 \
	match ip protocol 17 0xff match ip dport 4791 0xffff match ip tos 0x02 0x03 \
	action pedit ex munge ip tos set 0x03 retain 0x03 pipe action csum ip4h
# c NAME DEV: counter NAME of DEV
c() { mroce_counter "$2" "$1"; }
echo 0 >"$B/metaroce_np_min_time_between_cnps"
m0=$(c np_ecn_marked_roce_packets "$DEV2") s0=$(c np_cnp_sent "$DEV2")
i0=$(($(c rp_cnp_ignored "$DEV1") + $(c rp_cnp_handled "$DEV1")))
cap_start "$NS2" "$V2" "src host $DP_IP2 and udp port 4791"
t_check "dpcheck with every request of $DEV1 marked CE" \
	timeout 120 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 40
cnps=$(cap_stop | awk '$2 == "81"' | grep .)
sleep 1
m=$(($(c np_ecn_marked_roce_packets "$DEV2") - m0))
s=$(($(c np_cnp_sent "$DEV2") - s0))
i=$(($(c rp_cnp_ignored "$DEV1") + $(c rp_cnp_handled "$DEV1") - i0))
t_check "$DEV2 counted $m CE-marked packets" test "$m" -gt 20
t_check "$DEV2 answered each with a CNP ($s sent)" test "$s" = "$m"
t_check "$DEV1 counted the CNPs ($i received of $s)" test "$i" -gt 0 -a "$i" -le "$s"
t_check "no CE mark reached $DEV1, whose direction is not marked ($(c np_ecn_marked_roce_packets "$DEV1"))" \
	test "$(c np_ecn_marked_roce_packets "$DEV1")" = 0
ncap=$(grep -c . <<<"$cnps")
t_check "tcpdump saw the CNPs ($ncap)" test "$ncap" -gt 0
# IPv4 (20 bytes), UDP (8), BTH 81 00 ffff 40 <QPN> 00 000000, 16 zero
# bytes, ICRC; traffic class DSCP 48 (0xc0), not ECN-capable.
badcnp=$(awk '$1 != 192 || $3 != 60 ||
	substr($4, 57, 8) != "8100ffff" || substr($4, 65, 2) != "40" ||
	substr($4, 73, 8) != "00000000" ||
	substr($4, 81, 32) != "00000000000000000000000000000000"' <<<"$cnps" | wc -l)
t_check "every CNP is a RoCEv2 CNP: DSCP 48, not ECT, BECN, PSN 0, 16 zero bytes ($badcnp are not)" \
	test "$badcnp" = 0
awk '{ print "#   " $4 }' <<<"$cnps" | head -2

# ---- one CNP a second at most
echo 1000000 >"$B/metaroce_np_min_time_between_cnps"
m0=$(c np_ecn_marked_roce_packets "$DEV2") s0=$(c np_cnp_sent "$DEV2")
t0=$(date +%s)
t_check "dpcheck with np_min_time_between_cnps 1 s" \
	timeout 120 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 40
sleep 1
secs=$(($(date +%s) - t0 + 1))
m=$(($(c np_ecn_marked_roce_packets "$DEV2") - m0))
s=$(($(c np_cnp_sent "$DEV2") - s0))
t_check "1 s apart: $s CNPs for $m marks in about $secs s (one QP)" \
	test "$m" -gt 20 -a "$s" -ge 1 -a "$s" -le "$secs"

# ---- no CNPs with the notification point off
echo 0 >"$B/metaroce_np_enable"
m0=$(c np_ecn_marked_roce_packets "$DEV2") s0=$(c np_cnp_sent "$DEV2")
t_check "dpcheck with metaroce_np_enable=0" \
	timeout 120 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 20
sleep 1
m=$(($(c np_ecn_marked_roce_packets "$DEV2") - m0))
s=$(($(c np_cnp_sent "$DEV2") - s0))
t_check "np_enable=0: $m marks counted, $s CNPs sent" test "$m" -gt 0 -a "$s" = 0
echo 1 >"$B/metaroce_np_enable"

# ---- DEV1 slows down on the CNPs: 64 KiB WRITEs, rate bounded to 16-40 Mb/s
echo 0 >"$B/metaroce_np_min_time_between_cnps"
# wbw RP: 64 KiB WRITEs a -> b with metaroce_rp_enable=RP on DEV1, MiB/s.
wbw() {
	echo "$1" >"$A/metaroce_rp_enable"
	timeout 300 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -W 16 -n 24 \
		>"$DP_LOGS/ecn-wbw-$1.txt" 2>&1 || return 1
	sed -n 's/.*start \([0-9.]*\) MiB\/s.*/\1/p' "$DP_LOGS/ecn-wbw-$1.txt"
}
echo 40 >"$A/metaroce_rpg_max_rate_mbps"
echo 16 >"$A/metaroce_rpg_min_rate_mbps"
t_check_fail "metaroce_rpg_min_dec_fac=101 is refused" \
	sh -c "echo 101 > $A/metaroce_rpg_min_dec_fac"
i0=$(c rp_cnp_ignored "$DEV1") h0=$(c rp_cnp_handled "$DEV1")
off=$(wbw 0)
t_check "reaction point off: $off MiB/s, CNPs ignored" \
	test -n "$off" -a "$(c rp_cnp_ignored "$DEV1")" -gt "$i0"
[ -d "$TR/events/metaroce/mroce_rp_rate" ] && echo >"$TR/trace"
h0=$(c rp_cnp_handled "$DEV1")
on=$(wbw 1)
h=$(($(c rp_cnp_handled "$DEV1") - h0))
t_check "reaction point on: $h CNPs handled" test "$h" -gt 0
# 40 Mb/s of packets is 4.77 MiB/s with headers: the payload less.  The
# bound means something only if the run without it was faster.
if awk -v off="${off:-0}" 'BEGIN { exit !(off > 5.5) }'; then
	t_check "paced: $on MiB/s, at most 40 Mb/s, against $off without" \
		awk -v on="${on:-0}" -v off="${off:-0}" \
		'BEGIN { exit !(on > 0.5 && on <= 4.8 && on < off) }'
else
	t_skip "paced: $on MiB/s, but without pacing only $off MiB/s: this VM is too slow to show a 40 Mb/s bound"
fi
if [ -d "$TR/events/metaroce/mroce_rp_rate" ]; then
	cuts=$(grep -c "mroce_rp_rate: .* cut=1 throttled=1" "$TR/trace")
	low=$(grep "mroce_rp_rate: .* cut=1 " "$TR/trace" | tail -1 |
		sed -n 's/.* rate_mbps=\([0-9]*\) .*/\1/p')
	t_check "tracepoint: $cuts cuts, the last to $low Mb/s (16-40)" \
		test "$cuts" -gt 0 -a "${low:-0}" -ge 16 -a "${low:-0}" -le 40
	grep "mroce_rp_rate: " "$TR/trace" | head -2 | sed 's/^/#   /'
else
	t_skip "tracepoint mroce_rp_rate (no tracefs in this kernel)"
fi

# ---- READ responses: DEV1 (ib_read_bw's server, a QP that stays in RTR)
# answers 200 READs of 64 KiB (13.1 MB) with every response marked: the
# READs must complete with the reaction point taking the CNPs; both times
# are logged (Documentation/core.rst, "DCQCN": what is measured).
# rbw RP: ib_read_bw with DEV1 answering, metaroce_rp_enable=RP; sets
# RBW_MS, how long it took.
rbw() {
	local t0
	echo "$1" >"$A/metaroce_rp_enable"
	t0=$(date +%s%N)
	pt_run "ib_read_bw 64 KiB answered by $DEV1, reaction point $1" 1 300 \
		ib_read_bw -s 65536 -n 200
	RBW_MS=$((($(date +%s%N) - t0) / 1000000))
}
rbw 0
roff=$RBW_MS
h0=$(c rp_cnp_handled "$DEV1")
rbw 1
ron=$RBW_MS
h=$(($(c rp_cnp_handled "$DEV1") - h0))
t_check "READs answered under CNPs: $ron ms with the reaction point, $roff ms without ($h CNPs handled)" \
	test "$h" -gt 0

# ---- the marks stop in the middle of a run: the rate climbs back
[ -d "$TR/events/metaroce/mroce_rp_rate" ] && echo >"$TR/trace"
timeout 300 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -W 16 -n 200 \
	>"$DP_LOGS/ecn-release.txt" 2>&1 &
wpid=$!
sleep 2
# With the maximum at 40 Mb/s a cut is small and the rate climbs back to
# it between CNPs: the QP is unthrottled for an instant now and then while
# the marks go on (a fresh-clone make check once sampled one such instant:
# 40 Mb/s, throttled 0, after 7334 CNPs).  Up to ten looks, 0.2 s apart.
for i in $(seq 10); do
	line=$(dp_rc_rts "$DEV1" | head -n 1)
	thr=$(dp_qp_attr "$line" cc-throttled) rate=$(dp_qp_attr "$line" cc-rate-mbps)
	cnps=$(dp_qp_attr "$line" cc-cnps)
	[ "$thr" = 1 ] && break
	sleep 0.2
done
t_check "rdma res: the QP is paced at $rate Mb/s after $cnps CNPs (throttled $thr)" \
	test "$thr" = 1 -a "${rate:-0}" -ge 16 -a "${rate:-0}" -le 40 -a "${cnps:-0}" -gt 0
ns_exec "$NS1" tc qdisc del dev "$V1" clsact
wait "$wpid"
wrc=$?
t_check "WRITEs throttled, then not marked any more: data verified ($(tail -1 "$DP_LOGS/ecn-release.txt"))" \
	test "$wrc" = 0
if [ -d "$TR/events/metaroce/mroce_rp_rate" ]; then
	last=$(grep "mroce_rp_rate: " "$TR/trace" | tail -1)
	t_check "the last rate event releases the QP ($(grep -c " cut=1 " "$TR/trace") cuts before)" \
		grep -q "cut=0 throttled=0" <<<"$last"
	echo "#   $last"
fi
echo 0 >"$A/metaroce_rpg_max_rate_mbps"
echo 1 >"$A/metaroce_rpg_min_rate_mbps"
echo 4 >"$B/metaroce_np_min_time_between_cnps"
t_done
