#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The MetaRoCE demo, run inside the test VM by `make demo`: two network
# namespaces joined by a veth, a MetaRoCE device on each side, and what the
# standard RDMA tools see of them.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export RDMAV_DRIVERS=$ROOT/build/lib/libmetaroce

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

step "load metaroce.ko and its dependencies"
modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel
run insmod "$ROOT/metaroce.ko" || exit 1
run modinfo -F description "$ROOT/metaroce.ko"

step "topology: host1 [veth1] <-----> [veth2] host2 (two network namespaces)"
run ip netns add host1
run ip netns add host2
run ip link add veth1 type veth peer name veth2
run ip link set veth1 netns host1
run ip link set veth2 netns host2
run ip -n host1 addr add 192.0.2.1/24 dev veth1
run ip -n host2 addr add 192.0.2.2/24 dev veth2
run ip -n host1 link set veth1 up
run ip -n host2 link set veth2 up
run ip netns exec host1 ping -c 2 -W 5 192.0.2.2

step "one MetaRoCE device per host (names are the user's choice)"
run ip netns exec host1 rdma link add mroce0 type metaroce netdev veth1
run ip netns exec host2 rdma link add gpu_nic1 type metaroce netdev veth2
run ip netns exec host1 rdma link show
run ip netns exec host2 rdma link show
run ls /sys/class/infiniband/

step "the verbs view through libmetaroce (ibv_devices, ibv_devinfo)"
run ibv_devices
run ibv_devinfo -d mroce0

step "GID table: RoCEv2 GIDs follow the netdev's addresses"
gids() {
	grep -H -v '^0000:0000:0000:0000:0000:0000:0000:0000$' \
		/sys/class/infiniband/$1/ports/1/gids/* 2>/dev/null |
		sed 's|.*/gids/||'
}
sleep 1
gids mroce0
run ip -n host1 -6 addr add 2001:db8::1/64 dev veth1 nodad
sleep 1
gids mroce0

step "port state follows carrier: take host2's end down, then up"
state() { cut -d' ' -f2 "/sys/class/infiniband/$1/ports/1/state"; }
run ip -n host2 link set veth2 down
sleep 1
echo "mroce0 port 1: $(state mroce0)"
run ip -n host2 link set veth2 up
sleep 1
echo "mroce0 port 1: $(state mroce0)"
run rdma statistic show link mroce0/1

step "RC traffic: ibv_rc_pingpong between the two hosts"
g1=$(grep -l '0000:0000:0000:0000:0000:ffff:c000:0201' /sys/class/infiniband/mroce0/ports/1/gids/* | head -1)
g2=$(grep -l '0000:0000:0000:0000:0000:ffff:c000:0202' /sys/class/infiniband/gpu_nic1/ports/1/gids/* | head -1)
ip netns exec host2 timeout 60 ibv_rc_pingpong -d gpu_nic1 -g "$(basename "$g2")" -n 100 >/tmp/srv.log 2>&1 &
sleep 2
if ip netns exec host1 timeout 50 ibv_rc_pingpong -d mroce0 -g "$(basename "$g1")" -n 100 192.0.2.2; then
	wait
else
	echo "(RC traffic does not complete yet: the data path is still being built, see issue 5)"
	kill %1 2>/dev/null
fi

step "teardown: rdma link delete, netns deletion, rmmod"
run rdma link delete gpu_nic1
run ip netns del host1
sleep 2
run ls /sys/class/infiniband/
run ip netns del host2
run rmmod metaroce
echo
echo "demo finished"
