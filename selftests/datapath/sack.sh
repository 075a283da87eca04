#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Selective repeat between two MetaRoCE devices in metaroce mode
# (Documentation/wire.rst, "Selective repeat").  mroce_dpcheck moves
# checked data, one kind of request at a time (WRITE, SEND, READ,
# atomics); once both directions are in their MetaRoCE span (rdma res
# shows the switch PSNs), tc netem impairs both ends of the veth for
# MROCE_T_SACK_SECS seconds (default 5), then the run stops:
#  - loss: every request completes with its data; requests were resent by
#    selective repeat (sack_retransmits), the responder held requests that
#    came ahead of a hole (out_of_sequence), placed the SEND and WRITE
#    packets among them that continue the message in progress at once
#    (ooo_placed) and sent no NAK (tx_naks unchanged): nothing goes back N;
#    with SENDs in flight (mroce_dpcheck -S), the held SEND packets of
#    later messages are placed too, in the receive WQE each message takes,
#    also from an SRQ, whose WQEs a QP that enters ERR flushes each once;
#    a READ asked again asks for its missing responses only, not for the
#    rest of the READ (tx_read_resends, a few per READ asked again);
#  - the same, all kinds of request at once, at loss 0.1%, 1%, 5% and 10%,
#    with corruption (netem corrupt: the ICRC or UDP checksum drops it)
#    and with delay jitter (MROCE_T_SACK_MATRIX=0 leaves these out: the
#    debug-kernel lane does, for time);
#  - ACK coalescing: under loss the responders send fewer MR_ACKs
#    (tx_sack_acks) per held request than with metaroce_ack_every=1 (an
#    ACK for each held request, as before coalescing), and the sysfs
#    attributes metaroce_ack_every and metaroce_ack_delay_us refuse values
#    out of range;
#  - metaroce_sr_pipe: 256 by default, 16 to 1024; a connection that
#    switches with 32 runs with 32 (sq-pipe), data intact;
#  - metaroce_rto_min_us: 1000 by default, 100 to 100000; a connection that
#    switches with 30000 keeps an RTO of at least 30 ms (rto-us);
#  - reordering (netem "delay reorder") and duplication: data intact,
#    requests held, no NAK;
#  - `rdma res show qp -dd` shows the selective window's SACKED PSNs,
#    SRTT, RTO and reorder window;
#  - the tracepoints (events/metaroce/) name the units RACK and the
#    tail-loss probe lost and the RTOs that the counters count (within a
#    few: the trace starts a moment before the counters are read, while
#    the traffic already runs);
#  - the same loss with the devices' policy roce: data intact, go-back-N
#    (NAKs sent), no selective resend.
# (Before the switch a connection is RoCEv2 and goes back N: the first
# messages of each direction are not impaired.)
source "$(dirname "$0")/../lib.sh"

BIN=$SUITE_BIN/mroce_dpcheck
secs=${MROCE_T_SACK_SECS:-5}
dp_setup mm tc
build_c_tests
modinfo sch_netem >/dev/null 2>&1 || ksft_skip_all "sch_netem not available"
dp_static_neigh || ksft_skip_all "cannot set permanent neighbour entries"

defer dp_netem_off
policy() {
	echo "$1" >"/sys/class/infiniband/$DEV1/metaroce_mode_policy" &&
		echo "$1" >"/sys/class/infiniband/$DEV2/metaroce_mode_policy"
}
defer "policy auto"

