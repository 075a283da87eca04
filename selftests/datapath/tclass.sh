#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The IP traffic class of RoCEv2 packets (DSCP and ECN bits) comes from the
# QP's address vector: mroce_dpcheck sets traffic class 0x8a (DSCP AF41,
# ECT(0)) on both QPs, and every packet either device sends (requests,
# responses and ACKs) must carry it, in the IPv4 TOS byte and in the IPv6
# traffic class, as tcpdump sees them on the veth.
source "$(dirname "$0")/../lib.sh"

TC=0x8a
BIN=$SUITE_BIN/mroce_dpcheck
dp_setup mm tcpdump
build_c_tests

for fam in v4 v6; do
	if [ $fam = v4 ]; then g1=$G1 g2=$G2 key="tos $TC"; else g1=$G1_6 g2=$G2_6 key="class $TC"; fi
	cap=$DP_LOGS/tclass-$fam.txt err=$DP_LOGS/tclass-$fam.err
	ns_exec "$NS1" timeout 120 tcpdump -l -n -v -i "${NS1}v" -c 400 \
		udp port 4791 >"$cap" 2>"$err" &
	tpid=$!
	busywait 10000 grep -q listening "$err"
	t_check "dpcheck $fam with traffic class $TC" \
		timeout 120 "$BIN" -a "$DEV1" -g "$g1" -b "$DEV2" -G "$g2" -n 40 -t $TC
	sleep 1
	kill "$tpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
	# One snapshot: tcpdump (under timeout, not killed with the
	# subshell) may still be writing lines it had buffered.
	pkts=$(grep -E '^[0-9:.]+ IP6? \(' "$cap")
	all=$(grep -c . <<<"$pkts")
	good=$(grep -c "$key" <<<"$pkts")
	t_check "$fam: all $all captured RoCEv2 packets carry $key ($good do)" \
		test "$all" -gt 20 -a "$good" -eq "$all"
	grep -v "$key" <<<"$pkts" | head -3 | sed 's/^/#   /'
done
t_done
