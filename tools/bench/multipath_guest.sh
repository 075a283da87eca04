#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `make bench`, the multipath section (guest side, run by bench_guest.sh):
# two host pairs WRITE across a leaf-spine fabric of namespaces, each
# stack in turn, in the same VM run:
#
#   rxe      rdma_rxe: one UDP source port per QP
#   flow     MetaRoCE, metaroce mode, metaroce_path_mode=flow (one port)
#   flowlet  ... flowlet
#   spray    ... spray (the default; metaroce_paths 16, the default)
#   spray64  ... spray with metaroce_paths 64
#
# Topology: rxe in 6.1 opens its UDP socket in the initial namespace only,
# so every RDMA device is there, on veths mpa1, mpa2 (senders, 10.31.i.2)
# and mpb1, mpb2 (receivers, 10.32.i.2) whose other ends are in leaf
# namespaces mpl1 and mpl2; policy routing sends what leaves each local
# address out of its own veth and delivers locally only what comes in on
# one (as the incast section does).  Each leaf routes the other leaf's
# hosts over four spine namespaces by a multipath route hashed on the UDP
# ports (fib_multipath_hash_policy=1).  Each sender's veth is limited to
# HOST Mbit/s and each spine's link towards mpl2 to SPINE Mbit/s (tbf),
# so the two pairs (2 x HOST) fit in the fabric with a spine to spare
# (3 x SPINE), but not in one spine.
#
# The queues are deep (tbf latency 400 ms), so that on the healthy fabric
# nothing is dropped (a one-port stack's window fits in a spine's queue
# even when two share it) and the comparison is one of spreading, not of
# loss recovery.
#
# Variants: healthy; degraded, 5% netem loss on spine 2's link towards
# mpl2; collision, the healthy fabric in the rounds where both pairs'
# single-port stacks (rxe, flow) hashed onto one spine: such a round is
# tried up to 12 times (a 1 in 4 chance each), each try with the
# receivers on new addresses (a new hash: a stack's ports are the same
# on fresh devices), and the others are thrown away (spray and flowlet
# are not run: their packets do not hash as one flow).  Each pair runs ib_write_bw -D SECS with 64 KiB messages; per
# run: the two pairs' goodput summed, each spine's share of the bytes
# towards mpl2, spurious resends and paths retired (MetaRoCE).
# MROCE_T_BENCH_MP_RUNS rounds (default 3), MROCE_T_BENCH_MP_STACKS,
# MROCE_T_BENCH_MP_VARIANTS.
#
# Writes $OUT/bench-multipath.md (the section) and
# bench-multipath-raw.txt.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tools/bench/lib.sh"
OUT=${MROCE_RESULTS:-/tmp}
LOGS=$OUT/bench-logs
PRAW=$OUT/bench-multipath-raw.txt
PRES=$OUT/bench-multipath.md
RUNS=${MROCE_T_BENCH_MP_RUNS:-3}
STACKS=(${MROCE_T_BENCH_MP_STACKS:-rxe flow flowlet spray spray64})
VARIANTS=(${MROCE_T_BENCH_MP_VARIANTS:-healthy degraded collision})
SECS=4 HOST=20 SPINE=15 SPINES=4 PAIRS=2 TRIES=12 PORT0=18600 QLAT=400ms
# Local ACK Timeout 4.096 us << 18, 1 s: a full queue of two windows is
# some 300 ms of delay, past perftest's default (14, 67 ms), which then
# times out and goes back N while the first ACK is still queued.
QPTO=18
L1=mpl1 L2=mpl2
mkdir -p "$LOGS"
: >"$PRAW"

die() { echo "bench multipath: $*" >&2; exit 1; }
command -v tc >/dev/null || die "tc not installed"
command -v ib_write_bw >/dev/null || die "perftest not installed"
export RDMAV_DRIVERS=$ROOT/build/lib/libmetaroce
modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel sch_tbf sch_netem ||
	die "modprobe"
lsmod | grep -q '^metaroce ' || insmod "$ROOT/metaroce.ko" ||
	die "cannot load metaroce.ko"
PREFS=() BTAB=()

# ---- topology
router() { # NS
	ip netns add "$1" || return 1
	ip -n "$1" link set lo up
	ip netns exec "$1" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.fib_multipath_hash_policy=1
}

