#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `make bench`, the incast section (guest side, run by bench_guest.sh):
# N senders and a victim WRITE to one receiver through a router whose
# egress to the receiver is the bottleneck, for each stack in turn, in
# the same VM run:
#
#   rxe             rdma_rxe: no congestion control, go-back-N
#   metaroce-roce   MetaRoCE, policy roce: RoCEv2 with DCQCN on CNPs
#   metaroce        MetaRoCE, metaroce mode, lossless fabric (the
#                   default): selective repeat, DCQCN on CNPs
#   metaroce-lossy  MetaRoCE, metaroce mode, metaroce_fabric=lossy and
#                   metaroce_ecn=0: nothing is marked, the router drops,
#                   the delay-based windows pace the senders
#
# Topology: rxe in 6.1 opens its UDP socket in the initial namespace only,
# so every RDMA device is there: veth bis1..bisN+1 (senders, the last is
# the victim, 10.10.i.2) and bid (receiver, 10.20.0.2), their other ends
# in the namespace bir, which routes between them.  Policy routing sends
# what leaves each local address out of its own veth, and delivers
# locally only what comes in on one.  The router's egress to the receiver
# is tbf at RATE Mbit/s over RED that marks ECN-capable packets CE from a
# 12 KB average queue and drops the others there, and every packet that
# does not fit in 120 KB (incast.sh's bottleneck).
#
# mroce_incast has each sender WRITE COUNT 64 KiB messages, DEPTH at a
# time, and the victim 64 B messages one at a time (first 200 of them
# alone: its idle latency).  Each pair's QPs exchange their ECE offers
# before RTR, as rdma_cm does (-E), so MetaRoCE mode holds from a
# connection's first packet (negotiated in band, the first flight would be
# plain RoCEv2: go-back-N, no window).  Per run: its figures, the router's
# drops, marks and bytes sent, CNPs handled (MetaRoCE).  Rounds: MROCE_T_BENCH_INCAST_RUNS
# (default 3); medians.  MROCE_T_BENCH_INCAST_N senders (default 8),
# MROCE_T_BENCH_INCAST_STACKS (default all four),
# MROCE_T_BENCH_INCAST_ATTRS ("name=value ..." device attributes for
# metaroce-lossy, e.g. cc_target_delay_us=1000),
# MROCE_T_BENCH_INCAST_DCQCN_ATTRS (the same for the devices of
# metaroce-roce and metaroce; "" keeps mlx5's defaults).
#
# DCQCN's defaults (mlx5's) are time constants for a 100 Gb/s NIC, where
# a packet takes 0.1 us on the wire: alpha decays every 1 us without a CNP,
# one cut per 4 us, the rate climbs every 300 us.  At this bottleneck a
# 1 KiB packet takes about 170 us and a QP's CNPs come milliseconds apart, so
# with those defaults alpha has decayed to nothing by the next CNP, the
# cuts are a few per mille, and the rate never leaves tens of Gb/s
# (measured: 34 Gb/s, alpha 0-4 of 1023, and go-back-N into a full queue
# until RETRY_EXC_ERR).  The stacks with DCQCN therefore get the time
# constants scaled to the testbed: alpha period, monitor period and CNP
# spacing 1 ms, increase timer 100 ms, additive and hyper increase
# steps 1 and 5 Mb/s (2 and 10 % of the link).
#
# Writes $OUT/bench-incast.md (the section), bench-incast-raw.txt and
# bench-incast-fct.txt (stack, completion time in us, every message of
# every round) for the chart.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tools/bench/lib.sh"
OUT=${MROCE_RESULTS:-/tmp}
LOGS=$OUT/bench-logs
IRAW=$OUT/bench-incast-raw.txt
IFCT=$OUT/bench-incast-fct.txt
IRES=$OUT/bench-incast.md
RUNS=${MROCE_T_BENCH_INCAST_RUNS:-3}
N=${MROCE_T_BENCH_INCAST_N:-8}
STACKS=(${MROCE_T_BENCH_INCAST_STACKS:-rxe metaroce-roce metaroce metaroce-lossy})
# DCQCN's time constants for this testbed (see the header)
DCQCN_ATTRS=${MROCE_T_BENCH_INCAST_DCQCN_ATTRS-dce_tcp_rtt_us=1000 \
rate_reduce_monitor_period_us=1000 np_min_time_between_cnps=1000 \
rpg_time_reset_us=100000 rpg_ai_rate_mbps=1 rpg_hai_rate_mbps=5}
RATE=50 COUNT=20 DEPTH=4 SIZE=65536 IDLE=200
BIN=$ROOT/build/selftests/datapath/mroce_incast
R=bir
mkdir -p "$LOGS"
: >"$IRAW"
: >"$IFCT"

