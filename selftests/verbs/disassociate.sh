#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Teardown that does not wait on users (uverbs disassociation): a process
# (verbs_fatal.c) holds a PD, an MR, a CQ with a completion channel, RC and
# UD QPs with receives posted and every ring mapped, while its device is
# removed by deleting the netdev, by deleting the device's namespace and by
# rmmod.  Each removal must complete within seconds, the process must get
# IBV_EVENT_DEVICE_FATAL, its later calls must fail cleanly (verbs_fatal
# reports each), and the module must unload and load again afterwards.
source "$(dirname "$0")/../lib.sh"

verbs_prologue

LOGS=$(mktemp -d)
defer rm -rf "$LOGS"
holders=()
defer kill_holders
kill_holders() {
	local p
	for p in "${holders[@]}"; do kill -9 "$p" 2>/dev/null; done
	return 0
}

# hold TAG IBDEV: start verbs_fatal on IBDEV, wait until it holds everything.
hold() {
	local tag=$1 dev=$2 gid
	busywait 5000 port_state_is "$dev" ACTIVE
	busywait 5000 gid_index "$dev" v4 >/dev/null
	gid=$(gid_index "$dev" v4) || return 1
	"$SUITE_BIN/verbs_fatal" "$dev" "$gid" >"$LOGS/$tag" 2>&1 &
	holders+=($!)
	busywait 10000 grep -qx ready "$LOGS/$tag"
}

# report TAG DESC: wait for the holder, one TAP line per line it printed.
report() {
	local tag=$1 desc=$2 pid=${holders[-1]}
	busywait 20000 sh -c "! kill -0 $pid 2>/dev/null" ||
		t_fail "$desc: the holder did not finish"
	tap_relay "$desc: " <"$LOGS/$tag"
	grep -q "^1\.\." "$LOGS/$tag" || t_fail "$desc: no report from the holder"
}

# gone_within DESC SECS COMMAND...: DESC passes once COMMAND is true,
# within SECS seconds.
gone_within() {
	local desc=$1 secs=$2 start
	shift 2
	start=$(date +%s%3N)
	busywait $((secs * 1000)) "$@"
	t_check "$desc (in $(($(date +%s%3N) - start)) ms)" "$@"
}

# ---- the netdev is deleted
ns=$(uname_of n) a=$(uname_of a) b=$(uname_of b)
new_netns "$ns"
veth_pair "$a" "$ns" "$b" ""
ip -n "$ns" addr add 192.0.2.1/24 dev "$a"
t_check "device on $a" ip netns exec "$ns" rdma link add dz0 type metaroce netdev "$a"
hold netdev dz0
t_check "a process holds objects on dz0" grep -qx ready "$LOGS/netdev"
timeout 30 ip -n "$ns" link del "$a"
gone_within "deleting the netdev removes dz0 under the process" 10 ibdev_gone dz0
report netdev "netdev deleted"

# ---- the namespace is deleted
ns2=$(uname_of n2) a=$(uname_of a2) b=$(uname_of b2)
ip netns add "$ns2"
defer ip netns del "$ns2"
veth_pair "$a" "$ns2" "$b" ""
ip -n "$ns2" addr add 192.0.2.1/24 dev "$a"
t_check "device on $a in $ns2" ip netns exec "$ns2" rdma link add dz1 type metaroce netdev "$a"
hold netns dz1
t_check "a process holds objects on dz1" grep -qx ready "$LOGS/netns"
timeout 30 ip netns del "$ns2"
gone_within "deleting the namespace removes dz1 under the process" 20 ibdev_gone dz1
report netns "namespace deleted"

# ---- rmmod, while a process holds objects
a=$(uname_of a3) b=$(uname_of b3)
veth_pair "$a" "" "$b" ""
ip addr add 192.0.2.3/24 dev "$a"
t_check "device on $a" rdma link add dz2 type metaroce netdev "$a"
hold rmmod dz2
t_check "a process holds objects on dz2" grep -qx ready "$LOGS/rmmod"
t_check "rmmod metaroce while the process holds them" timeout 30 rmmod metaroce
gone_within "the module is gone" 10 sh -c "! test -d /sys/module/metaroce"
report rmmod "rmmod"
t_check "the module loads again" mroce_load
t_check "and serves a new device" \
	sh -c "rdma link add dz3 type metaroce netdev $a && rdma link del dz3"
t_done