COUNTERS="sack_retransmits out_of_sequence ooo_placed tx_sack_acks tx_read_resends tx_naks rack_losses tlp_probes rto_fires spurious_retransmits rx_duplicates retransmits packet_seq_err"
# snap: the counters above, summed, as "name=value ...".
snap() {
	local c
	for c in $COUNTERS; do printf '%s=%s ' "$c" "$(dp_sum "$c")"; done
}
# grew NAME: how much counter NAME grew between the snaps BEFORE and AFTER.
grew() {
	local b a
	b=$(echo "$BEFORE" | tr ' ' '\n' | sed -n "s/^$1=//p")
	a=$(echo "$AFTER" | tr ' ' '\n' | sed -n "s/^$1=//p")
	echo $((a - b))
}
# some_none A B: A is above 0 and B is 0.
some_none() {
	[ "$1" -gt 0 ] && [ "$2" -eq 0 ]
}
# switched MODE [N]: both QPs in mode MODE, and, for metaroce, N directions
# (default 2) past their switch PSN (each QP shows the peer's).
switched() {
	local out
	out=$(rdma res show qp -dd 2>/dev/null | grep "drv_mode $1 ")
	[ "$(echo "$out" | grep -c "drv_mode $1 ")" -ge 2 ] || return 1
	[ "$1" != metaroce ] ||
		[ "$(echo "$out" | grep -c "mode-rx-psn")" -ge "${2:-2}" ]
}
gone() {
	! kill -0 "$1" 2>/dev/null
}
# The module's tracepoints (mroce_trace.h), read after a run() when TRACE
# is set and tracefs is there: enabled once, before any traffic
# (trace_setup), and the buffer cleared when a run starts.
trace_setup metaroce
trace_on() {
	[ -n "${TRACE:-}" ] && [ -d "$TR/events/metaroce" ] || return 0
	echo >"$TR/trace"
}
# traced EVENT [FILTER]: events of that name in the trace matching FILTER.
traced() {
	grep " $1: " "$TR/trace" | grep -c -- "${2:-}"
}
# near A B: A and B differ by at most 5 + B / 20 (see the trace's start).
near() {
	local d=$(($1 - $2))
	[ "${d#-}" -le $((5 + $2 / 20)) ]
}
# near_some A B: both above 0, and near.
near_some() {
	[ "$1" -gt 0 ] && [ "$2" -gt 0 ] && near "$1" "$2"
}
# traced_lost BY: units the mroce_sr_loss events with by=BY lost.
traced_lost() {
	awk -v by="by=$1" '/ mroce_sr_loss: / && $0 ~ by {
		for (i = 1; i <= NF; i++) if ($i ~ /^lost=/) s += substr($i, 6)
	} END { print s + 0 }' "$TR/trace"
}

# run DESC OPS MODE NETEM...: mroce_dpcheck moves OPS; once both QPs are
# in MODE (and switched), NETEM on both ends for $secs s; then it stops and
# every request must have completed with its data.  Sets BEFORE / AFTER,
# the counters from the start of the impairment to the end of the run.
run() {
	local desc=$1 ops=$2 mode=$3 seed=$RANDOM pid rc log what=(-o "$2")
	shift 3
	[ "$ops" = stream ] && what=(-S)
	[ "$ops" = srqstream ] && what=(-S -Q -E)
	log=$DP_LOGS/sack-$seed.log
		"$BIN" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 100000000 \
		"${what[@]}" -s "$seed" >"$log" 2>&1 &
	pid=$!
	# a stream goes one way: only b's QP receives MetaRoCE packets
	busywait 30000 switched "$mode" "$([ "${what[0]}" = -S ] && echo 1)" ||
		echo "#   QPs not both in mode $mode: $(rdma res show qp -dd | grep -o 'drv_mode [a-z]*' | tr '\n' ' ')"
	trace_on
	BEFORE=$(snap)
	dp_netem "$@" || t_fail "netem $* on $V1 and $V2"
	sleep "$secs"
	SACKED_SEEN=$(rdma res show qp -dd 2>/dev/null |
		      grep -o "drv_sq-sacked.*drv_reorder-wnd-us [0-9]*" | head -2)
	kill -USR1 "$pid" 2>/dev/null
	busywait 120000 gone "$pid" || kill -KILL "$pid"
	wait "$pid"
	rc=$?
	AFTER=$(snap)
	dp_netem_off
	t_check "$desc: random $ops requests, data verified (seed $seed; $(tail -n 1 "$log"))" \
		[ "$rc" = 0 ]
	[ "$rc" = 0 ] || grep FAIL "$log" | head -3 | sed 's/^/#   /'
	echo "#   $(for c in $COUNTERS; do printf '%s +%s ' "$c" "$(grew "$c")"; done)"
}

policy auto || ksft_skip_all "cannot set the mode policy"

# ---- loss
sack=0 ooo=0 naks=0 placed=0
for ops in write send read atomic; do
	TRACE=
	[ "$ops" = write ] && TRACE=1
	run "metaroce mode, loss 3%" "$ops" metaroce loss 3%
	sack=$((sack + $(grew sack_retransmits)))
	ooo=$((ooo + $(grew out_of_sequence)))
	naks=$((naks + $(grew tx_naks)))
	placed=$((placed + $(grew ooo_placed)))
	# A READ asked again asks for the responses missing, not the rest
	# of the READ: mroce_dpcheck's READs average 48 packets.
	rr=$(grew tx_read_resends) ra=$(grew sack_retransmits)
	[ "$ops" = read ] &&
		t_check "metaroce mode, loss 3%: READs asked again for their holes: $rr responses resent for $ra READs asked again" \
			test "$ra" -gt 0 -a "$rr" -le $((ra * 6))
	[ "$ops" = write ] && echo "$SACKED_SEEN" | sed 's/^/#   /'
	[ "$ops" = write ] &&
		t_check "rdma res show qp -dd: sq-sacked, srtt-us, rto-us, reorder-wnd-us" \
			sh -c "echo '$SACKED_SEEN' | grep -q 'srtt-us [1-9]'"
	if [ "$ops" = write ] && [ -d "$TR/events/metaroce" ]; then
		grep -m 2 " mroce_sr_loss: " "$TR/trace" | sed 's/^ */#   /'
		t_check "tracepoint mroce_sr_loss: $(traced_lost rack) units lost by RACK, rack_losses +$(grew rack_losses)" \
			near_some "$(traced_lost rack)" "$(grew rack_losses)"
		t_check "tracepoint mroce_sr_loss: $(traced_lost tlp) probes, tlp_probes +$(grew tlp_probes)" \
			near "$(traced_lost tlp)" "$(grew tlp_probes)"
		t_check "tracepoint mroce_sr_rto: $(traced mroce_sr_rto) events, rto_fires +$(grew rto_fires)" \
			near "$(traced mroce_sr_rto)" "$(grew rto_fires)"
	elif [ "$ops" = write ]; then
		echo "# SKIP tracepoints: no tracefs with events/metaroce"
	fi