die() { echo "bench incast: $*" >&2; exit 1; }
[ -x "$BIN" ] || die "no $BIN (make -C selftests/datapath)"
command -v tc >/dev/null || die "tc not installed"
export RDMAV_DRIVERS=$ROOT/build/lib/libmetaroce
modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel sch_tbf sch_red ||
	die "modprobe"
lsmod | grep -q '^metaroce ' || insmod "$ROOT/metaroce.ko" ||
	die "cannot load metaroce.ko"
PREFS=()

# ---- topology
topo_up() {
	local i ifs=() t=200
	ip netns add $R || return 1
	ip -n $R link set lo up
	ip netns exec $R sysctl -qw net.ipv4.ip_forward=1
	host_local_rules
	for i in $(seq $((N + 1))); do
		ifs+=("bis$i|bir$i|10.10.$i")
	done
	ifs+=("bid|bird|10.20.0")
	for x in "${ifs[@]}"; do
		IFS='|' read -r a b net <<<"$x"
		host_veth "$a" "$b" $R "$net" $t || return 1
		t=$((t + 1))
	done
	ip netns exec $R tc qdisc add dev bird root handle 1: tbf \
		rate ${RATE}mbit burst 16kb latency 50ms &&
		ip netns exec $R tc qdisc add dev bird parent 1:1 handle 10: red \
		limit 120000 min 12000 max 36000 avpkt 1100 burst 12 \
		probability 0.2 bandwidth ${RATE}mbit ecn || return 1
	ping -c 1 -W 5 -I 10.10.1.2 10.20.0.2 >/dev/null ||
		die "no path from 10.10.1.2 to 10.20.0.2 through the router"
}

topo_down() {
	local d
	for d in bid $(seq -f 'bis%g' $((N + 1))); do
		ip link del "$d" 2>/dev/null
	done
	ip netns del $R 2>/dev/null
	for d in "${PREFS[@]}"; do
		ip rule del pref "$d" 2>/dev/null
	done
}

# ---- stacks: devices bi<x>d (receiver) and bi<x>1..N+1 (senders)
DEVS=()
stack_up() { # STACK
	local type=metaroce x=m i dev a
	case $1 in rxe) type=rxe x=r; modprobe rdma_rxe || return 1 ;; esac
	DEVS=()
	for i in d $(seq $((N + 1))); do
		dev=bi$x$i
		if [ "$i" = d ]; then a=bid; else a=bis$i; fi
		rdma link add "$dev" type $type netdev "$a" || return 1
		DEVS+=("$dev")
	done
	[ "$type" = rxe ] && return 0
	# set_attrs DIR "name=value ...": the device's metaroce_NAME values
	set_attrs() {
		local kv
		for kv in $2; do
			echo "${kv#*=}" >"$1/metaroce_${kv%%=*}" || return 1
		done
	}
	for dev in "${DEVS[@]}"; do
		d=/sys/class/infiniband/$dev
		case $1 in
		metaroce-roce | metaroce)
			[ "$1" = metaroce ] ||
				echo roce >"$d/metaroce_mode_policy" || return 1
			set_attrs "$d" "$DCQCN_ATTRS" || return 1
			;;
		metaroce-lossy)
			echo lossy >"$d/metaroce_fabric" &&
				echo 0 >"$d/metaroce_ecn" &&
				set_attrs "$d" "${MROCE_T_BENCH_INCAST_ATTRS:-}" ||
				return 1
			;;
		esac
	done
}

