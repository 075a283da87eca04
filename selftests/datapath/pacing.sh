#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The delay-based window of a lossy fabric (mroce_wcc.c) bounds and paces a
# MetaRoCE-mode requester.  With its target at 1 us, its growth at 1 byte
# per round trip and its floor and start at 512 bytes, the window stays at
# half a 1 KiB packet, which the requester can only keep by leaving about
# two round trips between packets.  64 KiB WRITEs (mroce_dpcheck -W), the
# requester's data packets captured on its veth:
# - lossless fabric (default): no window, the packets of a WRITE leave
#   back to back;
# - lossy fabric: rdma res shows a window of one packet and a pacing
#   rate, the tracepoint its decreases, and the gaps between the data
#   packets are several times longer than without it;
# - the knobs refuse values out of range; every WRITE completes.
source "$(dirname "$0")/../lib.sh"

BIN=$SUITE_BIN/mroce_dpcheck
dp_setup mm tcpdump
build_c_tests
trace_setup metaroce/mroce_cc_window || TR=
A=/sys/class/infiniband/$DEV1

t_check_fail "metaroce_cc_min_window refuses 0" sh -c "echo 0 >$A/metaroce_cc_min_window"
t_check_fail "metaroce_cc_target_delay_us refuses 1000001" \
	sh -c "echo 1000001 >$A/metaroce_cc_target_delay_us"

# gaps NAME: 64 KiB WRITEs DEV1 -> DEV2 while tcpdump takes DEV1's first
# 200 data packets; prints "p10 median" of the gaps between them in us.
gaps() {
	local cap=$DP_LOGS/pacing-$1.txt err=$DP_LOGS/pacing-$1.err tpid
	ns_exec "$NS1" timeout 120 tcpdump -l -n -tt -i "${NS1}v" -c 200 \
		"udp dst port 4791 and src host $DP_IP1 and greater 600" \
		>"$cap" 2>"$err" &
	tpid=$!
	busywait 10000 grep -q listening "$err"
	timeout 300 "$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -W 4 -n 32 \
		>"$DP_LOGS/pacing-$1.dpcheck" 2>&1 || return 1
	wait "$tpid" 2>/dev/null
	awk '$2 == "IP" { if (p) print ($1 - p) * 1e6; p = $1 }' "$cap" |
		sort -g | awk '{ v[NR] = $1 } END {
			if (NR < 100) exit 1
			printf "%.0f %.0f\n", v[int(NR / 10) + 1], v[int(NR / 2) + 1] }'
}

read -r p10_off med_off < <(gaps lossless)
t_check "lossless: 64 KiB WRITEs complete, gaps between data packets p10 ${p10_off:-?} us, median ${med_off:-?} us" \
	test -n "$med_off"

echo lossy >"$A/metaroce_fabric"
echo 1 >"$A/metaroce_cc_target_delay_us"
echo 1 >"$A/metaroce_cc_ai_bytes"
echo 512 >"$A/metaroce_cc_min_window"
echo 512 >"$A/metaroce_cc_init_window"
res=$DP_LOGS/pacing-res.txt
[ -n "$TR" ] && echo >"$TR/trace"
: >"$res"
# sampled while the WRITEs run: the QP exists only during mroce_dpcheck
# (every 0.2 s: 16 paced WRITEs took 0.4 s on a faster host, between two
# samples 0.5 s apart; 64 WRITEs now)
( for i in $(seq 100); do
	sleep 0.2
	rdma -dd res show qp link "$DEV1/1" 2>/dev/null | grep "cc-window-psns" >>"$res"
done ) &
read -r p10_on med_on < <(gaps lossy)
wait
t_check "lossy, window of half a packet: WRITEs complete, gaps p10 ${p10_on:-?} us, median ${med_on:-?} us" \
	test -n "$med_on"
t_check "paced: median gap ${med_on:-?} us, at least 4 times the ${med_off:-?} us without the window and 100 us" \
	awk -v on="${med_on:-0}" -v off="${med_off:-0}" \
	'BEGIN { exit !(on >= 100 && on >= 4 * off) }'
w=$(grep -o "cc-window-psns [0-9]*" "$res" | head -1)
p=$(grep -o "cc-pace-mbps [0-9]*" "$res" | head -1)
t_check "rdma res: ${w:-no cc-window-psns}, ${p:-no cc-pace-mbps}" \
	test "${w#* }" = 1 -a "${p#* }" -gt 0
if [ -n "$TR" ]; then
	cuts=$(grep -c " mroce_cc_window: .* cut=1 " "$TR/trace")
	t_check "the window was cut down to its floor ($cuts decreases traced)" \
		grep -q " mroce_cc_window: .* cut=1 cwnd=512 " "$TR/trace"
else
	t_skip "the window was cut down to its floor" "no tracepoint mroce_cc_window"
fi
t_done
