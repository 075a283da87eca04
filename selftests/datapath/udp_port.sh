#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The udp_port module parameter: devices created after `udp_port=4793` send
# to and listen on 4793 for all their traffic, next to 4791 devices in the
# same namespaces (two ports at once, RC traffic over both, data checked); a
# peer on the other port is not reached; a port another program holds fails
# the creation with EADDRINUSE and a message; invalid values are refused.
source "$(dirname "$0")/../lib.sh"

dp_setup mm ibv_rc_pingpong
param=/sys/module/metaroce/parameters/udp_port
[ -w "$param" ] || ksft_skip_all "metaroce.ko has no writable udp_port"
defer "echo 4791 > $param"
echo 4791 >"$param"

# ---- invalid values are refused and change nothing
for bad in 0 65536 -1 abc; do
	t_check_fail "udp_port=$bad is refused" sh -c "echo $bad > $param"
done
t_check "the refusal says why" \
	sh -c "dmesg | tail -5 | grep -q 'udp_port=abc refused: a UDP port is a number from 1 to 65535'"
t_check "udp_port is still 4791" grep -qx 4791 "$param"

# ---- a second pair of devices on port 4793, on a second veth
t_check "udp_port=4793 is accepted" sh -c "echo 4793 > $param"
w1=$(uname_of c) w2=$(uname_of d)
veth_pair "$w1" "$NS1" "$w2" "$NS2"
ip -n "$NS1" addr add 198.51.100.1/24 dev "$w1"
ip -n "$NS2" addr add 198.51.100.2/24 dev "$w2"
P1=${NS1}p P2=${NS2}p
t_check "devices on port 4793 in both namespaces" sh -c "
	ip netns exec $NS1 rdma link add $P1 type metaroce netdev $w1 &&
	ip netns exec $NS2 rdma link add $P2 type metaroce netdev $w2"
defer rdma link delete "$P1"
defer rdma link delete "$P2"
t_check "both ports open in $NS1 and $NS2" sh -c "
	$(declare -f ns_exec udp_listening); udp_listening $NS1 4791 && udp_listening $NS1 4793 &&
	udp_listening $NS2 4791 && udp_listening $NS2 4793"
t_check "the kernel log gives the port" \
	sh -c "dmesg | grep -q '$P1: bound to $w1, UDP port 4793'"
t_check "sysfs metaroce_udp_port: 4793 for $P1, 4791 for $DEV1" sh -c "
	grep -qx 4793 /sys/class/infiniband/$P1/metaroce_udp_port &&
	grep -qx 4791 /sys/class/infiniband/$DEV1/metaroce_udp_port"
busywait 5000 gid_index "$P1" v4 >/dev/null
busywait 5000 gid_index "$P2" v4 >/dev/null

# ---- traffic over both ports
# Ports of its own: T_PORT + 2 and + 3.
P=$((T_PORT + 2))
cs_run "RC over port 4791 ($DEV1 - $DEV2)" $P 2 60 \
	ibv_rc_pingpong -p $P -d {DEV} -g {GID} -s 4096 -n 20 -c -- \
	ibv_rc_pingpong -p $P -d {DEV} -g {GID} -s 4096 -n 20 -c {PEER}
rx0=$(mroce_counter "$DEV2" rx_packets)
save=("$DEV1" "$DEV2" "$G1" "$G2" "$DP_IP1" "$DP_IP2")
DEV1=$P1 DEV2=$P2 DP_IP1=198.51.100.1 DP_IP2=198.51.100.2
G1=$(gid_index "$P1" v4) G2=$(gid_index "$P2" v4)
cs_run "RC over port 4793 ($P1 - $P2)" $P 2 60 \
	ibv_rc_pingpong -p $P -d {DEV} -g {GID} -s 4096 -n 20 -c -- \
	ibv_rc_pingpong -p $P -d {DEV} -g {GID} -s 4096 -n 20 -c {PEER}
DEV1=${save[0]} DEV2=${save[1]} G1=${save[2]} G2=${save[3]}
DP_IP1=${save[4]} DP_IP2=${save[5]}
t_check "the 4791 device of the same netns saw none of it" \
	test "$(mroce_counter "${save[1]}" rx_packets)" = "$rx0"

# ---- a peer on the other port: a 4791 device on $w1 against $P2 (4793)
rdma link delete "$P1"
busywait 5000 ibdev_gone "$P1"
echo 4791 >"$param"
Q1=${NS1}q
defer rdma link delete "$Q1"
t_check "a 4791 device $Q1 on $w1" \
	ip netns exec "$NS1" rdma link add "$Q1" type metaroce netdev "$w1"
busywait 5000 gid_index "$Q1" v4 >/dev/null
rx0=$(mroce_counter "$P2" rx_packets)
ip netns exec "$NS2" timeout 15 ibv_rc_pingpong -p $((P + 1)) -d "$P2" \
	-g "$(gid_index "$P2" v4)" -s 64 -n 5 >/dev/null 2>&1 &
srv=$!
busywait 5000 tcp_listening "$NS2" $((P + 1))
t_check_fail "RC from a 4791 device to a 4793 peer fails (retries exceeded)" \
	ip netns exec "$NS1" timeout 15 ibv_rc_pingpong -p $((P + 1)) -d "$Q1" \
		-g "$(gid_index "$Q1" v4)" -s 64 -n 5 198.51.100.2
kill "$srv" 2>/dev/null
wait "$srv" 2>/dev/null
t_check "the 4793 peer received nothing" \
	test "$(mroce_counter "$P2" rx_packets)" = "$rx0"

# ---- a port held by another program
holder=$(uname_of h)
python_bin=/usr/bin/python3
[ -x $python_bin ] || python_bin=python3
ip netns exec "$NS2" $python_bin -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('0.0.0.0', 4795))
time.sleep(30)" &
hold=$!
defer kill $hold
busywait 20000 udp_listening "$NS2" 4795
echo 4795 >"$param"
x1=$(uname_of x) x2=$(uname_of y)
veth_pair "$x1" "$NS2" "$x2" ""
t_check_fail "rdma link add with udp_port=4795 taken in $NS2 fails" \
	ip netns exec "$NS2" rdma link add "$holder" type metaroce netdev "$x1"
t_check "the kernel log names the port and the cause" \
	sh -c "dmesg | tail -5 | grep -q 'port 4795) in the namespace of $x1: -98 (port taken'"
echo 4791 >"$param"

# ---- the last device of a port closes it
rdma link delete "$P2"
t_check "deleting the last 4793 device closes 4793 in $NS2, 4791 stays" \
	busywait 5000 sh -c "$(declare -f ns_exec udp_listening);
		! udp_listening $NS2 4793 && udp_listening $NS2 4791"
t_done