stack_down() { # STACK
	rdma_down "$1" "${DEVS[@]}"
}

# bottleneck_stats: "dropped marked sent" so far: the RED qdisc's drops and
# marks, the bytes (frames) the tbf sent.
bottleneck_stats() {
	ip netns exec $R tc -s qdisc show dev bird | awk '
		$1 == "qdisc" { q = $2 }
		q == "tbf" && $1 == "Sent" { sent = $2 }
		q == "red" && $1 == "Sent" { sub(/,/, "", $7); dropped = $7 }
		q == "red" && $1 == "marked" { marked = $2 }
		END { print dropped, marked, sent }'
}

# irun STACK ROUND: one incast; one raw line.
irun() {
	local stack=$1 round=$2 args=() i g log fct d0 m0 b0 d1 m1 b1 c0 c1 v lu
	log=$LOGS/incast-$stack-$round.txt fct=$LOGS/incast-$stack-$round.fct
	g=$(gid_of "${DEVS[0]}") || return 1
	args=(-r "${DEVS[0]}:$g")
	for i in $(seq "$N"); do
		g=$(gid_of "${DEVS[$i]}") || return 1
		args+=(-s "${DEVS[$i]}:$g")
	done
	g=$(gid_of "${DEVS[$((N + 1))]}") || return 1
	args+=(-v "${DEVS[$((N + 1))]}:$g")
	read -r d0 m0 b0 <<<"$(bottleneck_stats)"
	c0=$(counter_sum rp_cnp_handled "${DEVS[@]:1}")
	timeout 300 "$BIN" "${args[@]}" -m $SIZE -n $COUNT -d $DEPTH \
		-R $RATE -I $IDLE -E -o "$fct" >"$log" 2>&1
	local rc=$?
	sleep 1
	read -r d1 m1 b1 <<<"$(bottleneck_stats)"
	c1=$(counter_sum rp_cnp_handled "${DEVS[@]:1}")
	[ "$c0" = - ] || c1=$((c1 - c0))
	if [ $rc -ne 0 ]; then
		echo "incast|$stack|$round|fail|$(grep -m1 -E 'FAIL|Bail|error' "$log" | tr '|' ' ')"
		return 0
	fi
	awk -v s="$stack" '{ print s, $2 }' "$fct" >>"$IFCT"
	v=$(awk '{ k[$1] = $2 } END {
		printf "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s", k["goodput_MBps"],
		k["bottleneck_use"], k["fct_p50_us"], k["fct_p99_us"],
		k["fct_max_us"], k["p99_ratio"], k["victim_idle_p99_us"],
		k["victim_p50_us"], k["victim_p99_us"], k["victim_p99_ratio"] }' "$log")
	# what crossed the bottleneck over what it could carry during the run
	lu=$(awk -v b=$((b1 - b0)) -v r=$RATE '$1 == "seconds" && $2 > 0 {
		printf "%.2f", b * 8 / (r * 1e6 * $2) }' "$log")
	echo "incast|$stack|$round|$v|$((d1 - d0))|$((m1 - m0))|$c1|$(awk '$1 == "ideal_us" { print $2 }' "$log")|${lu:--}"
}

topo_up || die "cannot build the incast topology"
start=$(date +%s)
for round in $(seq "$RUNS"); do
	for stack in "${STACKS[@]}"; do
		stack_up "$stack" || die "cannot set up $stack"
		irun "$stack" "$round" | tee -a "$IRAW"
		stack_down "$stack"
	done
done
elapsed=$(($(date +%s) - start))
topo_down

