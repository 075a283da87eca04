#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# A process holding one object of every type (verbs_hold.c: context, comp
# channel, PD, MR, CQs, SRQ, RC/UD/SRQ QPs, AH, queued receives, mapped
# rings) is SIGKILLed, over and over; every fourth one is killed while it
# is still creating its objects.  Afterwards `rdma resource` counts, the
# module's own object counters (sysfs metaroce_objects) and the ring
# buffers in /proc/vmallocinfo are back to their baseline.
#
# MROCE_KILL_CYCLES (default 1000) cycles, cut short after
# MROCE_KILL_BUDGET seconds (default 420: TCG is slow); fewer than
# MROCE_KILL_MIN (200) completed cycles fail the test.
source "$(dirname "$0")/verbs_lib.sh"

CYCLES=${MROCE_KILL_CYCLES:-1000}
BUDGET=${MROCE_KILL_BUDGET:-420}
MIN=${MROCE_KILL_MIN:-200}

mroce_load_or_skip
use_build_provider
make -s -C "$VERBS_DIR" >/dev/null || ksft_skip_all "cannot build the C tests"

va=$(uname_of a) vb=$(uname_of b) dev=k$$x
veth_pair "$va" "" "$vb" "" || ksft_skip_all "cannot create veth"
ip addr add 192.0.2.1/24 dev "$va"
t_check "rdma link add $dev" mroce_dev_on "$dev" "$va"
busywait 5000 port_state_is "$dev" ACTIVE
busywait 5000 ipv4_gid_index "$dev" >/dev/null
gid=$(ipv4_gid_index "$dev")

objects() { cat "/sys/class/infiniband/$dev/metaroce_objects"; }
resources() { rdma resource show "$dev" 2>/dev/null | sed 's/^[0-9]*: //'; }
rings() { grep -c 'mroce_kring_alloc' /proc/vmallocinfo; }
state() { echo "objects: $(objects) | rdma: $(resources) | rings: $(rings)"; }

base=$(state)
echo "# baseline $base"
hold=$(mktemp)
defer rm -f "$hold"

# One held process, for the per-object counts.
"$VERBS_BIN/verbs_hold" "$dev" "$gid" >"$hold" &
pid=$!
busywait 10000 grep -q ready "$hold"
t_check "verbs_hold created every object" grep -q ready "$hold"
echo "# holding  $(state)"
kill -9 $pid
wait $pid 2>/dev/null

# At least MIN cycles, then more until CYCLES or the time budget.  The
# helper's "ready" is read from a pipe: no polling.
start=$(date +%s) n=0 bad=0
while [ $n -lt "$MIN" ] ||
	{ [ $n -lt "$CYCLES" ] && [ $(($(date +%s) - start)) -lt "$BUDGET" ]; }; do
	coproc HOLD { exec "$VERBS_BIN/verbs_hold" "$dev" "$gid" 2>/dev/null; }
	pid=$HOLD_PID
	if [ $((n % 4)) -eq 3 ]; then
		# Mid-creation: somewhere between open and ready.
		sleep 0.0$((RANDOM % 5))
	else
		read -r -t 10 -u "${HOLD[0]}" line && [ "$line" = ready ] ||
			bad=$((bad + 1))
	fi
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	n=$((n + 1))
done
secs=$(($(date +%s) - start))
echo "# $n cycles in ${secs}s ($((secs * 1000 / (n ? n : 1))) ms each)"
t_check "$n create/kill cycles ($CYCLES wanted, at least $MIN)" [ "$n" -ge "$MIN" ]
t_check "every waited-for process got ready ($bad did not)" [ "$bad" -eq 0 ]

same() { [ "$(state)" = "$base" ]; }
busywait 10000 same
now=$(state)
echo "# after    $now"
t_check "module object counters back to baseline" \
	[ "$(objects)" = "$(sed 's/^objects: \(.*\) | rdma.*/\1/' <<<"$base")" ]
t_check "rdma resource counts back to baseline" \
	[ "$(resources)" = "$(sed 's/.*| rdma: \(.*\) | rings.*/\1/' <<<"$base")" ]
t_check "ring buffers (vmallocinfo) back to baseline" \
	[ "$(rings)" = "${base##*rings: }" ]
t_check "rdma link del $dev with nothing left" rdma link del "$dev"
t_done