done
t_check "metaroce mode, loss 3%: requests resent selectively ($sack)" \
	[ "$sack" -gt 0 ]
t_check "metaroce mode, loss 3%: requests held ahead of a hole ($ooo)" \
	[ "$ooo" -gt 0 ]
t_check "metaroce mode, loss 3%: no NAK sent ($naks)" [ "$naks" -eq 0 ]
t_check "metaroce mode, loss 3%: SEND and WRITE packets placed on arrival ($placed)" \
	[ "$placed" -gt 0 ]
# Up to 16 SENDs in flight, their receive WQEs posted ahead: the packets
# held behind a hole belong mostly to later messages, and each is placed
# in the receive WQE its message will take (MSGH message number).
run "metaroce mode, loss 3%, a stream of SENDs" stream metaroce loss 3%
held=$(grew out_of_sequence) placed=$(grew ooo_placed)
t_check "metaroce mode, loss 3%: held SEND packets of later messages placed on arrival too ($placed of $held)" \
	[ "$held" -gt 0 -a "$((placed * 10))" -ge "$((held * 8))" ]
# The same with b's receive WQEs in an SRQ, under reordering: its QP
# takes the WQEs of later messages from the SRQ when their packets come,
# and keeps them for them.  Now and then, with SENDs in flight, both QPs go
# to ERR: the WQEs b's QP took, ahead or not, complete flushed, each once
# and in order, and after a reset the next SENDs land in the first WQE
# left in the SRQ (mroce_dpcheck -E; it counts the WQEs flushed at once,
# more than one when it caught the QP holding WQEs for later messages).
run "metaroce mode, reordering, a stream of SENDs to an SRQ, QPs to ERR now and then" srqstream metaroce delay 1ms reorder 25% 50%
held=$(grew out_of_sequence) placed=$(grew ooo_placed)
t_check "metaroce mode, reordering, SRQ: held SEND packets of later messages placed on arrival ($placed of $held)" \
	[ "$held" -gt 0 -a "$((placed * 10))" -ge "$((held * 8))" ]

# ---- ACK coalescing
# acks_per_held: MR_ACKs sent per 100 requests held, in the last run.
acks_per_held() {
	echo $(($(grew tx_sack_acks) * 100 / ($(grew out_of_sequence) + 1)))
}
# attr NAME VALUE: set both devices' metaroce_NAME.
attr() {
	echo "$2" >"/sys/class/infiniband/$DEV1/metaroce_$1" &&
		echo "$2" >"/sys/class/infiniband/$DEV2/metaroce_$1"
}
A1=/sys/class/infiniband/$DEV1/metaroce_ack_every
T1=/sys/class/infiniband/$DEV1/metaroce_ack_delay_us
t_check "metaroce_ack_every 16, metaroce_ack_delay_us 200 by default" \
	test "$(cat "$A1") $(cat "$T1")" = "16 200"
t_check_fail "metaroce_ack_every refuses 0" sh -c "echo 0 >$A1"
t_check_fail "metaroce_ack_every refuses 257" sh -c "echo 257 >$A1"
t_check_fail "metaroce_ack_delay_us refuses 0" sh -c "echo 0 >$T1"
t_check_fail "metaroce_ack_delay_us refuses 10001" sh -c "echo 10001 >$T1"
t_check "metaroce_ack_every and metaroce_ack_delay_us kept" \
	test "$(cat "$A1") $(cat "$T1")" = "16 200"
