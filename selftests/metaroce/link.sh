#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Create, inspect and delete MetaRoCE devices: any name, the RDMA core's
# view (rdma link, sysfs, uverbs), port state following carrier with port
# events, active MTU following the netdev MTU, one UDP socket per namespace.
. "$(dirname "$0")/../lib.sh"

mroce_load_or_skip
command -v rdma >/dev/null || ksft_skip_all "rdma (iproute2) missing"

two_hosts || ksft_skip_all "cannot build the two-namespace topology"
ns1=$NS1 ns2=$NS2 a=$VA b=$VB

# ---- creation, with names of the user's choosing
dev=mrA
defer rdma link delete $dev
t_check "rdma link add $dev on $a (namespace $ns1)" \
	in1 rdma link add $dev type metaroce netdev "$a"
t_check "rdma link (in $ns1) shows $dev bound to $a" \
	sh -c "ip netns exec $ns1 rdma link show $dev/1 | grep -q 'netdev $a'"
t_check "rdma link (in the initial namespace) shows $dev" \
	sh -c "rdma link show $dev/1 | grep -q 'link $dev/1'"
t_check "/sys/class/infiniband/$dev exists" ibdev_exists $dev
t_check "link layer is Ethernet" \
	grep -qx Ethernet /sys/class/infiniband/$dev/ports/1/link_layer
t_check "a uverbs char device exists for $dev" \
	sh -c "grep -lx $dev /sys/class/infiniband_verbs/uverbs*/ibdev"
t_check "node type is CA" \
	sh -c "grep -q 'CA' /sys/class/infiniband/$dev/node_type"

c=$(uname_of c) d=$(uname_of d)
veth_pair "$c" "$ns1" "$d" "$ns2"
ok=1
for name in roce_gpu0 X-1 metaroce7 a.b; do
	defer rdma link delete "$name"
	if ! in1 rdma link add "$name" type metaroce netdev "$c" ||
	   ! ibdev_exists "$name" || ! in1 rdma link delete "$name" ||
	   ! busywait 5000 ibdev_gone "$name"; then
		ok=0
		echo "# name $name failed"
	fi
done
[ $ok = 1 ] && t_pass "any device name works (roce_gpu0 X-1 metaroce7 a.b)" ||
	t_fail "any device name works"

# ---- port state follows carrier; each change is a port event
t_check "port is ACTIVE with carrier" busywait 5000 port_state_is $dev ACTIVE
ev0=$(mroce_counter $dev port_events)
in2 ip link set "$b" down
t_check "port goes DOWN when the peer drops carrier" \
	busywait 5000 port_state_is $dev DOWN
in2 ip link set "$b" up
t_check "port comes back ACTIVE" busywait 5000 port_state_is $dev ACTIVE
in1 ip link set "$a" down
t_check "port DOWN when the netdev is set down" \
	busywait 5000 port_state_is $dev DOWN
in1 ip link set "$a" up
busywait 5000 port_state_is $dev ACTIVE
ev1=$(mroce_counter $dev port_events)
t_check "four port events were dispatched (counter $ev0 -> $ev1)" \
	test "$((ev1 - ev0))" -eq 4
t_check "phys_state LinkUp when ACTIVE" \
	grep -q LinkUp /sys/class/infiniband/$dev/ports/1/phys_state

# ---- the verbs view, through the build tree's provider
if build_provider_present && command -v ibv_devinfo >/dev/null; then
	export RDMAV_DRIVERS=$MROCE_PROVIDER
	t_check "ibv_devices lists $dev" \
		sh -c "ibv_devices | awk '{print \$1}' | grep -qx $dev"
	active_mtu() {
		ibv_devinfo -d $dev | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'
	}
	active_mtu_is() { [ "$(active_mtu)" = "$1" ]; }
	# RoCEv2 overhead (IP, UDP, BTH, extended headers, ICRC) is 96 bytes:
	# the IB MTU is the largest of 256..4096 that fits in MTU - 96.
	for m in 1500:1024 9000:4096 1100:512 4200:4096 1280:1024 600:256; do
		in1 ip link set "$a" mtu "${m%:*}"
		t_check "netdev MTU ${m%:*} gives active_mtu ${m#*:}" \
			busywait 3000 active_mtu_is "${m#*:}"
	done
	in1 ip link set "$a" mtu 1500

	# Port events reach applications: ibv_asyncwatch (ibverbs-utils).
	if command -v ibv_asyncwatch >/dev/null; then
		evlog=$(mktemp)
		defer rm -f "$evlog"
		stdbuf -oL ibv_asyncwatch -d $dev >"$evlog" 2>&1 &
		watcher=$!
		defer kill $watcher
		busywait 5000 grep -q "$dev" "$evlog" || sleep 2
		in2 ip link set "$b" down
		busywait 5000 port_state_is $dev DOWN
		in2 ip link set "$b" up
		busywait 5000 port_state_is $dev ACTIVE
		t_check "ibv_asyncwatch sees IBV_EVENT_PORT_ERR" \
			busywait 5000 grep -q "PORT_ERR" "$evlog"
		t_check "ibv_asyncwatch sees IBV_EVENT_PORT_ACTIVE" \
			busywait 5000 grep -q "PORT_ACTIVE" "$evlog"
		kill $watcher 2>/dev/null
		sed 's/^/#   /' "$evlog" | head -8
	else
		t_skip "ibv_asyncwatch sees port events" "ibv_asyncwatch missing"
	fi
	t_check "ibv_devinfo shows the port ACTIVE" \
		sh -c "ibv_devinfo -d $dev | grep -q 'state:.*PORT_ACTIVE'"
	unset RDMAV_DRIVERS
else
	t_skip "ibv_devices lists $dev" "provider not built ($MROCE_PROVIDER-rdmav34.so)"
	t_skip "active_mtu follows the netdev MTU" "provider not built"
fi

# ---- counters are visible through rdma statistic
t_check "rdma statistic shows the device counters" \
	sh -c "rdma statistic show link $dev/1 | grep -q rx_packets"

# ---- one RoCEv2 socket per namespace, only while a device uses it
udp_bound() { udp_listening "$1" 4791; }
t_check "UDP 4791 open in $ns1 (device there)" udp_bound "$ns1"
t_check "UDP 4791 not open in $ns2 (no device)" sh -c "! ip netns exec $ns2 ss -Hlun 'sport = :4791' | grep -q 4791"
t_check "UDP 4791 not open in the initial namespace" sh -c "! ss -Hlun 'sport = :4791' | grep -q 4791"
dev2=mrB
defer rdma link delete $dev2
t_check "second device on the other end ($ns2)" \
	in2 rdma link add $dev2 type metaroce netdev "$b"
t_check "UDP 4791 open in $ns2 now" udp_bound "$ns2"
t_check "both devices listed by rdma link" \
	sh -c "rdma link show | grep -q '$dev/1' && rdma link show | grep -q '$dev2/1'"

# ---- deletion
t_check "rdma link delete $dev2" rdma link delete $dev2
t_check "$dev2 is gone" busywait 5000 ibdev_gone $dev2
t_check "UDP 4791 closed in $ns2 with its last device" \
	busywait 5000 sh -c "! ip netns exec $ns2 ss -Hlun 'sport = :4791' | grep -q 4791"
t_check "$b survives the device's deletion" in2 ip link show "$b"
t_check "$dev is untouched" ibdev_exists $dev

t_done