topo_up() {
	local i s side a b net t=300 nh1=() nh2=()
	router $L1 && router $L2 || return 1
	host_local_rules
	for i in $(seq $PAIRS); do
		for side in a b; do
			a=mp$side$i
			if [ $side = a ]; then
				b=mpla$i net=10.31.$i r=$L1
			else
				b=mplb$i net=10.32.$i r=$L2
			fi
			host_veth "$a" "$b" $r "$net" $t || return 1
			[ $side = b ] && BTAB[$i]=$t
			t=$((t + 1))
		done
		tc qdisc add dev mpa$i root tbf rate ${HOST}mbit burst 16kb \
			latency $QLAT || return 1
	done
	for s in $(seq $SPINES); do
		router mps$s || return 1
		ip link add mps${s}a type veth peer name mpl1s$s &&
			ip link add mps${s}b type veth peer name mpl2s$s || return 1
		ip link set mps${s}a netns mps$s && ip link set mps${s}b netns mps$s &&
			ip link set mpl1s$s netns $L1 && ip link set mpl2s$s netns $L2 ||
			return 1
		ip -n mps$s addr add 10.41.$s.2/24 dev mps${s}a
		ip -n $L1 addr add 10.41.$s.1/24 dev mpl1s$s
		ip -n mps$s addr add 10.42.$s.2/24 dev mps${s}b
		ip -n $L2 addr add 10.42.$s.1/24 dev mpl2s$s
		ip -n mps$s link set mps${s}a up && ip -n mps$s link set mps${s}b up &&
			ip -n $L1 link set mpl1s$s up && ip -n $L2 link set mpl2s$s up ||
			return 1
		ip -n mps$s route add 10.31.0.0/16 via 10.41.$s.1
		ip -n mps$s route add 10.32.0.0/16 via 10.42.$s.1
		nh1+=(nexthop via 10.41.$s.2 dev mpl1s$s)
		nh2+=(nexthop via 10.42.$s.2 dev mpl2s$s)
		spine_qdisc $s
	done
	ip -n $L1 route add 10.32.0.0/16 "${nh1[@]}" &&
		ip -n $L2 route add 10.31.0.0/16 "${nh2[@]}" || return 1
	for i in $(seq $PAIRS); do
		ping -c 1 -W 5 -I 10.31.$i.2 10.32.$i.2 >/dev/null ||
			die "no path from 10.31.$i.2 to 10.32.$i.2 through the fabric"
	done
}

# spine_qdisc S [loss]: spine S's link towards mpl2 at SPINE Mbit/s, with
# 5% loss behind the rate limit when asked.
spine_qdisc() {
	local ns=mps$1 dev=mps${1}b
	ip netns exec $ns tc qdisc del dev $dev root 2>/dev/null
	ip netns exec $ns tc qdisc add dev $dev root handle 1: tbf \
		rate ${SPINE}mbit burst 16kb latency $QLAT || return 1
	[ "${2:-}" = loss ] || return 0
	ip netns exec $ns tc qdisc add dev $dev parent 1:1 handle 10: netem \
		loss 5%
}

topo_down() {
	local d
	for d in $(seq -f 'mpa%g' $PAIRS) $(seq -f 'mpb%g' $PAIRS); do
		ip link del "$d" 2>/dev/null
	done
	for d in $L1 $L2 $(seq -f 'mps%g' $SPINES); do
		ip netns del "$d" 2>/dev/null
	done
	for d in "${PREFS[@]}"; do
		ip rule del pref "$d" 2>/dev/null
	done
}

# ---- stacks: devices mp<x>a<i> (senders) and mp<x>b<i> (receivers)
SRC=() DST=()
stack_up() { # STACK
	local type=metaroce x=m i dev
	case $1 in rxe) type=rxe x=r; modprobe rdma_rxe || return 1 ;; esac
	SRC=() DST=()
	for i in $(seq $PAIRS); do
		rdma link add mp${x}a$i type $type netdev mpa$i &&
			rdma link add mp${x}b$i type $type netdev mpb$i || return 1
		SRC+=(mp${x}a$i) DST+=(mp${x}b$i)
	done
	[ "$type" = rxe ] && return 0
	for dev in "${SRC[@]}"; do
		echo "${1%64}" >"/sys/class/infiniband/$dev/metaroce_path_mode" ||
			return 1
		[ "$1" = spray64 ] || continue
		echo 64 >"/sys/class/infiniband/$dev/metaroce_paths" || return 1
	done
}

stack_down() { # STACK
	rdma_down "$1" "${SRC[@]}" "${DST[@]}"
}

# spine_bytes: bytes each spine sent towards mpl2 so far, space-separated.
spine_bytes() {
	local s out=()
	for s in $(seq $SPINES); do
		out+=("$(ip netns exec mps$s cat /sys/class/net/mps${s}b/statistics/tx_bytes)")
	done
	echo "${out[@]}"
}

listening() { ss -ltn | grep -q ":$1 "; }

