#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The one library of the VM selftests (metaroce, datapath, verbs): every
# program sources it first, as "$(dirname "$0")/../lib.sh".
#
#   TAP 13          t_pass t_fail t_skip t_check t_check_fail t_done
#                   ksft_skip_all tap_relay
#   cleanup, waits  defer busywait
#   namespaces      uname_of new_netns veth_pair two_hosts in1 in2 ns_exec
#   module, devices mroce_load(_or_skip) use_build_provider mroce_dev_on
#                   verbs_prologue verbs_one_dev build_c_tests
#   lookups         gid_index (no fork per entry) port_state(_is)
#                   mroce_counter dp_counters mroce_devices
#                   tcp_listening udp_listening cm_listening jget
#   traffic         dp_topo dp_setup dp_static_neigh cs_run pp_run pp_sizes pt_run, on
#                   port T_PORT
#
# libibverbs is pointed at the provider of the build tree, without
# installing it, by one environment variable (an absolute path without the
# "-rdmav34.so" suffix, which libibverbs appends):
#   RDMAV_DRIVERS=$MROCE_ROOT/build/lib/libmetaroce

# In an installed kselftest tree (make -C selftests install) this file sits
# next to mroce-root, which names the MetaRoCE tree the programs use.
_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -z "${MROCE_ROOT:-}" ] && [ -r "$_lib_dir/mroce-root" ]; then
	MROCE_ROOT=$(cat "$_lib_dir/mroce-root")
fi
MROCE_ROOT=${MROCE_ROOT:-$(cd "$_lib_dir/.." && pwd)}
# The program's suite: its folder, and where `make` puts its C programs.
SUITE_DIR=$(cd "$(dirname "$0")" && pwd)
SUITE_BIN=$MROCE_ROOT/build/selftests/${SUITE_DIR##*/}
MROCE_PROVIDER=$MROCE_ROOT/build/lib/libmetaroce
PY=/usr/bin/python3

# The TCP port of the client/server tools (ibverbs-utils pingpongs,
# perftest, and rdma_cm's port for perftest -R): their default, in one
# place.  Programs that need more ports take them from T_PORT up.
T_PORT=18515

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

_t_num=0
_t_failed=0
_cleanups=()

echo "TAP version 13"

# ---- TAP 13 and cleanup

# Register a cleanup command; they run in reverse order at exit.
defer() {
	_cleanups+=("$*")
}

_run_cleanups() {
	local i
	for ((i = ${#_cleanups[@]} - 1; i >= 0; i--)); do
		eval "${_cleanups[i]}" >/dev/null 2>&1
	done
	_cleanups=()
}
trap _run_cleanups EXIT

t_pass() {
	_t_num=$((_t_num + 1))
	echo "ok $_t_num - $*"
}

t_fail() {
	_t_num=$((_t_num + 1))
	_t_failed=$((_t_failed + 1))
	echo "not ok $_t_num - $*"
}

# t_skip DESC REASON
t_skip() {
	_t_num=$((_t_num + 1))
	echo "ok $_t_num - $1 # SKIP $2"
}

# klog_mark: remember this point of the kernel log; klog_since: the lines
# the kernel logged after it.  A marker line, not a count of lines: once
# the log buffer is full, each new line pushes an old one out, the count
# stays put and "the lines after line N" are none.
klog_mark() {
	KLOG_MARK="mroce selftest mark $$.$RANDOM$RANDOM"
	echo "<6>$KLOG_MARK" >/dev/kmsg
}
klog_since() {
	dmesg | awk -v m="$KLOG_MARK" 'seen; index($0, m) { seen = 1 }'
}

# t_check DESC COMMAND...: pass when COMMAND succeeds.
t_check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		t_pass "$desc"
	else
		t_fail "$desc"
		printf '#   %s\n' "command: $*" "${out//$'\n'/$'\n'#   }" | head -20
	fi
}

# t_check_fail DESC COMMAND...: pass when COMMAND fails.
t_check_fail() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		t_fail "$desc"
		printf '#   %s\n' "unexpectedly succeeded: $*" "$out" | head -20
	else
		t_pass "$desc"
		echo "#   failed as expected: ${out//$'\n'/ }" | head -c 300
		echo
	fi
}

# Skip the whole test program with a reason.
ksft_skip_all() {
	echo "1..0 # SKIP $*"
	exit $KSFT_SKIP
}

t_done() {
	echo "1..$_t_num"
	_run_cleanups
	[ "$_t_failed" -eq 0 ] && exit $KSFT_PASS
	exit $KSFT_FAIL
}

# tap_relay PREFIX < TAP: one subtest per "ok"/"not ok" line of a C test's
# TAP output, PREFIX before its description; comments pass through.
tap_relay() {
	local line
	while read -r line; do
		case $line in
		"ok "*) t_pass "$1${line#ok [0-9]* }" ;;
		"not ok "*) t_fail "$1${line#not ok [0-9]* }" ;;
		"# "*|"Bail out!"*) echo "# $1${line#\# }" ;;
		esac
	done
}

