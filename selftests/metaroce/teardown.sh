#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Every way a MetaRoCE device can end: its netdev unregistered, moved to
# another namespace, its namespace deleted, the netdev vanishing while the
# device registers, and rmmod with devices present.
. "$(dirname "$0")/../lib.sh"

mroce_load_or_skip

# ---- netdev removal
ns=$(uname_of n) a=$(uname_of a) b=$(uname_of b)
new_netns "$ns"
veth_pair "$a" "$ns" "$b" ""
t_check "device on $a" ip netns exec "$ns" rdma link add td0 type metaroce netdev "$a"
ip -n "$ns" link del "$a"
t_check "deleting the netdev removes the device" busywait 10000 ibdev_gone td0

# ---- netdev moved to another namespace
a=$(uname_of a2) b=$(uname_of b2) ns2=$(uname_of n2)
new_netns "$ns2"
veth_pair "$a" "$ns" "$b" ""
t_check "device on $a" ip netns exec "$ns" rdma link add td1 type metaroce netdev "$a"
ip -n "$ns" link set "$a" netns "$ns2"
t_check "moving the netdev to another namespace removes the device" \
	busywait 10000 ibdev_gone td1
t_check "the netdev itself moved intact" ip -n "$ns2" link show "$a"

# ---- namespace deletion, with the device's namespace holding the socket
nsd=$(uname_of nd) a=$(uname_of a3) b=$(uname_of b3)
ip netns add "$nsd"
veth_pair "$a" "$nsd" "$b" ""
t_check "device on $a in $nsd" ip netns exec "$nsd" rdma link add td2 type metaroce netdev "$a"
t_check "a second device in $nsd (shared socket)" sh -c "
	ip -n $nsd link add ${a}x type veth peer name ${a}y &&
	ip -n $nsd link set ${a}x up && ip -n $nsd link set ${a}y up &&
	ip netns exec $nsd rdma link add td3 type metaroce netdev ${a}x"
ip netns del "$nsd"
t_check "deleting the namespace removes both devices" \
	busywait 20000 sh -c "! test -e /sys/class/infiniband/td2 && ! test -e /sys/class/infiniband/td3"
t_check "the peer end in the initial namespace went away too" \
	busywait 10000 sh -c "! ip link show $b 2>/dev/null"

# ---- the netdev vanishes while the device registers
fails=0 adds=0
for i in $(seq 1 25); do
	x=$(uname_of r$i) y=$(uname_of s$i)
	ip -n "$ns" link add "$x" type veth peer name "$y" || continue
	ip -n "$ns" link set "$x" up
	ip netns exec "$ns" rdma link add "race$i" type metaroce netdev "$x" \
		>/dev/null 2>&1 &
	pid=$!
	# Vary the head start so some deletions land mid-registration.
	[ $((i % 3)) = 0 ] || sleep "0.0$((i % 10))"
	ip -n "$ns" link del "$x" 2>/dev/null
	wait $pid && adds=$((adds + 1)) || fails=$((fails + 1))
done
echo "# race: $adds adds succeeded, $fails refused"
t_check "no device outlives its netdev after 25 add/delete races" \
	busywait 20000 sh -c "! ls /sys/class/infiniband | grep -q '^race'"

# ---- rmmod with live devices, one per namespace plus the initial one
ns3=$(uname_of n3) a=$(uname_of a4) b=$(uname_of b4)
new_netns "$ns3"
veth_pair "$a" "$ns3" "$b" ""
ip netns exec "$ns3" rdma link add td4 type metaroce netdev "$a"
rdma link add td5 type metaroce netdev "$b"
t_check "two live devices before rmmod" sh -c "ibdev_exists() { test -e /sys/class/infiniband/\$1; }; ibdev_exists td4 && ibdev_exists td5"
t_check "rmmod metaroce with live devices" rmmod metaroce
t_check "all MetaRoCE devices are gone" \
	sh -c "! test -e /sys/class/infiniband/td4 && ! test -e /sys/class/infiniband/td5"
t_check "the netdevs stay" sh -c "ip -n $ns3 link show $a && ip link show $b"
t_check "UDP 4791 closed everywhere" \
	sh -c "! ss -Hlun 'sport = :4791' | grep -q . && ! ip netns exec $ns3 ss -Hlun 'sport = :4791' | grep -q ."
t_check "the module loads again afterwards" mroce_load
t_check "and devices can be created again" \
	sh -c "rdma link add td6 type metaroce netdev $b && rdma link delete td6"

t_done
