#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Hostile packets: inject.py sends hand-made RoCEv2 packets from the peer
# namespace to MetaRoCE device 1 while mroce_dpcheck moves checked data
# between the two MetaRoCE devices.  Each class of bad packet must raise
# its counter; well-formed requests at the expected PSN that overrun the
# region or the receive (to a victim QP of mroce_dpneg -V) must put only
# that QP in ERR and leave memory around it alone.  The real traffic must
# complete with its data verified, the device objects must return to
# their baseline and the module must unload.
source "$(dirname "$0")/dp_lib.sh"

PY=/usr/bin/python3
INJ=$DP_DIR/inject.py
CHECK=$MROCE_ROOT/build/selftests/datapath/mroce_dpcheck
NEG=$MROCE_ROOT/build/selftests/datapath/mroce_dpneg

mroce_load_or_skip
use_build_provider
$PY -c "import scapy.all" 2>/dev/null || ksft_skip_all "python3-scapy not installed"
make -s -C "$DP_DIR" >/dev/null || ksft_skip_all "cannot build the C tests"
dp_topo mm || ksft_skip_all "cannot build the mm topology"

objects() {
	cat /sys/class/infiniband/"$1"/metaroce_objects 2>/dev/null | tr '\n' ' '
}
cnt() {
	mroce_counter "$DEV1" "$1"
}
base1=$(objects "$DEV1")
base2=$(objects "$DEV2")

# Real traffic: mroce_dpcheck rounds until told to stop; each round's
# exit status is kept.
STOP=$DP_LOGS/inject.stop
RCS=$DP_LOGS/inject.rcs
: >"$RCS"
traffic() {
	local i=0
	while [ ! -e "$STOP" ]; do
		i=$((i + 1))
		"$CHECK" -a "$DEV1" -g "$G1" -b "$DEV2" -G "$G2" -n 3000 \
			>"$DP_LOGS/inject-dpcheck-$i.log" 2>&1
		echo "$i $?" >>"$RCS"
	done
}
traffic &
tpid=$!
defer "touch $STOP; kill $tpid"

# Every class of bad packet at the live QP, each checked against its
# counter by inject.py (EXPECT there), three rounds of packets each.
ip netns exec "$NS2" nice -n 10 $PY "$INJ" --src $DP_IP2 --dst $DP_IP1 --live "$DEV1" \
	--count 3 short_bth short_hdr bad_icrc bad_opcode no_qp bad_pad \
	bad_tver bad_pkey far_psn >"$DP_LOGS/inject-live.log" 2>&1
while read -r line; do
	case $line in
	"ok "*) t_pass "${line#ok }" ;;
	"not ok "*) t_fail "${line#not ok }" ;;
	"#"*) echo "$line" ;;
	esac
done <"$DP_LOGS/inject-live.log"
grep -q "^ok \|^not ok " "$DP_LOGS/inject-live.log" ||
	{ t_fail "inject.py --live"; tail -n 5 "$DP_LOGS/inject-live.log" | sed 's/^/#   /'; }

# Well-formed requests at the expected PSN, to a victim QP.
victim() {
	local kind=$1 class=$2 log=$DP_LOGS/victim-$1.log vpid info naks
	# Python starts slowly under TCG: the victim waits for a line on its
	# stdin (the packet is out) before it looks at its QP.
	coproc VICTIM { nice -n 10 "$NEG" -a "$DEV1" -g "$G1" -b "$DEV2" \
		-G "$G2" -V "$kind" >"$log" 2>&1; }
	vpid=$VICTIM_PID
	if ! busywait 30000 grep -q "^victim " "$log"; then
		t_fail "victim $kind: no victim QP"
		kill $vpid
		return
	fi
	info=$(grep "^victim " "$log")
	local qpn psn rkey va len
	for kv in ${info#victim }; do
		case $kv in
		qpn=*) qpn=${kv#qpn=} ;; psn=*) psn=${kv#psn=} ;;
		rkey=*) rkey=${kv#rkey=} ;; va=*) va=${kv#va=} ;;
		len=*) len=${kv#len=} ;;
		esac
	done
	naks=$(cnt tx_naks)
	local c0
	c0=$(dp_counters "$DEV1")
	ip netns exec "$NS2" nice -n 10 $PY "$INJ" --src $DP_IP2 --dst $DP_IP1 \
		--qpn "$qpn" --psn "$psn" --rkey "$rkey" --va "$va" \
		--len "$len" "$class" >>"$log" 2>&1
	echo sent >&"${VICTIM[1]}"
	wait $vpid
	if grep -q "^ok victim_$kind" "$log"; then
		t_pass "$class at the expected PSN: victim QP in ERR, memory intact"
	else
		t_fail "$class at the expected PSN: $(grep victim_ "$log")"
		tail -n 3 "$log" | sed 's/^/#   /'
		echo "#   before: $c0"
		echo "#   after:  $(dp_counters "$DEV1")"
		rdma resource show qp link "$DEV1/1" | sed 's/^/#   /'
	fi
	t_check "$class: one NAK" test $(($(cnt tx_naks) - naks)) -ge 1
}
victim write reth_overrun
victim send send_too_long

touch "$STOP"
wait $tpid
rounds=$(wc -l <"$RCS")
bad=$(awk '$2 != 0' "$RCS" | wc -l)
if [ "$rounds" -gt 0 ] && [ "$bad" -eq 0 ]; then
	t_pass "real traffic: $rounds mroce_dpcheck rounds, data verified"
else
	t_fail "real traffic: $bad of $rounds mroce_dpcheck rounds failed"
	grep -h FAIL "$DP_LOGS"/inject-dpcheck-*.log | head -5 | sed 's/^/#   /'
fi
echo "# $DEV1: $(dp_counters "$DEV1")"

objects_are() {
	[ "$(objects "$1")" = "$2" ]
}
t_check "$DEV1 objects back to baseline" busywait 5000 objects_are "$DEV1" "$base1"
t_check "$DEV2 objects back to baseline" busywait 5000 objects_are "$DEV2" "$base2"
rdma link del "$DEV1" && rdma link del "$DEV2"
t_check "metaroce unloads" rmmod metaroce
t_done