# busywait TIMEOUT_MS COMMAND...: retry until COMMAND succeeds, bounded.
busywait() {
	local timeout_ms=$1 start now
	shift
	start=$(date +%s%3N)
	while true; do
		"$@" && return 0
		now=$(date +%s%3N)
		[ $((now - start)) -ge "$timeout_ms" ] && return 1
		sleep 0.1
	done
}

# jget FILE EXPR: the Python expression EXPR over j, FILE's JSON (jq-like).
jget() {
	$PY -c 'import json, sys; j = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# ---- namespaces and netdevs

# A unique name for namespaces and netdevs of this test program.
uname_of() {
	echo "mr$$$1"
}

# new_netns NAME: create a namespace, removed at exit.
new_netns() {
	defer ip netns del "$1"
	ip netns add "$1" && ip -n "$1" link set lo up
}

# veth_pair A NSA B NSB: a veth pair with the ends in two namespaces ("" for
# the initial one), both up.
veth_pair() {
	local a=$1 nsa=$2 b=$3 nsb=$4
	defer ip link del "$a"
	[ -n "$nsa" ] && defer ip -n "$nsa" link del "$a"
	ip link add "$a" type veth peer name "$b" || return 1
	[ -n "$nsa" ] && { ip link set "$a" netns "$nsa" || return 1; }
	[ -n "$nsb" ] && { ip link set "$b" netns "$nsb" || return 1; }
	ip ${nsa:+-n "$nsa"} link set "$a" up &&
		ip ${nsb:+-n "$nsb"} link set "$b" up
}

# two_hosts: namespaces $NS1 and $NS2 joined by a veth ($VA in $NS1, $VB in
# $NS2), all removed at exit; in1/in2 run a command in either.
two_hosts() {
	NS1=$(uname_of n1) NS2=$(uname_of n2)
	VA=$(uname_of a) VB=$(uname_of b)
	new_netns "$NS1" && new_netns "$NS2" &&
		veth_pair "$VA" "$NS1" "$VB" "$NS2"
}
in1() { ip netns exec "$NS1" "$@"; }
in2() { ip netns exec "$NS2" "$@"; }

# ns_exec NS CMD...: run CMD in namespace NS ("" for the initial one).
ns_exec() {
	local ns=$1
	shift
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@"
	else
		"$@"
	fi
}

# tcp_listening NS PORT, udp_listening NS PORT: a socket listens on PORT in
# NS ("" for the initial namespace).
tcp_listening() {
	ns_exec "$1" ss -Hltn "sport = :$2" | grep -q .
}

udp_listening() {
	ns_exec "$1" ss -Hlun "sport = :$2" | grep -q .
}

# cm_listening PORT: an rdma_cm ID listens on PORT (any device, any
# namespace: the RDMA devices are shared between namespaces).
cm_listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -qE "state LISTEN .*src-addr [^ ]*:$1( |$)"
}

# ---- the module, the provider and devices

mroce_loaded() {
	[ -d /sys/module/metaroce ]
}

# Load metaroce.ko from the build tree (with its dependencies) unless it is
# already loaded (e.g. by modprobe from an installed copy).
mroce_load() {
	mroce_loaded && return 0
	[ -f "$MROCE_ROOT/metaroce.ko" ] || return 1
	modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel || return 1
	insmod "$MROCE_ROOT/metaroce.ko"
}

mroce_load_or_skip() {
	mroce_load || ksft_skip_all "cannot load metaroce.ko (run 'make' first)"
}

build_provider_present() {
	[ -f "$MROCE_PROVIDER-rdmav34.so" ]
}

# Use the build tree's provider for every libibverbs program started below.
use_build_provider() {
	build_provider_present ||
		ksft_skip_all "no provider at $MROCE_PROVIDER-rdmav34.so (run 'make')"
	export RDMAV_DRIVERS=$MROCE_PROVIDER
}

