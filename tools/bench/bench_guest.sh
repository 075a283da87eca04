#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `make bench`, the guest side: perftest over MetaRoCE and over rdma_rxe in
# the same VM, on the same wire, one stack after the other, several rounds.
#
# Topology: one veth pair in the initial namespace (rxe in 6.1 only opens
# its UDP socket there), 10.9.0.1 on bva and 10.9.0.2 on bvb.  Policy
# routing sends traffic between the two local addresses over the veth
# instead of through lo, so both stacks carry every packet through the
# same veth, IP and UDP code; only the RDMA stack differs.  The stacks
# cannot share UDP port 4791, so each round sets up rxe, measures, removes
# it and unloads rdma_rxe, then does the same with MetaRoCE.
#
# MROCE_T_BENCH_RUNS rounds (default 5); the table has each row's median.
# MROCE_T_BENCH_PERF=1 profiles every client run with `perf record -a`
# (cpu-clock: TCG has no hardware counters) and leaves the hottest symbols
# of the whole VM in bench-logs/*.perf.txt (=g: with their call chains;
# perf's figures cost time: the bandwidth of such a run is not comparable).
# Every run leaves bench-logs/*.counts.txt: softirqs, interrupts and
# context switches per message (counts() below).
# MROCE_T_BENCH_ONLY=REGEX keeps only the rows whose name matches (for
# development: a partial table says so in its header).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/tools/bench/lib.sh"
RUNS=${MROCE_T_BENCH_RUNS:-5}
OUT=${MROCE_RESULTS:-/tmp}
RAW=$OUT/bench-raw.txt
RES=$OUT/bench-results.md
LOGS=$OUT/bench-logs
IP_A=10.9.0.1
IP_B=10.9.0.2
PORT=18600
mkdir -p "$LOGS"
: >"$RAW"

# name|tool|size|iterations|kind(bw: MB/s average, lat: typical usec)|QPs
ROWS=(
	"ib_write_bw 4 KiB|ib_write_bw|4096|2000|bw|1"
	"ib_write_bw 64 KiB|ib_write_bw|65536|400|bw|1"
	"ib_send_bw 4 KiB|ib_send_bw|4096|2000|bw|1"
	"ib_send_bw 64 KiB|ib_send_bw|65536|400|bw|1"
	"ib_read_bw 4 KiB|ib_read_bw|4096|2000|bw|1"
	"ib_read_bw 64 KiB|ib_read_bw|65536|400|bw|1"
	"ib_write_bw 64 KiB, 4 QPs|ib_write_bw|65536|200|bw|4"
	"ib_read_bw 64 KiB, 4 QPs|ib_read_bw|65536|200|bw|4"
	"ib_write_lat 2 B|ib_write_lat|2|2000|lat|1"
	"ib_send_lat 2 B|ib_send_lat|2|2000|lat|1"
)

# Rows measured once more per round on MetaRoCE with zero-copy transmit off
# (module parameter tx_zcopy=0: every payload copied into the skb), as
# stack "metaroce-copy": what sending by reference saves.
ZROWS=(
	"ib_write_bw 64 KiB|ib_write_bw|65536|400|bw|1"
	"ib_send_bw 64 KiB|ib_send_bw|65536|400|bw|1"
	"ib_read_bw 64 KiB|ib_read_bw|65536|400|bw|1"
)
ZPARAM=/sys/module/metaroce/parameters/tx_zcopy

# Rows measured once more per round on MetaRoCE with the UDP checksum
# option off on both devices (sysfs metaroce_udp_csum=0), as stack
# "metaroce-icrc": both QPs are in metaroce mode either way (policy auto),
# but these protect every packet with the software ICRC, where the rows
# above use the UDP checksum, which the veth takes as verified without
# computing it (Documentation/wire.rst, "Integrity").
CROWS=(
	"ib_write_bw 64 KiB|ib_write_bw|65536|400|bw|1"
	"ib_send_bw 64 KiB|ib_send_bw|65536|400|bw|1"
	"ib_read_bw 64 KiB|ib_read_bw|65536|400|bw|1"
)

# Rows measured once more per round on MetaRoCE with the transport mode
# policy roce on both devices (sysfs metaroce_mode_policy), as stack
# "metaroce-roce": plain RoCEv2 between two MetaRoCE devices (go-back-N,
# ICRC, no mark), what a MetaRoCE QP does with any RoCE peer.
RROWS=(
	"ib_write_bw 64 KiB|ib_write_bw|65536|400|bw|1"
	"ib_send_bw 64 KiB|ib_send_bw|65536|400|bw|1"
	"ib_read_bw 64 KiB|ib_read_bw|65536|400|bw|1"
	"ib_write_lat 2 B|ib_write_lat|2|2000|lat|1"
)

# The loss and reorder matrix (issue 13): 64 KiB WRITE, READ and SEND for
# a fixed time (perftest -D, so that a stack that collapses cannot stall
# the bench) under each impairment, on rdma_rxe, on MetaRoCE with policy
# roce on both devices (stack "metaroce-roce": go-back-N) and on MetaRoCE
# in metaroce mode (selective repeat).  netem impairs only RoCE packets
# (UDP destination port 4791), leaving ARP and perftest's TCP exchange
# alone, on both ends of the veth; it is installed just before each run
# and removed after it.  Rows are named "matrix OP 64 KiB, IMPAIRMENT";
# MROCE_T_BENCH_MATRIX_RUNS rounds (default 2), MROCE_T_BENCH_MATRIX_SECS
# seconds per run (default 2), MROCE_T_BENCH_MATRIX=0 leaves it out, and
# an MROCE_T_BENCH_ONLY that matches only matrix rows runs the matrix alone;
# MROCE_T_BENCH_MATRIX_STACKS (development) names the stacks to run, e.g.
# "metaroce" alone.
MRUNS=${MROCE_T_BENCH_MATRIX_RUNS:-2}
MSECS=${MROCE_T_BENCH_MATRIX_SECS:-2}
MRAW=$OUT/bench-matrix-raw.txt
# shellcheck disable=SC2206 # a list of words, by design
MSTACKS=(${MROCE_T_BENCH_MATRIX_STACKS:-rxe metaroce-roce metaroce})
IMPS=("clean" "loss 0.1%" "loss 1%" "loss 5%" "loss 10%" "delay 1ms"
	"delay 1ms reorder 25% 50%")
MROWS=()
for op in ib_write_bw ib_read_bw ib_send_bw; do
	for imp in "${IMPS[@]}"; do
		MROWS+=("matrix $op 64 KiB, $imp|$op|$imp")
	done
done
[ "${MROCE_T_BENCH_MATRIX:-1}" = 0 ] && MROWS=()
: >"$MRAW"

die() { echo "bench: $*" >&2; exit 1; }

# only_rows NAME: keep the rows of array NAME that MROCE_T_BENCH_ONLY matches.
only_rows() {
	local -n rows=$1
	local kept=() row

	for row in "${rows[@]}"; do
		[[ ${row%%|*} =~ $MROCE_T_BENCH_ONLY ]] && kept+=("$row")
	done
	rows=("${kept[@]}")
}