# The count bound alone (a delay bound of 1 ms): on a slow kernel (the
# debug lane's) more than the default delay bound may pass between two
# held requests, and the delay bound then sends an ACK for each.
attr ack_delay_us 1000 || t_fail "metaroce_ack_delay_us 1000"
run "metaroce mode, loss 3%, ACK coalescing (every 16)" write metaroce loss 3%
coalesced=$(acks_per_held)
attr ack_every 1 || t_fail "metaroce_ack_every 1"
run "metaroce mode, loss 3%, an ACK per held request" write metaroce loss 3%
each=$(acks_per_held)
attr ack_every 16 || t_fail "metaroce_ack_every 16"
attr ack_delay_us 200 || t_fail "metaroce_ack_delay_us 200"
t_check "ACK coalescing: $coalesced MR_ACKs per 100 held requests, $each with metaroce_ack_every=1" \
	[ "$((coalesced * 3 / 2))" -lt "$each" ]

# ---- the pipe (PSNs in flight the peer has not reported) and the least
# RTO, whatever the RTT measured: one connection switched with both set
P1=/sys/class/infiniband/$DEV1/metaroce_sr_pipe
R1=/sys/class/infiniband/$DEV1/metaroce_rto_min_us
t_check "metaroce_sr_pipe 256 by default" test "$(cat "$P1")" = 256
t_check_fail "metaroce_sr_pipe refuses 15" sh -c "echo 15 >$P1"
t_check_fail "metaroce_sr_pipe refuses 1025" sh -c "echo 1025 >$P1"
t_check "metaroce_rto_min_us 1000 by default" test "$(cat "$R1")" = 1000
t_check_fail "metaroce_rto_min_us refuses 99" sh -c "echo 99 >$R1"
t_check_fail "metaroce_rto_min_us refuses 100001" sh -c "echo 100001 >$R1"
attr sr_pipe 32 || t_fail "metaroce_sr_pipe 32"
attr rto_min_us 30000 || t_fail "metaroce_rto_min_us 30000"
run "metaroce mode, loss 3%, a pipe of 32 PSNs, an RTO of at least 30 ms" write,read metaroce loss 3%
echo "$SACKED_SEEN" | sed 's/^/#   /'
t_check "rdma res show qp -dd: sq-pipe 32 on both QPs" \
	[ "$(echo "$SACKED_SEEN" | grep -c 'drv_sq-pipe 32 ')" -eq 2 ]
rtos=$(echo "$SACKED_SEEN" | grep -o 'drv_rto-us [0-9]*' | awk '{print $2}' | tr '\n' ' ')
t_check "rdma res show qp -dd: rto-us at least 30000 on both QPs ($rtos)" \
	[ "$(echo "$rtos" | tr ' ' '\n' | awk '$1 >= 30000' | wc -l)" -eq 2 ]
attr sr_pipe 256 || t_fail "metaroce_sr_pipe 256"
attr rto_min_us 1000 || t_fail "metaroce_rto_min_us 1000"

# ---- the rest of the matrix: every kind of request at once
[ "${MROCE_T_SACK_MATRIX:-1}" = 0 ] &&
	echo "# the loss 0.1/1/5/10%, corruption and jitter runs are left out (MROCE_T_SACK_MATRIX=0)"
[ "${MROCE_T_SACK_MATRIX:-1}" = 0 ] ||
for imp in "loss 0.1%" "loss 1%" "loss 5%" "loss 10%" "corrupt 2%" \
	   "delay 200us 150us distribution normal"; do
	# shellcheck disable=SC2086 # the impairment is netem's words
	run "metaroce mode, $imp" write,send,read,atomic metaroce $imp
	t_check "metaroce mode, $imp: no NAK sent ($(grew tx_naks))" \
		[ "$(grew tx_naks)" -eq 0 ]
done

# ---- reordering and duplication
ooo=0 naks=0
for ops in write send; do
	run "metaroce mode, delay 1 ms reorder 25%" "$ops" metaroce \
		delay 1ms reorder 25% 50%
	ooo=$((ooo + $(grew out_of_sequence)))
	naks=$((naks + $(grew tx_naks)))
done
t_check "metaroce mode, reordering: requests held, not NAKed ($ooo held, $naks NAKs)" \
	some_none "$ooo" "$naks"
run "metaroce mode, duplicate 10%" write,send,read,atomic metaroce \
	duplicate 10%
t_check "metaroce mode, duplicate 10%: duplicates seen ($(grew rx_duplicates)), no NAK ($(grew tx_naks))" \
	some_none "$(grew rx_duplicates)" "$(grew tx_naks)"

# ---- roce mode: go-back-N, as RoCEv2 peers expect
policy roce || t_fail "policy roce"
run "roce mode, loss 3%" write roce loss 3%
t_check "roce mode, loss 3%: go-back-N (NAKs $(grew tx_naks), no selective resend)" \
	some_none "$(grew tx_naks)" "$(grew sack_retransmits)"
t_check "roce mode, loss 3%: NAKs received counted (packet_seq_err +$(grew packet_seq_err))" \
	[ "$(grew packet_seq_err)" -gt 0 ]
echo "# $DEV1: $(dp_counters "$DEV1")"
t_done