# build_c_tests: build the suite's C programs into $SUITE_BIN, or skip.
build_c_tests() {
	make -s -C "$SUITE_DIR" >/dev/null || ksft_skip_all "cannot build the C tests"
}

# verbs_prologue: load the module, use the build tree's provider, build the
# suite's C tests; skips the whole test program when one of them fails.
verbs_prologue() {
	mroce_load_or_skip
	use_build_provider
	build_c_tests
}

# True when the RDMA device exists.
ibdev_exists() {
	[ -e "/sys/class/infiniband/$1" ]
}

ibdev_gone() {
	! ibdev_exists "$1"
}

# mroce_dev_on IBDEV NETDEV [NETNS]: `rdma link add`, removed at exit.
mroce_dev_on() {
	local ibdev=$1 ndev=$2 ns=${3:-}
	defer rdma link del "$ibdev"
	ns_exec "$ns" rdma link add "$ibdev" type metaroce netdev "$ndev" &&
		busywait 5000 ibdev_exists "$ibdev"
}

# All metaroce devices (by driver) currently registered.
mroce_devices() {
	local d
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] || continue
		[ "$(cat "$d/node_desc" 2>/dev/null)" = metaroce ] && basename "$d"
	done
	return 0
}

# port_state DEV: "ACTIVE", "DOWN", ... from sysfs.
port_state() {
	local s
	s=$(cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null) || return 1
	echo "${s#*: }"
}

port_state_is() {
	[ "$(port_state "$1")" = "$2" ]
}

# gid_index DEV WHAT: the index of a GID of port 1 of DEV, where WHAT is v4
# (a RoCE v2 GID of an IPv4 address), v6 (a RoCE v2 GID of 2001:db8::/32,
# the test prefix) or a GID as sysfs prints it (any type).  Only shell
# builtins in the loop: the table has 1024 entries, and a fork per entry
# takes minutes under TCG.
gid_index() {
	local dev=$1 what=$2 d f v t
	d=/sys/class/infiniband/$dev/ports/1
	for f in "$d"/gids/*; do
		read -r v 2>/dev/null <"$f" || continue
		case $what:$v in
		v4:0000:0000:0000:0000:0000:ffff:*) ;;
		v6:2001:0db8:*) ;;
		v4:*|v6:*) continue ;;
		*)
			[ "$v" = "$what" ] && { echo "${f##*/}"; return 0; }
			continue ;;
		esac
		read -r t 2>/dev/null <"$d/gid_attrs/types/${f##*/}" || continue
		[ "$t" = "RoCE v2" ] && { echo "${f##*/}"; return 0; }
	done
	return 1
}

# verbs_one_dev IBDEV [DESC]: a veth in this namespace with 192.0.2.1 and
# IBDEV on it, ACTIVE, its IPv4 GID index in VERBS_GID; skips the test
# program otherwise.  With DESC the device's creation is a subtest, and the
# program ends there if it fails.  (Not in a subshell: the cleanups it
# registers must stay.)
verbs_one_dev() {
	local va vb
	va=$(uname_of a) vb=$(uname_of b)
	veth_pair "$va" "" "$vb" "" || ksft_skip_all "cannot create veth"
	ip addr add 192.0.2.1/24 dev "$va"
	if [ -n "${2:-}" ]; then
		t_check "$2" mroce_dev_on "$1" "$va"
		ibdev_exists "$1" || t_done
	else
		mroce_dev_on "$1" "$va" || ksft_skip_all "rdma link add failed"
	fi
	busywait 5000 port_state_is "$1" ACTIVE
	busywait 5000 gid_index "$1" v4 >/dev/null
	VERBS_GID=$(gid_index "$1" v4) || ksft_skip_all "no IPv4 GID on $1"
}

# mroce_counter DEV NAME: a hw counter of port 1 of DEV (what `rdma
# statistic show link DEV/1` shows), read without a fork.
mroce_counter() {
	local v
	read -r v 2>/dev/null <"/sys/class/infiniband/$1/ports/1/hw_counters/$2" &&
		echo "$v"
}

# dp_counters DEV: the device's counters, one line, for the log.
dp_counters() {
	rdma statistic show link "$1/1" 2>/dev/null | tr -s ' ' | cut -d' ' -f3- | head -c 400
}

