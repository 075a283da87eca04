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
#   metaroce_np_min_time_between_cnps=0), which DEV1 counts (rp_cnp_ignored:
#   no reaction point yet); every request still completes with its data;
# - the CNP on the wire: 60 bytes of IPv4, DSCP metaroce_cnp_dscp and not
#   ECN-capable, BTH opcode 0x81 with BECN, P_Key 0xffff, PSN 0, 16 zero
#   bytes;
# - metaroce_np_min_time_between_cnps=1000000 (1 s) sends at most one CNP
#   per QP a second; metaroce_np_enable=0 none, marks still counted.
source "$(dirname "$0")/../lib.sh"

BIN=$SUITE_BIN/mroce_dpcheck
dp_setup mm tcpdump
build_c_tests
command -v tc >/dev/null || ksft_skip_all "tc not installed"
A=/sys/class/infiniband/$DEV1 B=/sys/class/infiniband/$DEV2

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
	kill "$CPID" 2>/dev/null
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

# ---- ECT(0) on data packets, none on ACKs
for fam in v4 v6; do
	if [ $fam = v4 ]; then g1=$G1 g2=$G2 f="udp port 4791"; else g1=$G1_6 g2=$G2_6 f="ip6 and udp port 4791"; fi
	cap_start "$NS1" "$V1" "$f"
	t_check "dpcheck $fam" timeout 120 "$BIN" -a "$DEV1" -g "$g1" -b "$DEV2" -G "$g2" -n 40
	read -r d a bad < <(cap_stop | ect_split)
	t_check "$fam: $d data packets ECT(0), $a ACKs not ECN-capable ($bad otherwise)" \
		test "$d" -gt 20 -a "$a" -gt 0 -a "$bad" = 0
done

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
i0=$(c rp_cnp_ignored "$DEV1")
cap_start "$NS2" "$V2" "src host $DP_IP2 and udp port 4791"
t_check "dpcheck with every request of $DEV1 marked CE" \
	timeout 120 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 40
cnps=$(cap_stop | awk '$2 == "81"' | grep .)
sleep 1
m=$(($(c np_ecn_marked_roce_packets "$DEV2") - m0))
s=$(($(c np_cnp_sent "$DEV2") - s0))
i=$(($(c rp_cnp_ignored "$DEV1") - i0))
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
echo 4 >"$B/metaroce_np_min_time_between_cnps"
ns_exec "$NS1" tc qdisc del dev "$V1" clsact
t_done
