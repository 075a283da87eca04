#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Helpers for the data path selftests, on top of the verbs helpers:
# topologies of two RDMA devices joined by a veth, and a runner for the
# client/server conformance tools (ibverbs-utils, perftest, rdmacm-utils).
#
#   mm:  MetaRoCE in namespace A <-veth-> MetaRoCE in namespace B
#   mx:  MetaRoCE in namespace A <-veth-> rdma_rxe in the initial namespace
#        (rxe in 6.1 opens its UDP socket in init_net only)

DP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../verbs/verbs_lib.sh
source "$DP_DIR/../verbs/verbs_lib.sh"

DP_IP1=192.0.2.1
DP_IP2=192.0.2.2
DP_IP6_1=2001:db8::1
DP_IP6_2=2001:db8::2
DP_LOGS=${MROCE_RESULTS:-/tmp}/datapath-$$
mkdir -p "$DP_LOGS"

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

# gid_index DEV v4|v6: the RoCE v2 GID index of our test address.  Only
# shell builtins in the loop: the table has 1024 entries, and a fork per
# entry takes minutes under TCG.
gid_index() {
	local dev=$1 fam=$2 d f v t
	d=/sys/class/infiniband/$dev/ports/1
	for f in "$d"/gids/*; do
		read -r v <"$f" 2>/dev/null || continue
		case $fam:$v in
		v4:0000:0000:0000:0000:0000:ffff:*) ;;
		v6:2001:0db8:*) ;;
		*) continue ;;
		esac
		read -r t <"$d/gid_attrs/types/${f##*/}" 2>/dev/null || continue
		[ "$t" = "RoCE v2" ] && { echo "${f##*/}"; return 0; }
	done
	return 1
}

# dp_topo KIND: build topology KIND (mm or mx).  Sets NS1 NS2 DEV1 DEV2
# (side 1 is always MetaRoCE in a namespace; NS2 is "" for rxe), the veth
# ends V1 V2 and the GID indexes G1 G2 (IPv4) and G1_6 G2_6 (IPv6).
dp_topo() {
	local kind=$1 v1 v2
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

# tcp_listening NS PORT
tcp_listening() {
	ns_exec "$1" ss -Hltn "sport = :$2" | grep -q .
}

# cm_listening PORT: an rdma_cm ID listens on PORT (any device, any
# namespace: the RDMA devices are shared between namespaces).
cm_listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -qE "state LISTEN .*src-addr [^ ]*:$1( |$)"
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

# dp_counters DEV: the device's data path counters, one line.
dp_counters() {
	rdma statistic show link "$1/1" 2>/dev/null | tr -s ' ' | cut -d' ' -f3- | head -c 400
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
