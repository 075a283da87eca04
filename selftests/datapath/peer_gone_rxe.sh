#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The peer device removed, against rdma_rxe: ib_write_bw moves 64 KiB
# RDMA WRITEs from MetaRoCE device 1 (client, namespace 1) to an rxe
# device (server, initial namespace); mid-traffic `rdma link delete` removes
# the rxe device.  rxe in 6.1 has no disassociate_ucontext, so the
# deletion waits for the last process that has the device open: while it
# waits rxe still answers (the traffic goes on, checked), and the deletion
# completes once the server process is gone (the test kills it: rxe tells
# its users nothing they could close on).  Then the MetaRoCE side gets nothing back: its
# WRITEs must end in IBV_WC_RETRY_EXC_ERR within the retry budget (ACK
# timeout 4.096 us << 18 = 1.07 s, -u 18: perftest's 67 ms ran out on the
# debug kernel before the device was deleted; 7 retries: 8 timeouts, 8.6 s:
# exactly 7 resends, then the error; 30 s allowed before it counts as a
# hang); the device objects return to their baseline and the module
# unloads.
source "$(dirname "$0")/../lib.sh"

dp_setup mx ib_write_bw

objects() {
	cat /sys/class/infiniband/"$1"/metaroce_objects 2>/dev/null | tr '\n' ' '
}
base1=$(objects "$DEV1")
# grown COUNTER FROM BY: COUNTER of DEV1 grew by at least BY since FROM.
grown() {
	[ $(($(mroce_counter "$DEV1" "$1") - $2)) -ge "$3" ]
}
gone() {
	! kill -0 "$1" 2>/dev/null
}

slog=$DP_LOGS/peer-gone-server.log
clog=$DP_LOGS/peer-gone-client.log
port=$T_PORT
ib_write_bw -d "$DEV2" -x "$G2" -F -s 65536 -D 60 -p $port >"$slog" 2>&1 &
spid=$!
defer "kill -KILL $spid"
busywait 10000 tcp_listening "" $port ||
	ksft_skip_all "ib_write_bw server on $DEV2 did not start"
ip netns exec "$NS1" ib_write_bw -d "$DEV1" -x "$G1" -F -s 65536 -D 60 \
	-u 18 -p $port $DP_IP2 >"$clog" 2>&1 &
cpid=$!
defer "kill -KILL $cpid"

rx=$(mroce_counter "$DEV1" rx_packets)
t_check "WRITEs from $DEV1 acknowledged by rxe $DEV2" busywait 60000 grown rx_packets "$rx" 300

# The deletion waits for the server, which has the device open; rxe
# answers meanwhile.
rdma link delete "$DEV2" >"$DP_LOGS/peer-gone-delete.log" 2>&1 &
dpid=$!
sleep 2
rx=$(mroce_counter "$DEV1" rx_packets)
t_check "while 'rdma link delete' waits for the server, rxe still answers" \
	busywait 10000 grown rx_packets "$rx" 100
echo "#   delete still waiting: $(gone $dpid && echo no || echo yes)"

retr=$(mroce_counter "$DEV1" retransmits)
t0=$(date +%s%N)
kill -KILL $spid 2>/dev/null
wait $spid 2>/dev/null
t_check "the rxe device goes away once its last user is gone" busywait 30000 ibdev_gone "$DEV2"
wait $dpid
t_check "'rdma link delete' $DEV2 succeeded" test $? = 0
if busywait 30000 gone $cpid; then
	ms=$((($(date +%s%N) - t0) / 1000000))
	wait $cpid
	t_check "MetaRoCE's WRITEs end in RETRY_EXC_ERR (status 12) ${ms} ms after the peer went" \
		grep -qiE "status 12|retry counter exceeded|RETRY_EXC" "$clog"
	grep -iE "error|status" "$clog" | head -2 | sed 's/^/#   /'
else
	t_fail "MetaRoCE's client still runs 30 s after its peer went (hang)"
	kill -KILL $cpid
	wait $cpid
fi
# Within the retry budget: one resend per timeout, perftest's retry_cnt 7
# of them, then the error (mroce_req_lost() counts each).
retr=$(($(mroce_counter "$DEV1" retransmits) - retr))
t_check "$DEV1 resent 7 times (retry_cnt) before giving up (retransmits +$retr)" \
	test "$retr" = 7
echo "# $DEV1: $(dp_counters "$DEV1")"
objects_are() {
	[ "$(objects "$1")" = "$2" ]
}
t_check "$DEV1 objects back to baseline" busywait 10000 objects_are "$DEV1" "$base1"
rdma link del "$DEV1"
t_check "metaroce unloads" rmmod metaroce
t_done