# trace_setup EVENTS: enable tracepoints EVENTS (a directory under tracefs'
# events/, e.g. metaroce or metaroce/mroce_rp_rate) for the rest of the
# test, before any traffic: switching a tracepoint patches kernel text on
# every CPU, which under QEMU TCG with traffic running once left a CPU
# looping in the patch's int3 (faults.sh); without recording command names
# the scheduler's tracepoints are not patched either.  Sets TR (tracefs);
# false when the kernel has no such events.
trace_setup() {
	TR=/sys/kernel/tracing
	[ -d "$TR/events" ] || mount -t tracefs nodev "$TR" 2>/dev/null
	[ -d "$TR/events/$1" ] || return 1
	echo 0 >"$TR/options/record-cmd" 2>/dev/null
	echo 1 >"$TR/events/$1/enable"
	defer "echo 0 >$TR/events/$1/enable"
}

# ---- two RDMA devices joined by a veth, and client/server runs
#
#   mm:  MetaRoCE in namespace A <-veth-> MetaRoCE in namespace B
#   mx:  MetaRoCE in namespace A <-veth-> rdma_rxe in the initial namespace
#        (rxe in 6.1 opens its UDP socket in init_net only)

DP_IP1=192.0.2.1
DP_IP2=192.0.2.2
DP_IP6_1=2001:db8::1
DP_IP6_2=2001:db8::2
# Tool logs of this program.
DP_LOGS=${MROCE_RESULTS:-/tmp}/${SUITE_DIR##*/}-$$

# dp_topo KIND: build topology KIND (mm or mx).  Sets NS1 NS2 DEV1 DEV2
# (side 1 is always MetaRoCE in a namespace; NS2 is "" for rxe), the veth
# ends V1 V2 and the GID indexes G1 G2 (IPv4) and G1_6 G2_6 (IPv6).
dp_topo() {
	local kind=$1 v1 v2
	mkdir -p "$DP_LOGS"
	NS1=$(uname_of a)
	v1=${NS1}v
	v2=$(uname_of b)v
	DEV1=${NS1}m
	new_netns "$NS1" || return 1
	if [ "$kind" = mx ]; then
		NS2=""
		DEV2=$(uname_of x)
		# rxe holds UDP 4791 of the initial namespace: unload it at
		# exit if this test loaded it.
		grep -q '^rdma_rxe ' /proc/modules || defer modprobe -r rdma_rxe
		modprobe rdma_rxe || return 1
	else
		NS2=$(uname_of b)
		DEV2=${NS2}m
		new_netns "$NS2" || return 1
	fi
	V1=$v1 V2=$v2
	veth_pair "$v1" "$NS1" "$v2" "$NS2" || return 1
	ns_exec "$NS1" ip addr add $DP_IP1/24 dev "$v1" &&
	ns_exec "$NS2" ip addr add $DP_IP2/24 dev "$v2" &&
	ns_exec "$NS1" ip addr add $DP_IP6_1/64 dev "$v1" nodad &&
	ns_exec "$NS2" ip addr add $DP_IP6_2/64 dev "$v2" nodad || return 1
	mroce_dev_on "$DEV1" "$v1" "$NS1" || return 1
	if [ "$kind" = mx ]; then
		defer rdma link del "$DEV2"
		rdma link add "$DEV2" type rxe netdev "$v2" || return 1
	else
		mroce_dev_on "$DEV2" "$v2" "$NS2" || return 1
	fi
	busywait 5000 gid_index "$DEV1" v4 >/dev/null &&
		busywait 5000 gid_index "$DEV2" v4 >/dev/null &&
		busywait 5000 gid_index "$DEV1" v6 >/dev/null &&
		busywait 5000 gid_index "$DEV2" v6 >/dev/null || return 1
	G1=$(gid_index "$DEV1" v4)
	G2=$(gid_index "$DEV2" v4)
	G1_6=$(gid_index "$DEV1" v6)
	G2_6=$(gid_index "$DEV2" v6)
}

# dp_static_neigh: permanent neighbour entries between the two ends of the
# topology, IPv4 and IPv6.  The RDMA core resolves the peer's MAC at each
# modify to RTR; on a veth where netem drops packets, a lost ARP request
# or reply can time the connection out before any RoCE packet ("RTR/RTS:
# Connection timed out", seen once in loss_rxe.sh).
dp_static_neigh() {
	local mac1 mac2
	mac1=$(ns_exec "$NS1" ip -br link show dev "$V1" | awk '{ print $3 }')
	mac2=$(ns_exec "$NS2" ip -br link show dev "$V2" | awk '{ print $3 }')
	ns_exec "$NS1" ip neigh replace $DP_IP2 lladdr "$mac2" dev "$V1" nud permanent &&
		ns_exec "$NS2" ip neigh replace $DP_IP1 lladdr "$mac1" dev "$V2" nud permanent &&
		ns_exec "$NS1" ip -6 neigh replace $DP_IP6_2 lladdr "$mac2" dev "$V1" nud permanent &&
		ns_exec "$NS2" ip -6 neigh replace $DP_IP6_1 lladdr "$mac1" dev "$V2" nud permanent
}

# dp_netem ARGS...: the same tc netem impairment on both ends of the veth
# (replacing what was there); dp_netem_off: none.
dp_netem() {
	ns_exec "$NS1" tc qdisc replace dev "$V1" root netem "$@" &&
		ns_exec "$NS2" tc qdisc replace dev "$V2" root netem "$@"
}
# dp_sum COUNTER: the device counter COUNTER of $DEV1 and $DEV2, summed.
dp_sum() {
	echo $(($(mroce_counter "$DEV1" "$1") + $(mroce_counter "$DEV2" "$1")))
}

# dp_rc_rts DEV: `rdma res show qp -dd` of DEV's RC QPs in RTS, one QP a
# line (one device per call: a short listing keeps a sampling period short).
dp_rc_rts() {
	rdma -dd res show qp link "$1/1" 2>/dev/null |
		sed -e ':a' -e 'N' -e '$!ba' -e 's/\n[[:space:]]\+/ /g' |
		grep ' type RC state RTS '
}

# dp_qp_attr LINE NAME: the value of driver attribute NAME in LINE, a line
# of dp_rc_rts (iproute2 prints driver attributes with a drv_ prefix).
dp_qp_attr() {
	sed -n "s/.* drv_$2 \([^ ]*\).*/\1/p" <<<"$1" | head -n 1
}

# dpcheck_done PID LOG DESC: stop the mroce_dpcheck PID (SIGUSR1: it
# completes and checks what it posted), report whether it verified every
# request ("DESC ... data verified", its last line of LOG), and show its
# first failures; its exit status.
dpcheck_done() {
	local pid=$1 log=$2 rc
	kill -USR1 "$pid" 2>/dev/null
	busywait 120000 sh -c "! kill -0 $pid 2>/dev/null" || kill -KILL "$pid"
	wait "$pid"
	rc=$?
	t_check "$3, data verified ($(tail -n 1 "$log"))" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || grep FAIL "$log" | head -3 | sed 's/^/#   /'
	return "$rc"
}
dp_netem_off() {
	ns_exec "$NS1" tc qdisc del dev "$V1" root 2>/dev/null
	ns_exec "$NS2" tc qdisc del dev "$V2" root 2>/dev/null
	true
}

# dp_setup KIND TOOL: load the module, use our provider, skip without TOOL,
# build topology KIND.
dp_setup() {
	mroce_load_or_skip
	use_build_provider
	command -v "$2" >/dev/null || ksft_skip_all "$2 not installed"
	if [ "$1" = mx ]; then
		modinfo rdma_rxe >/dev/null 2>&1 || ksft_skip_all "rdma_rxe not available"
	fi
	dp_topo "$1" || ksft_skip_all "cannot build the $1 topology"
}

# cs_run DESC PORT SERVER_SIDE TIMEOUT SERVER_CMD... -- CLIENT_CMD...
# Run a server on side SERVER_SIDE (1 or 2) and a client on the other;
# each command gets "{DEV}", "{GID}", "{GID6}" and "{PEER}"/"{PEER6}"
# (the server's addresses) replaced for its own side.  Passes when both exit 0.
# The client starts once the server listens on TCP port PORT, or, with
# PORT "cm:N", on rdma_cm port N; PORT 0 just waits a second.
cs_run() {
	local desc=$1 port=$2 sside=$3 tmo=$4 scmd=() ccmd=()
	shift 4
	while [ $# -gt 0 ] && [ "$1" != -- ]; do scmd+=("$1"); shift; done
	shift
	ccmd=("$@")
	local sns sdev sg sg6 cns cdev cg cg6 speer speer6
	if [ "$sside" = 1 ]; then
		sns=$NS1 sdev=$DEV1 sg=$G1 sg6=$G1_6 speer=$DP_IP1 speer6=$DP_IP6_1
		cns=$NS2 cdev=$DEV2 cg=$G2 cg6=$G2_6
	else
		sns=$NS2 sdev=$DEV2 sg=$G2 sg6=$G2_6 speer=$DP_IP2 speer6=$DP_IP6_2
		cns=$NS1 cdev=$DEV1 cg=$G1 cg6=$G1_6
	fi
	_subst() { # DEV GID GID6 ARGS...
		local d=$1 g=$2 g6=$3 x
		shift 3
		for x in "$@"; do
			x=${x//\{DEV\}/$d}; x=${x//\{GID\}/$g}; x=${x//\{GID6\}/$g6}
			x=${x//\{PEER\}/$speer}; x=${x//\{PEER6\}/$speer6}
			printf '%s\0' "$x"
		done
	}
	mapfile -d '' scmd < <(_subst "$sdev" "$sg" "$sg6" "${scmd[@]}")
	mapfile -d '' ccmd < <(_subst "$cdev" "$cg" "$cg6" "${ccmd[@]}")
	mkdir -p "$DP_LOGS"
	local slog=$DP_LOGS/${port#cm:}-server.log clog=$DP_LOGS/${port#cm:}-client.log
	ns_exec "$sns" timeout "$tmo" "${scmd[@]}" >"$slog" 2>&1 &
	local spid=$! src crc
	case $port in
	cm:*) busywait 10000 cm_listening "${port#cm:}" ;;
	0) sleep 1 ;;
	*) busywait 5000 tcp_listening "$sns" "$port" ;;
	esac
	ns_exec "$cns" timeout "$tmo" "${ccmd[@]}" >"$clog" 2>&1
	crc=$?
	wait $spid
	src=$?
	if [ $crc -eq 0 ] && [ $src -eq 0 ]; then
		t_pass "$desc"
		tail -n 2 "$clog" | sed 's/^/#   /'
	else
		t_fail "$desc (server $src, client $crc)"
		grep -ihE "error|fail|exceed|couldn|unable" "$slog" "$clog" | head -5 | sed 's/^/#   /'
		echo "#   $DEV1: $(dp_counters "$DEV1")"
		echo "#   server: ${scmd[*]}"
		tail -n 8 "$slog" | sed 's/^/#   s: /'
		echo "#   client: ${ccmd[*]}"
		tail -n 8 "$clog" | sed 's/^/#   c: /'
	fi
}

# pp_run DESC SIDE TIMEOUT TOOL [-6] ARGS...: an ibverbs-utils pingpong
# (ibv_rc_pingpong, ...) on port T_PORT, server on SIDE, through the IPv4
# GIDs (-6: the IPv6 ones); ARGS go to both ends.
pp_run() {
	local desc=$1 side=$2 tmo=$3 tool=$4 gid='{GID}'
	shift 4
	[ "${1:-}" = -6 ] && { gid='{GID6}'; shift; }
	cs_run "$desc" "$T_PORT" "$side" "$tmo" \
		"$tool" -d '{DEV}' -g "$gid" "$@" -- \
		"$tool" -d '{DEV}' -g "$gid" "$@" '{PEER}'
}

# pp_sizes NAME TOOL [SUFFIX]: pp_run of TOOL with 1-byte, 4 KiB and
# 64 KiB messages, 50 of each, data checked (-c), with the server on side
# 2 and then on side 1; each described as "NAME -s SIZE[SUFFIX], server on
# side N".
pp_sizes() {
	local name=$1 tool=$2 sfx=${3:-} side size
	for side in 2 1; do
		for size in 1 4096 65536; do
			pp_run "$name -s $size$sfx, server on side $side" "$side" 60 \
				"$tool" -s "$size" -n 50 -c
		done
	done
}

# pt_run DESC SIDE TIMEOUT TOOL ARGS...: a perftest program (ib_write_bw,
# ...) on port T_PORT, server on SIDE, exchanging parameters over TCP;
# ARGS go to both ends.
pt_run() {
	local desc=$1 side=$2 tmo=$3 tool=$4
	shift 4
	cs_run "$desc" "$T_PORT" "$side" "$tmo" \
		"$tool" -d '{DEV}' -x '{GID}' -F "$@" -- \
		"$tool" -d '{DEV}' -x '{GID}' -F "$@" '{PEER}'
}