# readdr TRY: the receivers on address 10.32.i.(10 + TRY) instead of
# their first (TRY 1 keeps .2); sets RADDR (the last octet in use).
RADDR=2
readdr() {
	local i a=$((10 + $1))
	[ "$1" = 1 ] && a=2
	[ "$a" = "$RADDR" ] && return 0
	for i in $(seq $PAIRS); do
		if [ "$RADDR" != 2 ]; then
			ip addr del 10.32.$i.$RADDR/24 dev mpb$i
			ip rule del pref $((BTAB[i] + 50)) 2>/dev/null
		fi
		if [ "$a" != 2 ]; then
			ip addr add 10.32.$i.$a/24 dev mpb$i || return 1
			ip rule add pref $((BTAB[i] + 50)) from 10.32.$i.$a \
				lookup "${BTAB[i]}" || return 1
		fi
	done
	RADDR=$a
}

# prun STACK VARIANT ROUND TRY: both pairs at once; prints "MB/s|shares
# (% per spine, comma-separated)|max share|spurious %|retired" or
# "fail|reason".
prun() {
	local stack=$1 log=$LOGS/multipath-$1-$2-$3-$4 i g0 g1 pids=() rc=0
	local b0 b1 it sp0 sp1 tx0 tx1 r0 r1
	b0=($(spine_bytes))
	sp0=$(counter_sum spurious_retransmits "${SRC[@]}")
	tx0=$(counter_sum tx_packets "${SRC[@]}")
	r0=$(counter_sum paths_retired "${SRC[@]}")
	for i in $(seq $PAIRS); do
		g1=$(gid_of "${DST[$((i - 1))]}" 10.32.$i.$RADDR) || return 1
		timeout $((SECS + 60)) ib_write_bw -d "${DST[$((i - 1))]}" -x "$g1" \
			-F -s 65536 -D $SECS -f 0 -u $QPTO -p $((PORT0 + i)) \
			>"$log.server$i" 2>&1 &
		pids+=($!)
	done
	for i in $(seq $PAIRS); do
		for _ in $(seq 100); do
			listening $((PORT0 + i)) && break
			sleep 0.1
		done
	done
	for i in $(seq $PAIRS); do
		g0=$(gid_of "${SRC[$((i - 1))]}") || return 1
		timeout $((SECS + 60)) ib_write_bw -d "${SRC[$((i - 1))]}" -x "$g0" \
			-F -s 65536 -D $SECS -f 0 -u $QPTO -p $((PORT0 + i)) \
			127.0.0.1 >"$log.client$i" 2>&1 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || rc=1
	done
	b1=($(spine_bytes))
	sp1=$(counter_sum spurious_retransmits "${SRC[@]}")
	tx1=$(counter_sum tx_packets "${SRC[@]}")
	r1=$(counter_sum paths_retired "${SRC[@]}")
	if [ $rc -ne 0 ]; then
		echo "fail|$(grep -h -m1 -iE 'fail|error|unable' "$log".client* "$log".server* |
			head -n 1 | tr '|' ' ' | cut -c 1-60)"
		return 0
	fi
	it=$(awk '$1 == 65536 && NF >= 5 && $2 ~ /^[0-9]+$/ { s += $2 } END { print s + 0 }' \
		"$log".client*)
	local tot=0 sh=() m=0 v
	for i in $(seq 0 $((SPINES - 1))); do
		tot=$((tot + b1[i] - b0[i]))
	done
	for i in $(seq 0 $((SPINES - 1))); do
		v=$(((b1[i] - b0[i]) * 100 / (tot ? tot : 1)))
		sh+=("$v")
		[ "$v" -gt "$m" ] && m=$v
	done
	local spur=- ret=-
	if [ "$sp0" != - ]; then
		spur=$(awk -v a=$((sp1 - sp0)) -v t=$((tx1 - tx0)) \
			'BEGIN { printf "%.2f", t ? 100 * a / t : 0 }')
		ret=$((r1 - r0))
	fi
	awk -v it="$it" -v secs=$SECS 'BEGIN { printf "%.2f", it * 65536 / secs / 1048576 }'
	echo "|$(IFS=,; echo "${sh[*]}")|$m|$spur|$ret"
}

