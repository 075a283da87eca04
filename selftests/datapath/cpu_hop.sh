#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# A connected QP sends only from its CPU (dp->cpu), and the send doorbell
# moves that CPU to the posting one while nothing is in flight.  Here the
# perftest processes are moved between the CPUs every few milliseconds
# during 64 KiB READ, WRITE and SEND runs between two MetaRoCE devices, so
# that the QP's CPU keeps moving under its own worker: every run must
# complete.  (A worker that found itself on the old CPU once requeued
# itself there for good, its requester never running: the run stopped.)
# The QPs' packets must not overtake each other on the clean veth either:
# no resends beyond one stray timeout, no out-of-sequence drops beyond
# what one such resend causes (READ responses sent from two CPUs cost 2
# resent READs and 192 drops here, and hundreds while a worker could get
# stuck on the old CPU).
source "$(dirname "$0")/../lib.sh"

dp_setup mm ib_read_bw

ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || ksft_skip_all "one CPU: nothing to move between"

# hop PID...: move each process to another CPU every 5 ms until they exit.
hop() {
	local i=0 p alive
	while :; do
		alive=0
		for p in "$@"; do
			taskset -pc $((i % ncpu)) "$p" >/dev/null 2>&1 && alive=1
		done
		[ $alive = 1 ] || return 0
		i=$((i + 1))
		sleep 0.005
	done
}

# A port of its own per run, from T_PORT + 26 up.
P=$((T_PORT + 26))
for tool in ib_read_bw ib_write_bw ib_send_bw; do
	log=$DP_LOGS/hop-$tool
	ns_exec "$NS2" timeout 60 "$tool" -d "$DEV2" -x "$G2" -F -s 65536 \
		-n 300 -p $P >"$log.server" 2>&1 &
	spid=$!
	busywait 5000 tcp_listening "$NS2" $P
	ns_exec "$NS1" timeout 60 "$tool" -d "$DEV1" -x "$G1" -F -s 65536 \
		-n 300 -p $P $DP_IP2 >"$log.client" 2>&1 &
	cpid=$!
	hop $spid $cpid &
	hpid=$!
	for t in $(seq 50); do
		kill -0 $cpid 2>/dev/null || break
		sleep 1
	done
	if kill -0 $cpid 2>/dev/null; then
		echo "# $tool stalled for 50 s; where the QPs stand:"
		for d in "$DEV1" "$DEV2"; do
			rdma -dd res show qp link "$d/1" 2>&1 | grep -v GSI |
				sed 's/^/#   /'
		done
	fi
	wait $cpid
	crc=$?
	wait $spid
	src=$?
	kill $hpid 2>/dev/null
	wait $hpid 2>/dev/null
	if [ $crc -eq 0 ] && [ $src -eq 0 ]; then
		t_pass "$tool 64 KiB x 300, processes moved between $ncpu CPUs"
		tail -n 2 "$log.client" | head -n 1 | sed 's/^/#   /'
	else
		t_fail "$tool 64 KiB x 300, processes moved between $ncpu CPUs (client $crc, server $src)"
	fi
	P=$((P + 1))
done
resent=$(($(mroce_counter "$DEV1" retransmits) + $(mroce_counter "$DEV2" retransmits)))
oos=$(($(mroce_counter "$DEV1" rx_drop_seq) + $(mroce_counter "$DEV2" rx_drop_seq)))
# One stray Local ACK Timeout on a busy host resends up to a window (128).
t_check "in order on a clean veth: $resent resends (at most 1), $oos out-of-sequence drops (at most 128)" \
	test "$resent" -le 1 -a "$oos" -le 128
echo "# $DEV1: $(dp_counters "$DEV1")"
echo "# $DEV2: $(dp_counters "$DEV2")"
t_done