# ---- the section
med() { # STACK FIELD: the median of FIELD over STACK's good rounds
	awk -F'|' -v s="$1" -v f="$2" '$2 == s && $4 != "fail" { print $f }' "$IRAW" |
		sort -g | awk '{ v[NR] = $1 } END {
			if (!NR) { print "-"; exit }
			if (NR % 2) print v[(NR + 1) / 2]
			else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ms() { awk -v v="$1" 'BEGIN { if (v == "-") print "-"; else printf "%.1f", v / 1000 }'; }
{
	ideal=$(awk -F'|' '$4 != "fail" { print $17; exit }' "$IRAW")
	echo "## Incast"
	echo
	echo "$N:1 incast through a router namespace whose egress to the receiver is"
	echo "tbf at $RATE Mbit/s over RED (marks ECN-capable packets CE from a 12 KB"
	echo "average queue, drops the others there, and all that does not fit in"
	echo "120 KB; no PFC): each sender WRITEs $COUNT messages of 64 KiB, $DEPTH at a"
	echo "time; a victim WRITEs 64 B messages one at a time meanwhile, and $IDLE"
	echo "alone first (idle).  Each pair's QPs exchange their ECE offers before"
	echo "RTR, as rdma_cm does (MetaRoCE mode from the first packet; rxe has no"
	echo "ECE).  Every RDMA device is in the initial namespace, so"
	echo "rdma_rxe runs the same topology.  Stacks: rxe (no congestion control);"
	echo "metaroce-roce (RoCEv2, DCQCN on CNPs); metaroce (metaroce mode, lossless"
	if [ -n "$DCQCN_ATTRS" ]; then
		echo "fabric policy: DCQCN), both with $DCQCN_ATTRS"
		echo "(DCQCN's time constants for this millisecond-scale testbed: with"
		echo "mlx5's defaults, made for a 100 Gb/s NIC, alpha decays to nothing"
		echo "between two CNPs and the rate stays at tens of Gb/s; see"
		echo "tools/bench/incast_guest.sh);"
	else
		echo "fabric policy: DCQCN), both with mlx5's DCQCN defaults;"
	fi
	echo "metaroce-lossy (metaroce_fabric=lossy,"
	echo "metaroce_ecn=0${MROCE_T_BENCH_INCAST_ATTRS:+, $MROCE_T_BENCH_INCAST_ATTRS}: the router drops instead of marking, the"
	echo "delay-based windows pace).  Medians of $RUNS rounds (${elapsed} s in all)."
	echo "Ideal: one message's completion time with fair sharing, 64 KiB x $DEPTH x $N"
	echo "/ $RATE Mbit/s = $(ms "${ideal:--}") ms (posted behind $((DEPTH - 1)) of its own flow).  use:"
	echo "goodput over the bottleneck rate (payload only: headers make ~0.93 the"
	echo "most).  link use: the bytes the bottleneck sent (frames with their"
	echo "headers, resends and the victim's messages included) over what it could"
	echo "send while the incast ran (mroce_incast's seconds; the counter also"
	echo "holds the victim's idle run before, ~30 KB).  Victim: loaded p99 over"
	echo "idle p99.  Drops and marks: the RED"
	echo "qdisc's; CNPs: handled by the senders (rp_cnp_handled)."
	echo
	echo "| stack | MB/s | use | link use | FCT p50 ms | FCT p99 ms | p99 / ideal | FCT max ms | victim idle p99 ms | victim p50 ms | victim p99 ms | victim p99 / idle | drops | marks | CNPs | failed |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for s in "${STACKS[@]}"; do
		nf=$(awk -F'|' -v s="$s" '$2 == s && $4 == "fail"' "$IRAW" | wc -l)
		echo "| $s | $(med "$s" 4) | $(med "$s" 5) | $(med "$s" 18) | $(ms "$(med "$s" 6)") | $(ms "$(med "$s" 7)") | $(med "$s" 9) | $(ms "$(med "$s" 8)") | $(ms "$(med "$s" 10)") | $(ms "$(med "$s" 11)") | $(ms "$(med "$s" 12)") | $(med "$s" 13) | $(med "$s" 14) | $(med "$s" 15) | $(med "$s" 16) | $nf |"
	done
	echo
	echo "Raw figures (incast|stack|round|MB/s|use|FCT p50|p99|max us|p99/ideal|victim idle p99|victim p50|p99 us|victim p99/idle|drops|marks|CNPs|ideal us|link use):"
	echo
	echo '```'
	cat "$IRAW"
	echo '```'
} >"$IRES"
cat "$IRES"
! grep -q '|fail|' "$IRAW"