topo_up || die "cannot build the leaf-spine topology"
start=$(date +%s)
for round in $(seq "$RUNS"); do
	for variant in "${VARIANTS[@]}"; do
		spine_qdisc 2 $([ "$variant" = degraded ] && echo loss) ||
			die "cannot set spine 2's qdisc"
		for stack in "${STACKS[@]}"; do
			case $variant:$stack in
			collision:flowlet | collision:spray*) continue ;;
			esac
			try=1
			while :; do
				readdr $([ "$variant" = collision ] && echo $try || echo 1) ||
					die "cannot move the receivers"
				stack_up "$stack" || die "cannot set up $stack"
				v=$(prun "$stack" "$variant" "$round" "$try")
				stack_down "$stack"
				# a collision round: one spine took (nearly) all
				if [ "$variant" != collision ] ||
					[ "${v%%|*}" = fail ] ||
					[ "$(cut -d'|' -f3 <<<"$v")" -ge 90 ] ||
					[ $try -ge $TRIES ]; then
					break
				fi
				try=$((try + 1))
			done
			if [ "$variant" = collision ] && [ "${v%%|*}" != fail ] &&
				[ "$(cut -d'|' -f3 <<<"$v")" -lt 90 ]; then
				v="fail|no collision in $TRIES tries"
			fi
			echo "multipath|$variant|$stack|$round|$v|$try" | tee -a "$PRAW"
		done
	done
done
spine_qdisc 2
elapsed=$(($(date +%s) - start))
topo_down

# ---- the section
med() { # VARIANT STACK FIELD: median of FIELD over the good rounds
	awk -F'|' -v v="$1" -v s="$2" -v f="$3" \
		'$2 == v && $3 == s && $5 != "fail" { print $f }' "$PRAW" |
		sort -g | awk '{ x[NR] = $1 } END {
			if (!NR) { print "-"; exit }
			if (NR % 2) print x[(NR + 1) / 2]
			else printf "%.2f\n", (x[NR / 2] + x[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'; }
# spread VARIANT STACK: the per-spine shares of its median-goodput round
spread() {
	awk -F'|' -v v="$1" -v s="$2" '$2 == v && $3 == s && $5 != "fail" { print $5, $6 }' \
		"$PRAW" | sort -g | awk '{ x[NR] = $2 } END { if (NR) print x[int((NR + 1) / 2)]; else print "-" }'
}
{
	base=$(med healthy spray 5)
	echo "## Multipath"
	echo
	echo "Two host pairs WRITE 64 KiB messages (ib_write_bw -D $SECS, both pairs at"
	echo "once) across a leaf-spine fabric of namespaces: two leaves, $SPINES spines,"
	echo "each leaf's route to the other's hosts multipath over the spines, hashed"
	echo "on the UDP ports.  Each sender's link is limited to $HOST Mbit/s and each"
	echo "spine's link towards the receivers' leaf to $SPINE Mbit/s (tbf), so both"
	echo "pairs fit in three spines but not in one.  Every RDMA device is in the"
	echo "initial namespace, so rdma_rxe runs the same fabric.  Stacks: rxe (one"
	echo "UDP source port per QP); MetaRoCE in metaroce mode with"
	echo "metaroce_path_mode flow, flowlet or spray (default metaroce_paths, 16),"
	echo "and spray64, spray with metaroce_paths 64."
	echo "Variants: healthy; degraded (5% netem loss on spine 2's link); collision"
	echo "(healthy fabric, the rounds in which both pairs of a one-port stack"
	echo "hashed onto one spine, up to $TRIES tries a round).  MB/s: both pairs'"
	echo "goodput summed (messages x 64 KiB / $SECS s), medians of $RUNS rounds"
	echo "(${elapsed} s in all); vs spray: over healthy spray's median.  Spine"
	echo "shares: % of the bytes towards the receivers' leaf per spine, in the"
	echo "median round; spurious: resends the receiver already had, per packet"
	echo "sent."
	echo
	echo "| variant | stack | MB/s | vs healthy spray | spine shares % | spurious % | paths retired | failed |"
	echo "|---|---|---|---|---|---|---|---|"
	for v in "${VARIANTS[@]}"; do
		for s in "${STACKS[@]}"; do
			case $v:$s in collision:flowlet | collision:spray*) continue ;; esac
			nf=$(awk -F'|' -v v="$v" -v s="$s" '$2 == v && $3 == s && $5 == "fail"' "$PRAW" | wc -l)
			m=$(med "$v" "$s" 5)
			echo "| $v | $s | $m | $(ratio "$m" "$base") | $(spread "$v" "$s" | tr , ' ') | $(med "$v" "$s" 8) | $(med "$v" "$s" 9) | $nf |"
		done
	done
	echo
	echo "Raw figures (multipath|variant|stack|round|MB/s|spine shares %|largest share|spurious %|paths retired|tries):"
	echo
	echo '```'
	cat "$PRAW"
	echo '```'
} >"$PRES"
cat "$PRES"
! grep -q '|fail|' "$PRAW"