# The incast section (tools/bench/incast_guest.sh), one "row" named
# incast; MROCE_T_BENCH_INCAST=0 leaves it out.  The same for the
# multipath section (tools/bench/multipath_guest.sh), "row" multipath,
# MROCE_T_BENCH_MULTIPATH.
INCAST=${MROCE_T_BENCH_INCAST:-1}
MULTIPATH=${MROCE_T_BENCH_MULTIPATH:-1}
if [ -n "${MROCE_T_BENCH_ONLY:-}" ]; then
	only_rows ROWS
	only_rows MROWS
	[[ incast =~ $MROCE_T_BENCH_ONLY ]] || INCAST=0
	[[ multipath =~ $MROCE_T_BENCH_ONLY ]] || MULTIPATH=0
	[ ${#ROWS[@]} -gt 0 ] || [ ${#MROWS[@]} -gt 0 ] || [ "$INCAST" = 1 ] ||
		[ "$MULTIPATH" = 1 ] ||
		die "no row matches '$MROCE_T_BENCH_ONLY'"
	only_rows ZROWS
	only_rows CROWS
	only_rows RROWS
fi

for t in ib_write_bw ib_send_bw ib_read_bw ib_write_lat ib_send_lat rdma; do
	command -v "$t" >/dev/null || die "$t not installed (make deps)"
done
[ -f "$ROOT/metaroce.ko" ] || die "no metaroce.ko (make)"
export RDMAV_DRIVERS=$ROOT/build/lib/libmetaroce

wire_up() {
	ip link add bva type veth peer name bvb || return 1
	ip addr add $IP_A/24 dev bva
	ip addr add $IP_B/24 dev bvb
	ip link set bva up && ip link set bvb up || return 1
	sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
	for d in bva bvb; do
		sysctl -qw net.ipv4.conf.$d.rp_filter=0 net.ipv4.conf.$d.accept_local=1
	done
	# Local delivery only for what arrives on the veth; to the other
	# address, out of the other end.
	ip rule add pref 1000 lookup local
	ip rule del pref 0 lookup local
	ip rule add pref 10 iif bva lookup local
	ip rule add pref 11 iif bvb lookup local
	ip rule add pref 20 to $IP_B lookup 102
	ip rule add pref 21 to $IP_A lookup 101
	ip route add $IP_B dev bva src $IP_A table 102 &&
		ip route add $IP_A dev bvb src $IP_B table 101 || return 1
	ping -c 1 -W 5 -I bva $IP_B >/dev/null ||
		{ echo "bench: no path from $IP_A to $IP_B over the veth" >&2; return 1; }
}

stack_up() { # rxe|metaroce
	if [ "$1" = rxe ]; then
		modprobe rdma_rxe || return 1
		rdma link add brxe0 type rxe netdev bva &&
			rdma link add brxe1 type rxe netdev bvb || return 1
		DA=brxe0 DB=brxe1
	else
		rdma link add bmr0 type metaroce netdev bva &&
			rdma link add bmr1 type metaroce netdev bvb || return 1
		DA=bmr0 DB=bmr1
	fi
	GA=$(gid_of $DA) && GB=$(gid_of $DB)
}

stack_down() {
	rdma link del "$DA" 2>/dev/null
	rdma link del "$DB" 2>/dev/null
	[ "$1" = rxe ] && modprobe -r rdma_rxe 2>/dev/null
	return 0
}

# udp_csum 0|1: the UDP checksum option of both MetaRoCE devices.
udp_csum() {
	echo "$1" >"/sys/class/infiniband/$DA/metaroce_udp_csum" &&
		echo "$1" >"/sys/class/infiniband/$DB/metaroce_udp_csum"
}

# mode_policy auto|roce|metaroce: the transport mode policy of both devices.
mode_policy() {
	echo "$1" >"/sys/class/infiniband/$DA/metaroce_mode_policy" &&
		echo "$1" >"/sys/class/infiniband/$DB/metaroce_mode_policy"
}

# csum_per_msg STACK ROW: packets sent with the UDP checksum per message,
# mean over the rounds' counts.txt of STACK's runs of ROW ("-" if none).
csum_per_msg() {
	local tool size qps
	IFS='|' read -r _ tool size _ _ qps <<<"$2"
	cat "$LOGS/$1-$tool-$size-q$qps"-*.counts.txt 2>/dev/null |
		awk '$1 == "tx_udp_csum_packets:" { n++; s += $2 }
		     END { if (n) printf "%.2f\n", s / n; else print "-" }'
}

# vs_table STACK LABEL MAIN_LABEL EXTRA ROW...: a table of ROWs, STACK
# (LABEL) against MetaRoCE as measured in the main rows (MAIN_LABEL):
# medians, ratio MetaRoCE / STACK, CPU ms per MiB.  EXTRA, when not "-",
# names a function that prints the header of more columns when given
# "head", their cells ("| a | b ") when given a row.
vs_table() {
	local stack=$1 label=$2 main=$3 extra=$4 row name c z cu zu ratio
	local head="| test | $label | $main | ratio | CPU ms/MiB $label | CPU ms/MiB $main "
	local rule="|---|---|---|---|---|---"
	shift 4
	[ "$extra" != - ] && head+=$($extra head) && rule+="|---|---"
	echo "$head|"
	echo "$rule|"
	for row in "$@"; do
		name=${row%%|*}
		c=$(grep -F "$stack|$name|" "$RAW" | cut -d'|' -f4 | grep -v fail | median)
		z=$(grep "^metaroce|$name|" "$RAW" | cut -d'|' -f4 | grep -v fail | median)
		cu=$(grep -F "$stack|$name|" "$RAW" | cut -d'|' -f6 | grep -v - | median)
		zu=$(grep "^metaroce|$name|" "$RAW" | cut -d'|' -f6 | grep -v - | median)
		ratio=-
		[ "$c" != - ] && [ "$z" != - ] &&
			ratio=$(awk -v a="$z" -v b="$c" 'BEGIN { printf "%.2f", a / b }')
		echo "| $name | $c | $z | $ratio | $cu | $zu $([ "$extra" = - ] || $extra "$row")|"
	done
}

# csum_cells head|ROW: the UDP-checksum columns of the integrity table.
csum_cells() {
	if [ "$1" = head ]; then
		echo "| UDP-csum pkts/msg ICRC | UDP-csum pkts/msg UDP checksum "
	else
		echo "| $(csum_per_msg metaroce-icrc "$1") | $(csum_per_msg metaroce "$1") "
	fi
}

ctxt() { awk '/^ctxt/ { print $2 }' /proc/stat; }
# Send doorbell system calls of both MetaRoCE devices (0 for rxe, which
# has no such counter: its provider makes one per ibv_post_send()).
doorbells() {
	local d n=0 v
	for d in "$DA" "$DB"; do
		v=$(rdma statistic show link "$d/1" 2>/dev/null |
			tr ' ' '\n' | grep -A1 -x sq_doorbells | tail -n 1)
		n=$((n + ${v:-0}))
	done
	echo $n
}
# Busy CPU time of the whole VM (user, nice, system, irq, softirq), ticks.
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

# What a message costs besides CPU time, whole VM: softirqs by kind
# (/proc/softirqs), local timer, rescheduling and function-call interrupts
# (/proc/interrupts LOC, RES, CAL) and context switches, as "NAME COUNT"
# lines summed over the CPUs.  (Not perf's tracepoints: enabling them
# patches kernel text, which hung a TCG guest.)
counts() {
	awk 'NR > 1 { n = 0; for (i = 2; i <= NF; i++) n += $i; print $1, n }' \
		/proc/softirqs
	awk '$1 ~ /^(LOC|RES|CAL):$/ { n = 0
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; print $1, n }' \
		/proc/interrupts
	echo "ctxt: $(ctxt)"
	# MetaRoCE's own: task runs in a worker, doorbells and packets that
	# found a task busy, both devices (absent for rxe).
	local d c v n
	for c in task_worker_runs task_busy tx_udp_csum_packets; do
		n=0
		for d in "$DA" "$DB"; do
			read -r v 2>/dev/null <"/sys/class/infiniband/$d/ports/1/hw_counters/$c" || continue
			n=$((n + v))
		done
		echo "$c: $n"
	done
}

# per_msg BEFORE AFTER MESSAGES: the difference of two counts() per message.
per_msg() {
	awk -v m="$3" 'NR == FNR { a[$1] = $2; next }
		{ printf "%s %.2f\n", $1, ($2 - a[$1]) / m }' "$1" "$2"
}

# perf_prefix LOG: into the array PERF, the command that profiles a client
# run into LOG.perf.data when MROCE_T_BENCH_PERF asks for it (g: with call
# chains), else nothing.
perf_prefix() {
	PERF=()
	case ${MROCE_T_BENCH_PERF:-0} in
	0) ;;
	g) PERF=(perf record -q -a -g -e cpu-clock -o "$1.perf.data" --) ;;
	*) PERF=(perf record -q -a -e cpu-clock -o "$1.perf.data" --) ;;
	esac
}

# perf_keep LOG: the profile's hottest symbols into LOG.perf.txt.
perf_keep() {
	[ -f "$1.perf.data" ] || return 0
	perf report -q -i "$1.perf.data" --stdio --sort sym --no-children \
		--percent-limit 0.5 2>/dev/null | head -n 400 >"$1.perf.txt"
	rm -f "$1.perf.data"
}

# run_once STACK ROW LOG: one perftest run; prints the figure (or "fail"),
# the context switches of the whole VM per message during the run and,
# for bandwidth rows, the VM's busy CPU milliseconds per MiB moved.
run_once() {
	local stack=$1 row=$2 log=$3 name tool size n kind qps spid i c0 c1 b0 b1 d0 d1
	IFS='|' read -r name tool size n kind qps <<<"$row"
	# The latency tools have no -q.
	local q=()
	[ "$qps" -gt 1 ] && q=(-q "$qps")
	timeout 120 "$tool" -d "$DB" -x "$GB" -F -s "$size" -n "$n" -p $PORT \
		"${q[@]}" >"$log.server" 2>&1 &
	spid=$!
	for i in $(seq 100); do
		ss -Hltn "sport = :$PORT" | grep -q . && break
		sleep 0.1
	done
	counts >"$log.counts0"
	c0=$(ctxt) b0=$(busy) d0=$(doorbells)
	perf_prefix "$log"
	timeout 120 "${PERF[@]}" "$tool" -d "$DA" -x "$GA" -F -s "$size" \
		-n "$n" -p $PORT "${q[@]}" $IP_B >"$log.client" 2>&1
	local crc=$?
	perf_keep "$log"
	c1=$(ctxt) b1=$(busy) d1=$(doorbells)
	counts >"$log.counts1"
	per_msg "$log.counts0" "$log.counts1" $((n * qps)) >"$log.counts.txt"
	rm -f "$log.counts0" "$log.counts1"
	wait $spid
	local src=$?
	if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
		echo fail - - - -
		return
	fi
	local wk
	wk=$(awk '$1 == "task_worker_runs:" { print $2 }' "$log.counts.txt")
	[ "$stack" = rxe ] && wk=-
	# bw: "#bytes #iterations BW-peak BW-average MsgRate";
	# lat: "#bytes #iterations t_min t_max t_typical ...".
	# /proc/stat ticks are 10 ms (USER_HZ 100).
	awk -v s="$size" -v k="$kind" -v cs="$(((c1 - c0) / (n * qps)))" \
	    -v ms="$(((b1 - b0) * 10))" -v mib="$((size * n * qps))" \
	    -v db="$(((d1 - d0) * 100 / (n * qps)))" -v st="$stack" -v wk="${wk:--}" '
		$1 == s && NF >= 5 && $2 ~ /^[0-9]+$/ {
			cpu = (k == "bw") ? sprintf("%.1f", ms / (mib / 1048576)) : "-"
			dbm = (st == "rxe") ? "-" : sprintf("%.2f", db / 100)
			print ((k == "bw") ? $4 : $5), cs, cpu, dbm, wk; found = 1; exit
		}
		END { if (!found) print "fail - - - -" }' "$log.client"
}

# measure STACK ROW ROUND: "figure ctxt" of one run, or "fail -".  perftest
# converts cycles to time with a CPU clock it estimates at start-up; when
# the host is busy the estimate can fail and the run reports inf or 0.
# Such a run is repeated (up to three tries in all).
measure() {
	local stack=$1 row=$2 round=$3 tool size qps v cs cpu db wk try
	IFS='|' read -r _ tool size _ _ qps <<<"$row"
	for try in 1 2 3; do
		read -r v cs cpu db wk < <(run_once "$stack" "$row" \
			"$LOGS/$stack-$tool-$size-q$qps-$round-$try")
		case $v in
		fail) break ;;
		inf | -inf | nan | -nan | 0 | 0.0 | 0.00) v=fail ;;
		*) break ;;
		esac
	done
	echo "$v|$cs|$cpu|$db|$wk"
}

median() { # numbers on stdin
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "-"; exit }
		if (NR % 2) print v[(NR + 1) / 2]
		else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel || die "modprobe"
modprobe -r rdma_rxe 2>/dev/null
insmod "$ROOT/metaroce.ko" 2>/dev/null || lsmod | grep -q '^metaroce ' ||
	die "cannot load metaroce.ko"
wire_up || die "cannot build the veth topology"

# Only matrix rows asked for: no main rows, nor what goes with them.
MAIN=1
[ ${#ROWS[@]} -gt 0 ] || MAIN=0

start=$(date +%s)
for round in $(seq $((RUNS * MAIN))); do
	for stack in rxe metaroce; do
		stack_up $stack || die "cannot set up $stack"
		for row in "${ROWS[@]}"; do
			v=$(measure $stack "$row" "$round")
			echo "$stack|${row%%|*}|$round|$v" | tee -a "$RAW"
		done
		if [ $stack = metaroce ] && [ -w $ZPARAM ]; then
			zc=$(cat $ZPARAM)
			echo 0 >$ZPARAM
			for row in "${ZROWS[@]}"; do
				v=$(measure metaroce-copy "$row" "$round")
				echo "metaroce-copy|${row%%|*}|$round|$v" | tee -a "$RAW"
			done
			echo "$zc" >$ZPARAM
		fi
		if [ $stack = metaroce ] && [ ${#CROWS[@]} -gt 0 ]; then
			udp_csum 0 || die "cannot turn metaroce_udp_csum off"
			for row in "${CROWS[@]}"; do
				v=$(measure metaroce-icrc "$row" "$round")
				echo "metaroce-icrc|${row%%|*}|$round|$v" | tee -a "$RAW"
			done
			udp_csum 1
		fi
		if [ $stack = metaroce ] && [ ${#RROWS[@]} -gt 0 ]; then
			mode_policy roce || die "cannot set policy roce"
			for row in "${RROWS[@]}"; do
				v=$(measure metaroce-roce "$row" "$round")
				echo "metaroce-roce|${row%%|*}|$round|$v" | tee -a "$RAW"
			done
			mode_policy auto
		fi
		stack_down $stack
	done
done
elapsed=$(($(date +%s) - start))

# impair IMPAIRMENT: netem IMPAIRMENT ("clean": none) on the RoCE packets
# leaving either end of the veth.  A prio qdisc sends everything to its
# second band except UDP destination port 4791, which a u32 filter steers
# to the third, where netem sits; so ARP and the TCP connection perftest
# exchanges its parameters over are never lost or delayed.  One tc
# process for all of it: under TCG every process started costs a good
# fraction of a second.
impair() {
	local d
	[ "$1" = clean ] && return 0
	for d in bva bvb; do
		echo "qdisc replace dev $d root handle 1: prio bands 3" \
			"priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"
		echo "qdisc replace dev $d parent 1:3 handle 30: netem $1"
		echo "filter add dev $d parent 1: protocol ip prio 1 u32" \
			"match ip protocol 17 0xff match ip dport 4791 0xffff flowid 1:3"
	done | tc -batch -
}

unimpair() {
	printf 'qdisc del dev %s root\n' bva bvb | tc -force -batch - >/dev/null 2>&1
	return 0
}

# listening PORT: a TCP socket listens on PORT (read from /proc, to start
# no process).
listening() {
	local hex f _sl addr _rem st _rest
	printf -v hex ':%04X' "$1"
	for f in /proc/net/tcp /proc/net/tcp6; do
		while read -r _sl addr _rem st _rest; do
			[ "$st" = 0A ] && [ "${addr: -5}" = "$hex" ] && return 0
		done <"$f"
	done
	return 1
}

# stats: the port counters of both devices (rdma statistic, one process
# for all links), summed by name, one "NAME VALUE" line each.
stats() {
	rdma statistic show 2>/dev/null | tr -s ' \t' '\n' |
		awk -v a="$DA/1" -v b="$DB/1" '
		p == "link" { cur = $1 }
		(cur == a || cur == b) && p ~ /^[a-z_]+$/ && $1 ~ /^[0-9]+$/ {
			n[p] += $1
		}
		{ p = $1 }
		END { for (k in n) print k, n[k] }'
}

# why_failed LOG RC_CLIENT RC_SERVER: one line saying why a run failed.
why_failed() {
	local st
	if [ "$2" = 124 ] || [ "$3" = 124 ]; then
		echo "timed out"
		return
	fi
	# perftest: "Failed status 12: wr_id ..." (enum ibv_wc_status)
	st=$(grep -ho 'Failed status [0-9]*' "$1.client" "$1.server" | head -n 1)
	case ${st##* } in
	5) echo "WR_FLUSH_ERR" ;;
	9) echo "REM_INV_REQ_ERR" ;;
	10) echo "REM_ACCESS_ERR" ;;
	11) echo "REM_OP_ERR" ;;
	12) echo "RETRY_EXC_ERR" ;;
	13) echo "RNR_RETRY_EXC_ERR" ;;
	"") grep -hiE -m 1 'error|fail|couldn|unable|exceed' \
		"$1.client" "$1.server" | head -n 1 | tr -s ' \t|' ' ' |
		cut -c 1-60 | grep . || echo "client exit $2, server exit $3" ;;
	*) echo "WC status ${st##* }" ;;
	esac
}

# mrun STACK ROW ROUND: one run of the matrix, as "MB/s|messages|tx
# packets|retry events|selective resends|duplicates received|RACK losses|TLP probes|
# RTO fires|perftest's MB/s|reason" (MB/s "fail" with the reason when
# perftest failed; counters "-" where the stack has none).  The goodput is
# the messages perftest completed in its $MSECS s (margin 0: all of the run
# is measured) times 64 KiB, in MiB/s like perftest's "MB/sec": perftest's
# own figure comes from a CPU clock it estimates at start-up, which under
# TCG on a busy host often fails and reads 0.00 (kept, for comparison).
# The run's logs: bench-logs/matrix-STACK-OP-IMPAIRMENT-ROUND.{client,
# server,counters.txt}, the last with the change of every device counter
# and the VM's busy CPU time (cpu_busy_ms; 2 vCPUs: at most 2 x $MSECS s),
# and with MROCE_T_BENCH_PERF=1 .perf.txt, the hottest symbols of the
# whole VM during the client's run (perf costs time: its goodput is not
# comparable).
mrun() {
	local stack=$1 name op imp log spid crc src
	IFS='|' read -r name op imp <<<"$2"
	log=$LOGS/matrix-$stack-$op-${imp//[ %]/_}-$3
	if ! impair "$imp" >"$log.tc" 2>&1; then
		unimpair
		echo "fail|-|-|-|-|-|-|-|-|-|cannot install netem $imp"
		return
	fi
	[ -s "$log.tc" ] || rm -f "$log.tc"
	timeout $((MSECS + 60)) "$op" -d "$DB" -x "$GB" -F -s 65536 \
		-D "$MSECS" -f 0 -p $PORT >"$log.server" 2>&1 &
	spid=$!
	for _ in $(seq 100); do
		listening $PORT && break
		sleep 0.1
	done
	stats >"$log.stats0"
	echo "cpu_busy_ms $(($(busy) * 10))" >>"$log.stats0"
	perf_prefix "$log"
	timeout $((MSECS + 60)) "${PERF[@]}" "$op" -d "$DA" -x "$GA" -F \
		-s 65536 -D "$MSECS" -f 0 -p $PORT $IP_B >"$log.client" 2>&1
	crc=$?
	wait $spid
	src=$?
	stats >"$log.stats1"
	echo "cpu_busy_ms $(($(busy) * 10))" >>"$log.stats1"
	perf_keep "$log"
	[ "$imp" = clean ] || unimpair
	local why=-
	[ $crc -ne 0 ] || [ $src -ne 0 ] && why=$(why_failed "$log" $crc $src)
	# "#bytes #iterations BW-peak BW-average MsgRate"; rxe counts sent_pkts
	# and completer_retry_err, MetaRoCE tx_packets and retransmits (and
	# selective repeat's own).
	awk -v why="$why" -v st="$stack" -v secs="$MSECS" '
		FILENAME == ARGV[1] { a[$1] = $2; next }
		FILENAME == ARGV[2] { d[$1] = $2 - a[$1]; next }
		$1 == 65536 && NF >= 5 && $2 ~ /^[0-9]+$/ && it == "" {
			it = $2; pbw = $4
		}
		function c(k) { return (k in d) ? d[k] : "-" }
		END {
			bw = (it == "") ? "fail" : sprintf("%.2f", it * 65536 / secs / 1048576)
			if (why != "-") bw = "fail"
			if (why == "-" && bw == "fail") why = "no result line"
			if (it == "") it = pbw = "-"
			if (st == "rxe")
				printf "%s|%s|%s|%s|-|-|-|-|-|%s|%s\n", bw, it,
					c("sent_pkts"), c("completer_retry_err"), pbw, why
			else
				printf "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n", bw, it,
					c("tx_packets"), c("retransmits"),
					c("sack_retransmits"), c("rx_duplicates"),
					c("rack_losses"), c("tlp_probes"), c("rto_fires"),
					pbw, why
		}' "$log.stats0" "$log.stats1" "$log.client"
	# Every counter's change, both devices summed, for a closer look.
	awk 'FILENAME == ARGV[1] { a[$1] = $2; next } { print $1, $2 - a[$1] }' \
		"$log.stats0" "$log.stats1" | sort >"$log.counters.txt"
	rm -f "$log.stats0" "$log.stats1"
}

# dev_attrs: MROCE_T_BENCH_ATTRS ("NAME=VALUE ...", development: e.g.
# "ack_delay_us=200") into both MetaRoCE devices' metaroce_NAME.
dev_attrs() {
	local a d
	for a in ${MROCE_T_BENCH_ATTRS:-}; do
		for d in "$DA" "$DB"; do
			echo "${a#*=}" >"/sys/class/infiniband/$d/metaroce_${a%%=*}" ||
				return 1
		done
		echo "bench: $a on $DA and $DB" >&2
	done
}

# mode_up STACK: the devices of STACK (rxe, metaroce-roce, metaroce), the
# MetaRoCE ones with the mode policy the name says.
mode_up() {
	case $1 in
	rxe) stack_up rxe ;;
	metaroce) stack_up metaroce && mode_policy auto ;;
	metaroce-roce) stack_up metaroce && mode_policy roce ;;
	esac
}

# matrix_up STACK: as mode_up, and the matrix's attributes on metaroce.
matrix_up() {
	mode_up "$1" || return
	[ "$1" != metaroce ] || dev_attrs
}

mstart=$(date +%s)
if [ ${#MROWS[@]} -gt 0 ]; then
	modprobe -a sch_prio sch_netem cls_u32 ||
		die "no sch_prio, sch_netem or cls_u32 for the matrix"
	for round in $(seq "$MRUNS"); do
		for stack in "${MSTACKS[@]}"; do
			matrix_up "$stack" || die "cannot set up $stack"
			for row in "${MROWS[@]}"; do
				IFS='|' read -r name op imp <<<"$row"
				v=$(mrun "$stack" "$row" "$round")
				echo "matrix|$stack|$op|$imp|$round|$v" | tee -a "$MRAW"
			done
			stack_down "${stack%%-*}"
		done
	done
fi
melapsed=$(($(date +%s) - mstart))

# The incast section; its own VM topology, after the veth rows.
IRES=$OUT/bench-incast.md
rm -f "$IRES"
INCAST_OK=1
if [ "$INCAST" = 1 ]; then
	"$ROOT/tools/bench/incast_guest.sh" || INCAST_OK=0
fi
# The multipath section; its own leaf-spine topology.
PRES=$OUT/bench-multipath.md
rm -f "$PRES"
if [ "$MULTIPATH" = 1 ]; then
	"$ROOT/tools/bench/multipath_guest.sh" || INCAST_OK=0
fi

# matrix_report: the matrix section of the results, from $MRAW (fields:
# matrix|stack|op|impairment|round|MB/s|messages|tx packets|retry events|
# selective resends|duplicates received|RACK losses|TLP probes|RTO fires|perftest's
# MB/s|reason).
matrix_report() {
	local rows row name op imp
	rows=$(for row in "${MROWS[@]}"; do
		IFS='|' read -r name op imp <<<"$row"
		echo "$op|$imp"
	done)
	awk -F'|' -v rows="$rows" '
	function med(s,    n, v, i, j, t) {
		n = split(s, v, " ")
		if (!n) return ""
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function num(x) { return x ~ /^[0-9]+(\.[0-9]*)?$/ }
	function add(a, k, x) { a[k] = (k in a) ? a[k] " " x : x }
	$1 == "matrix" {
		k = $2 SUBSEP $3 SUBSEP $4
		if ($6 == "fail") {
			nf[k]++
			if (!(k in why)) why[k] = $16
			next
		}
		add(bw, k, $6)
		if (num($7) && num($8) && $7 > 0) add(ppm, k, $8 / $7)
		if (num($9)) add(rty, k, $9)
		if (num($10) && num($8) && $8 > 0) add(rsn, k, 100 * $10 / $8)
		if (num($11) && num($8) && $8 > 0) add(spu, k, 100 * $11 / $8)
	}
	function base(imp) { return imp ~ /reorder/ ? "delay 1ms" : "clean" }
	function cell(fmt, x) { return x == "" ? "-" : sprintf(fmt, x) }
	# pct ST OP IMP: goodput as % of that under the base impairment, or "".
	function pct(st, op, imp,    m, b) {
		m = med(bw[st, op, imp]); b = med(bw[st, op, base(imp)])
		return (m == "" || b == "" || b == 0) ? "" : 100 * m / b
	}
	function extra(st, op, imp,    m, b) {
		m = med(ppm[st, op, imp]); b = med(ppm[st, op, base(imp)])
		return (m == "" || b == "" || b == 0) ? "" : 100 * (m / b - 1)
	}
	function mbs(st, op, imp,    k, m) {
		k = st SUBSEP op SUBSEP imp
		m = med(bw[k])
		return m != "" ? sprintf("%.2f", m) : (k in nf) ? "fail" : "-"
	}
	# verdict OK ALL: "met", "not met" or "not measured".
	function verdict(ok, all) {
		return !ok ? "**not met**" : all ? "met" : "not measured"
	}
	# target IMP MIN: metaroce mode keeps MIN% of its clean goodput.
	function target(imp, min,    i, p, s, ok, all) {
		ok = 1; all = 1; s = ""
		for (i = 1; i <= nops; i++) {
			p = pct("metaroce", ops[i], imp)
			s = s sprintf("%s%s %s", i > 1 ? ", " : "", short[ops[i]],
				p == "" ? "-" : sprintf("%.0f%%", p))
			if (p == "") all = 0; else if (p < min) ok = 0
		}
		printf "- %s: >= %d%% of the clean goodput: %s: %s.\n",
			imp, min, s, verdict(ok, all)
	}
	END {
		nr = split(rows, r, "\n")
		for (i = 1; i <= nr; i++) {
			split(r[i], f, "|")
			if (!(f[1] in seen)) { ops[++nops] = f[1]; seen[f[1]] = 1 }
		}
		short["ib_write_bw"] = "WRITE"; short["ib_read_bw"] = "READ"
		short["ib_send_bw"] = "SEND"
		nst = split("rxe metaroce-roce metaroce", st, " ")
		print "| test | impairment | MB/s rxe | MB/s roce mode | MB/s metaroce mode | % rxe | % roce mode | % metaroce mode | extra pkts % rxe | extra pkts % roce mode | extra pkts % metaroce mode | retry events rxe | retry events roce mode | resent % metaroce mode | spurious % metaroce mode | failed runs |"
		print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		for (i = 1; i <= nr; i++) {
			split(r[i], f, "|")
			op = f[1]; imp = f[2]
			line = sprintf("| %s 64 KiB | %s%s ", op, imp,
				base(imp) == "clean" ? "" : " (% of delay 1ms)")
			for (j = 1; j <= nst; j++)
				line = line "| " mbs(st[j], op, imp) " "
			for (j = 1; j <= nst; j++)
				line = line "| " cell("%.0f", pct(st[j], op, imp)) " "
			for (j = 1; j <= nst; j++)
				line = line "| " cell("%.1f", extra(st[j], op, imp)) " "
			for (j = 1; j <= 2; j++)
				line = line "| " cell("%g", med(rty[st[j], op, imp])) " "
			line = line "| " cell("%.2f", med(rsn["metaroce", op, imp])) " "
			line = line "| " cell("%.2f", med(spu["metaroce", op, imp])) " "
			fl = ""
			for (j = 1; j <= nst; j++) {
				k = st[j] SUBSEP op SUBSEP imp
				if (k in nf)
					fl = fl sprintf("%s%s %d (%s)", fl == "" ? "" : "; ",
						st[j], nf[k], why[k])
			}
			print line "| " (fl == "" ? "-" : fl) " |"
		}
		print ""
		print "Targets (issue 13, metaroce mode):"
		print ""
		target("loss 1%", 70)
		target("loss 5%", 40)
		imp = "delay 1ms reorder 25% 50%"
		ok = 1; all = 1; s = ""
		for (i = 1; i <= nops; i++) {
			p = pct("metaroce", ops[i], imp)
			q = med(spu["metaroce", ops[i], imp])
			s = s sprintf("%s%s %s of delay 1ms, spurious %s", i > 1 ? "; " : "",
				short[ops[i]], p == "" ? "-" : sprintf("%.0f%%", p),
				q == "" ? "-" : sprintf("%.2f%%", q))
			if (p == "" || q == "") all = 0
			if ((p != "" && p < 90) || (q != "" && q >= 1)) ok = 0
		}
		printf "- %s: >= 90%% of delay 1ms alone, spurious retransmissions < 1%% of packets sent: %s: %s.\n",
			imp, s, verdict(ok, all)
		ok = 1; all = 1; s = ""
		for (i = 1; i <= nops; i++) {
			m = med(bw["metaroce", ops[i], "clean"])
			b = med(bw["metaroce-roce", ops[i], "clean"])
			s = s sprintf("%s%s %s vs %s MB/s", i > 1 ? ", " : "", short[ops[i]],
				m == "" ? "-" : sprintf("%.2f", m), b == "" ? "-" : sprintf("%.2f", b))
			if (m == "" || b == "") all = 0; else if (m < b) ok = 0
		}
		printf "- clean: no worse than roce mode: %s: %s.\n", s, verdict(ok, all)
	}' "$MRAW"
}

# Offset in a large region (MetaRoCE only): 64 KiB WRITEs at the start and
# at the end of a 1 GiB region, alternately (mroce_dpcheck -W).
MROFF="not measured (no mroce_dpcheck: make -C selftests/datapath)"
DPCHECK=$ROOT/build/selftests/datapath/mroce_dpcheck
if [ $MAIN = 1 ] && [ -x "$DPCHECK" ] && stack_up metaroce; then
	MROFF=$(timeout 300 "$DPCHECK" -a "$DA" -g "$GA" -b "$DB" -G "$GB" \
		-W 1024 -n 800 2>&1 | tail -n 1)
	stack_down metaroce
fi

# The round trip of one 2-byte WRITE inside one system call: one process
# on CPU 0 with both QPs (mroce_dpcheck -L), so the request, the
# responder, the ACK and the completer all run in ibv_post_send() on one
# CPU and nothing waits for another; what the stack's own code path costs.
SYNC="not measured (no mroce_dpcheck)"
if [ $MAIN = 1 ] && [ -x "$DPCHECK" ]; then
	sm=() sr=()
	for round in $(seq "$RUNS"); do
		for stack in rxe metaroce; do
			stack_up $stack || continue
			v=$(taskset -c 0 timeout 120 "$DPCHECK" -a "$DA" -g "$GA" \
				-b "$DB" -G "$GB" -n 3000 -L 2>/dev/null |
				sed -n 's/.*one at a time: \([0-9.]*\) us each.*/\1/p')
			stack_down $stack
			[ -n "$v" ] || continue
			echo "sync|$stack|$round|$v" >>"$RAW"
			if [ $stack = rxe ]; then sr+=("$v"); else sm+=("$v"); fi
		done
	done
	r=$(printf '%s\n' "${sr[@]}" | grep . | median)
	m=$(printf '%s\n' "${sm[@]}" | grep . | median)
	SYNC="rxe $r us, MetaRoCE $m us"
	[ "$r" != - ] && [ "$m" != - ] &&
		SYNC="$SYNC, ratio $(awk -v a="$m" -v b="$r" 'BEGIN { printf "%.2f", a / b }')"
fi

# Where that round trip's time goes: -L runs of 5000 and then 25000
# round trips per stack under `perf record` on CPU 0 (everything of the
# round trip runs there), their samples sorted by symbol into the stack's
# own module, clock source reads, CRC-32 (the ICRC), the rest of the
# kernel (system call, UDP/IP, veth, skb allocation), user space and
# idle.  The difference between the two runs is 20000 round trips
# without the set-up and teardown that both runs share: each class's
# samples there, at 2000 a second, give its time per round trip.
SPROF_N1=5000 SPROF_N2=25000 SPROF_HZ=2000
# sprof_classes N MOD: the samples of an -L run of N round trips per
# class, "module clock crc kernel user idle", MOD the stack's module.
sprof_classes() {
	taskset -c 0 perf record -q -C 0 -F $SPROF_HZ -e cpu-clock \
		-o /tmp/sprof.data -- taskset -c 0 timeout 120 \
		"$DPCHECK" -a "$DA" -g "$GA" -b "$DB" -G "$GB" -n "$1" -L \
		>/dev/null 2>&1 || return 1
	# A line that is no symbol: the file is never empty.
	{ echo -; awk -v m="[$2]" '$NF == m { print $3 }' /proc/kallsyms; } \
		>/tmp/sprof.mod
	perf report -q -n -i /tmp/sprof.data --stdio --no-children \
		--sort sym --percent-limit 0 2>/dev/null |
		awk '
		NR == FNR { mod[$1] = 1; next }
		{
			n = $2; kind = $3; s = $4
			if (s ~ /crc32|crc_t10|crypto_shash/) c = "crc"
			else if (kind == "[.]") c = "user"
			else if (s in mod) c = "mod"
			else if (s ~ /^(read_hpet|read_tsc|read_acpi_pm|kvm_clock_|ktime_get)/) c = "clock"
			else if (s ~ /(safe_halt|_idle|mwait)/) c = "idle"
			else c = "kernel"
			t[c] += n
		}
		END {
			printf "%d %d %d %d %d %d\n", t["mod"], t["clock"],
			       t["crc"], t["kernel"], t["user"], t["idle"]
		}' /tmp/sprof.mod -
	rm -f /tmp/sprof.data /tmp/sprof.mod
}

# sprof_round STACK ROUND: one profile of STACK (rxe, metaroce-roce,
# metaroce) into $RAW: syncprof|STACK|ROUND|total|module|clock|crc|
# kernel|user|idle, us per round trip.
sprof_round() {
	local stack=$1 mod=metaroce c1 c2 line=
	[ $stack = rxe ] && mod=rdma_rxe
	mode_up $stack || return
	c1=$(sprof_classes $SPROF_N1 $mod)
	c2=$(sprof_classes $SPROF_N2 $mod)
	[ -n "$c1" ] && [ -n "$c2" ] &&
		line=$(echo "$c1 $c2" | awk -v hz=$SPROF_HZ \
			-v n=$((SPROF_N2 - SPROF_N1)) '{
			for (i = 1; i <= 6; i++) {
				us[i] = ($(i + 6) - $i) * 1e6 / hz / n
				all += us[i]
			}
			printf "%.1f", all
			for (i = 1; i <= 6; i++)
				printf "|%.1f", us[i]
			printf "\n"
		}')
	stack_down ${stack%-roce}
	[ -n "$line" ] && echo "syncprof|$stack|$2|$line" >>"$RAW"
}

SPROF=()
SPROF_WHY="not measured (no mroce_dpcheck)"
if [ $MAIN = 1 ] && [ -x "$DPCHECK" ] && ! command -v perf >/dev/null; then
	SPROF_WHY="not measured (no perf: apt-get install linux-perf)"
elif [ $MAIN = 1 ] && [ -x "$DPCHECK" ]; then
	SPROF_WHY=
	for round in $(seq "$RUNS"); do
		for stack in rxe metaroce-roce metaroce; do
			sprof_round $stack $round
		done
	done
	for stack in rxe metaroce-roce metaroce; do
		grep -q "^syncprof|$stack|" "$RAW" || continue
		line=
		for col in $(seq 4 10); do
			v=$(grep "^syncprof|$stack|" "$RAW" | cut -d'|' -f$col |
				median)
			line="$line | $(awk -v v="$v" 'BEGIN { printf "%.1f", v }')"
		done
		case $stack in
		rxe) label=rxe ;;
		metaroce) label="MetaRoCE, metaroce mode" ;;
		*) label="MetaRoCE, roce mode" ;;
		esac
		SPROF+=("| $label$line |")
	done
fi

# What the ICRC's CRC-32 costs in this kernel, per 1 KiB and 4 KiB packet:
# the kernel's own hash speed test (tcrypt mode=300, one second per block
# size) of "crc32", the transform the module computes the ICRC with
# (mroce_crc.c; crc32-pclmul where the CPU has carry-less multiply), and of
# crc32-generic, the table fallback.  tcrypt always refuses to stay loaded.
icrc_cost() {
	local alg=$1 out
	dmesg -C
	modprobe tcrypt mode=300 alg="$alg" sec=1 2>/dev/null
	out=$(dmesg)
	awk -v alg="$alg" '
		/testing speed of/ && match($0, /\(([^)]*)\)/) {
			drv = substr($0, RSTART + 1, RLENGTH - 2) }
		# The result is a record of its own after its header line.
		/byte blocks/ { cur = "" }
		/\( *1024 byte blocks, *1024 bytes per update/ { cur = 1 }
		/\( *4096 byte blocks, *4096 bytes per update/ { cur = 4 }
		cur && match($0, /[0-9]+ opers\/sec/) {
			ns = 1e9 / substr($0, RSTART, RLENGTH - 10)
			if (cur == 1) k1 = ns; else k4 = ns
			cur = ""
		}
		END {
			if (!k1 || !k4) { print alg ": not measured (no tcrypt)"; exit }
			printf "%s (%s): %.0f ns per 1 KiB, %.0f ns per 4 KiB\n", alg, drv, k1, k4
		}' <<<"$out"
}
ICRC_COST="not measured (matrix rows only)"
[ $MAIN = 1 ] && ICRC_COST="$(icrc_cost crc32); $(icrc_cost crc32-generic)"

{
	echo "# MetaRoCE vs rdma_rxe: perftest side by side"
	echo
	echo "Written by \`make bench\` ($(date -u '+%Y-%m-%d %H:%M UTC'))."
	[ -n "${MROCE_T_BENCH_ONLY:-}" ] &&
		echo "Partial run: only the rows matching '$MROCE_T_BENCH_ONLY'."
	echo "Kernel $(uname -r) under QEMU ($(nproc) vCPUs, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB)."
	if [ $MAIN = 1 ]; then
		echo "Both stacks in the same VM on the same veth pair, one after the other,"
		echo "$RUNS rounds; each figure is the median of the rounds (${elapsed} s in all)."
		echo "Host load average when the VM started: ${MROCE_T_BENCH_LOAD:-unknown}"
		echo "(2 host cores: above 1, other work was competing with the VM)."
		echo "Bandwidth: perftest's BW average in MB/s (higher is better);"
		echo "latency: t_typical in usec (lower is better).  Ratio = MetaRoCE / rxe."
		echo "ctxt/msg: context switches of the whole VM per message during the"
		echo "client's run (/proc/stat), a cost that does not depend on host load."
		echo "CPU ms/MiB: busy CPU time of the whole VM (both ends, all contexts)"
		echo "per MiB moved, bandwidth rows.  doorbells/msg: send doorbell system"
		echo "calls of both MetaRoCE devices per message (counter sq_doorbells); rxe's"
		echo "provider makes one per ibv_post_send() call and has no counter for it."
		echo "worker runs/msg: runs of MetaRoCE's QP tasks in a worker thread per"
		echo "message (counter task_worker_runs, both devices): each costs a switch to"
		echo "a kworker and back; the rest of the task runs in softirq or in the"
		echo "posting system call."
		echo
		echo "| test | rxe | MetaRoCE | ratio | MetaRoCE not slower | ctxt/msg rxe | ctxt/msg MetaRoCE | CPU ms/MiB rxe | CPU ms/MiB MetaRoCE | doorbells/msg MetaRoCE | worker runs/msg MetaRoCE |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|"
		for row in "${ROWS[@]}"; do
			IFS='|' read -r name tool size n kind _ <<<"$row"
			r=$(grep -F "rxe|$name|" "$RAW" | cut -d'|' -f4 | grep -v fail | median)
			m=$(grep "^metaroce|$name|" "$RAW" | cut -d'|' -f4 | grep -v fail | median)
			fails=$(grep -F "|$name|" "$RAW" | grep -c '|fail|')
			rc=$(grep -F "rxe|$name|" "$RAW" | cut -d'|' -f5 | grep -v - | median)
			mc=$(grep "^metaroce|$name|" "$RAW" | cut -d'|' -f5 | grep -v - | median)
			ru=$(grep -F "rxe|$name|" "$RAW" | cut -d'|' -f6 | grep -v - | median)
			mu=$(grep "^metaroce|$name|" "$RAW" | cut -d'|' -f6 | grep -v - | median)
			md=$(grep "^metaroce|$name|" "$RAW" | cut -d'|' -f7 | grep -v - | median)
			mw=$(grep "^metaroce|$name|" "$RAW" | cut -d'|' -f8 | grep -v - | median)
			ratio=- ok=-
			if [ "$r" != - ] && [ "$m" != - ]; then
				ratio=$(awk -v a="$m" -v b="$r" 'BEGIN { printf "%.2f", a / b }')
				if [ "$kind" = bw ]; then
					ok=$(awk -v x="$ratio" 'BEGIN { print (x >= 1) ? "yes" : "NO" }')
				else
					ok=$(awk -v x="$ratio" 'BEGIN { print (x <= 1) ? "yes" : "NO" }')
				fi
			fi
			[ "$fails" -gt 0 ] && ok="$ok ($fails failed runs)"
			echo "| $name | $r | $m | $ratio | $ok | $rc | $mc | $ru | $mu | $md | $mw |"
		done
		if [ ${#ZROWS[@]} -gt 0 ] && grep -q '^metaroce-copy|' "$RAW"; then
			echo
			echo "Zero-copy transmit: MetaRoCE as above (payloads of $(cat $ZPARAM 2>/dev/null) bytes"
			echo "or more sent from the memory region's pages by reference) against"
			echo "MetaRoCE with tx_zcopy=0 (every payload copied into the skb), same rounds."
			echo
			vs_table metaroce-copy copy "by reference" - "${ZROWS[@]}"
		fi
		if [ ${#RROWS[@]} -gt 0 ] && grep -q '^metaroce-roce|' "$RAW"; then
			echo
			echo "Transport mode: MetaRoCE as above (two MetaRoCE devices, policy auto:"
			echo "metaroce mode) against the same devices with policy roce on both"
			echo "(plain RoCEv2: go-back-N, ICRC, no mark), same rounds.  Bandwidth in"
			echo "MB/s, latency in usec; ratio = metaroce mode / roce mode."
			echo
			vs_table metaroce-roce "roce mode" "metaroce mode" - "${RROWS[@]}"
		fi
		if [ ${#CROWS[@]} -gt 0 ] && grep -q '^metaroce-icrc|' "$RAW"; then
			echo
			echo "Integrity between MetaRoCE peers: MetaRoCE as above (metaroce mode, packets"
			echo "protected by the UDP checksum, which the veth takes as verified) against"
			echo "the same with metaroce_udp_csum=0 on both devices (every packet protected"
			echo "by the software ICRC, as in RoCEv2), same rounds.  UDP-csum pkts/msg: packets"
			echo "sent with the UDP checksum per message (counter tx_udp_csum_packets)."
			echo
			vs_table metaroce-icrc ICRC "UDP checksum" csum_cells "${CROWS[@]}"
		fi
		echo
		echo "Round trip of a 2-byte WRITE inside one system call (one process on"
		echo "CPU 0 owning both QPs, "'`mroce_dpcheck -L`'", median of $RUNS rounds): $SYNC."
		echo
		if [ ${#SPROF[@]} -gt 0 ]; then
			echo "Where its time goes: such runs of $SPROF_N1 and of $SPROF_N2 round trips"
			echo "per stack and round (medians of $RUNS rounds) under "'`perf record -C 0 -F '"$SPROF_HZ"'`'", samples sorted by"
			echo "symbol; each class's samples in the second run less those in the"
			echo "first (what set-up and teardown take cancels out) give its us per"
			echo "round trip.  roce mode: both MetaRoCE devices with policy roce (plain"
			echo "RoCEv2).  Module: the stack's own code (rdma_rxe, metaroce); clock:"
			echo "clock source reads (the HPET where TCG leaves the TSC unstable);"
			echo "CRC-32: the ICRC; kernel: the rest (system call, UDP/IP, veth, skb"
			echo "allocation, locks); idle: CPU 0 waiting for the other CPU."
			echo
			echo "| stack | us per round trip | module | clock | CRC-32 | kernel | user space | idle |"
			echo "|---|---|---|---|---|---|---|---|"
			printf '%s\n' "${SPROF[@]}"
			echo
		elif [ -n "$SPROF_WHY" ]; then
			echo "Where its time goes: $SPROF_WHY."
			echo
		fi
		echo "Offset in a large region: $MROFF."
		echo
		echo "CRC-32 of the ICRC in this VM's kernel (tcrypt hash speed test, one"
		echo "update per block): $ICRC_COST."
		echo
	fi
	if [ ${#MROWS[@]} -gt 0 ]; then
		echo "## Loss and reordering"
		echo
		echo "64 KiB WRITE, READ and SEND (perftest -D $MSECS: $MSECS seconds per run, all"
		echo "of it measured) under tc netem on both ends of the veth, RoCE packets"
		echo "only (UDP port 4791; ARP and perftest's TCP exchange pass untouched):"
		echo "rdma_rxe, MetaRoCE with policy roce on both devices (plain RoCEv2,"
		echo "go-back-N) and MetaRoCE in metaroce mode (selective repeat).  Rounds: $MRUNS,"
		echo "medians (${melapsed} s in all).  % = goodput as a percentage of the same"
		echo "stack's clean goodput (of its goodput under delay 1ms alone for the"
		echo "reorder row).  MB/s: messages completed in the run times 64 KiB per"
		echo "second (MiB/s, as perftest's MB/sec, whose own figure is in the raw"
		echo "lines: it reads 0.00 when its clock estimate fails under TCG)."
		echo "extra pkts % = packets sent by both devices (rxe sent_pkts, MetaRoCE"
		echo "tx_packets: data, ACKs and NAKs) per message completed, above the base"
		echo "run's: what recovery costs in packets, comparable between the stacks."
		echo "retry events: rxe completer_retry_err, MetaRoCE retransmits (go-back-N"
		echo "events and RTOs, not packets).  resent %: MetaRoCE's sack_retransmits"
		echo "as a percentage of tx_packets (both devices, ACKs included); go-back-N"
		echo "does not count resent packets.  spurious %: rx_duplicates of both"
		echo "devices, copies of a packet that had arrived, as a percentage of"
		echo "tx_packets: netem here duplicates nothing, so each is a resend that was"
		echo "not needed, counted where it arrived (the requester's own estimate,"
		echo "spurious_retransmits, counts one per duplicate ACK: fewer)."
		echo "A failed run (perftest error, e.g. RETRY_EXC_ERR) counts in the last"
		echo "column, not as 0 MB/s; RACK, TLP and RTO counts are in the raw figures."
		echo
		matrix_report
		echo
	fi
	if [ -s "$IRES" ]; then
		cat "$IRES"
		echo
	fi
	if [ -s "$PRES" ]; then
		cat "$PRES"
		echo
	fi
	if [ -f "$ROOT/tools/bench/notes.md" ]; then
		cat "$ROOT/tools/bench/notes.md"
		echo
	fi
	if [ $MAIN = 1 ]; then
		echo "Raw figures (stack|test|round|value|context switches per message|CPU ms per MiB|doorbells per message|worker runs per message;"
		echo "sync|stack|round|usec: the in-syscall round trip;"
		echo "syncprof|stack|round|usec per round trip in all|module|clock|CRC-32|kernel|user space|idle: its profile):"
		echo
		echo '```'
		cat "$RAW"
		echo '```'
	fi
	if [ ${#MROWS[@]} -gt 0 ]; then
		[ $MAIN = 1 ] && echo
		echo "Raw figures of the loss matrix (matrix|stack|op|impairment|round|MB/s|messages|tx packets|retry events|selective resends|duplicates received|RACK losses|TLP probes|RTO fires|perftest's own MB/s|why it failed; - where the stack has no such counter):"
		echo
		echo '```'
		cat "$MRAW"
		echo '```'
	fi
} >"$RES"
cat "$RES"
ip link del bva 2>/dev/null
[ "$INCAST_OK" = 1 ] && ! grep -q '|fail|' "$RAW"
