#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest side of the rxe test-vector capture (run by update-rxe.sh through
# tools/vm/run.sh): two rdma_rxe devices on the two ends of a veth pair,
# traffic from ibverbs-utils and perftest between them, captured with
# dumpcap into $MROCE_RESULTS/rxe-ipv4.pcap and rxe-ipv6.pcap.
#
# rdma_rxe in 6.1 has one UDP socket in init_net and short-cuts traffic
# between QPs of one device, so both devices live in init_net and policy
# routing sends locally generated traffic for the other end out of the
# veth instead of through lo:
#   rules: 10 iif vethX -> local (deliver what arrives on a veth)
#          20 to <peer> -> table 10/11 (leave through the veth)
#          100 -> local (everything else, as before)
set -u

out=${MROCE_RESULTS:?}
A4=10.77.0.1 B4=10.77.0.2 A6=fd77::1 B6=fd77::2
log() { echo "capture-rxe: $*"; }
run() { log "+ $*"; "$@"; }

cleanup() {
	[ -n "${capture_pid:-}" ] && kill "$capture_pid" 2>/dev/null
	rdma link del rxe1 2>/dev/null
	rdma link del rxe0 2>/dev/null
	ip link del veth0 2>/dev/null
}
trap cleanup EXIT

command -v dumpcap >/dev/null || { log "SKIP: dumpcap missing"; exit 4; }
command -v ibv_rc_pingpong >/dev/null || { log "SKIP: ibverbs-utils missing"; exit 4; }
modprobe rdma_rxe && modprobe ib_uverbs || { log "SKIP: no rdma_rxe"; exit 4; }

ip link add veth0 type veth peer name veth1
ip link set veth0 mtu 1500 up
ip link set veth1 mtu 1500 up
ip addr add $A4/24 dev veth0
ip addr add $B4/24 dev veth1
ip -6 addr add $A6/64 dev veth0 nodad
ip -6 addr add $B6/64 dev veth1 nodad
for d in all default veth0 veth1; do
	sysctl -qw net.ipv4.conf.$d.rp_filter=0 net.ipv4.conf.$d.accept_local=1
done
mac0=$(cat /sys/class/net/veth0/address)
mac1=$(cat /sys/class/net/veth1/address)
ip neigh add $B4 lladdr "$mac1" dev veth0 nud permanent
ip neigh add $A4 lladdr "$mac0" dev veth1 nud permanent
ip -6 neigh add $B6 lladdr "$mac1" dev veth0 nud permanent
ip -6 neigh add $A6 lladdr "$mac0" dev veth1 nud permanent
for f in "" -6; do
	ip $f rule add pref 100 lookup local
	ip $f rule del pref 0
	ip $f rule add pref 10 iif veth0 lookup local
	ip $f rule add pref 10 iif veth1 lookup local
done
ip route add $B4 dev veth0 src $A4 table 10
ip route add $A4 dev veth1 src $B4 table 11
ip rule add pref 20 to $B4 lookup 10
ip rule add pref 20 to $A4 lookup 11
ip -6 route add $B6 dev veth0 src $A6 table 10
ip -6 route add $A6 dev veth1 src $B6 table 11
ip -6 rule add pref 20 to $B6 lookup 10
ip -6 rule add pref 20 to $A6 lookup 11
ip route get $B4
ip -6 route get $B6

run rdma link add rxe0 type rxe netdev veth0 || exit 1
run rdma link add rxe1 type rxe netdev veth1 || exit 1

# GID index of the RoCE v2 GID of a device for an address.
gid_index() {
	local dev=$1 want=$2 p i
	for p in /sys/class/infiniband/$dev/ports/1/gids/*; do
		i=${p##*/}
		[ "$(cat "$p" 2>/dev/null)" = "$want" ] || continue
		[ "$(cat /sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i 2>/dev/null)" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}

# Wait (bounded) for the GIDs to appear.
for _ in $(seq 50); do
	gid_index rxe0 0000:0000:0000:0000:0000:ffff:0a4d:0001 >/dev/null &&
		gid_index rxe1 0000:0000:0000:0000:0000:ffff:0a4d:0002 >/dev/null &&
		gid_index rxe1 fd77:0000:0000:0000:0000:0000:0000:0002 >/dev/null && break
	sleep 0.2
done
grep -H . /sys/class/infiniband/rxe*/ports/1/gids/[0-3] \
	/sys/class/infiniband/rxe*/ports/1/gid_attrs/types/[0-3] 2>/dev/null

# pair NAME SERVER-ARGS -- CLIENT-ARGS: run a server on rxe0 and its client on
# rxe1, each bounded in time; failures are logged, not fatal, so one tool
# missing a feature does not lose the other vectors.
pair() {
	local name=$1 srv=() cli=() spid
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	log "== $name"
	timeout 60 "${srv[@]}" >"$out/$name.server.log" 2>&1 &
	spid=$!
	sleep 1
	timeout 60 "${cli[@]}" >"$out/$name.client.log" 2>&1
	log "$name client exit $?"
	wait "$spid"
	log "$name server exit $?"
}

traffic() {
	local a=$1 ga=$2 gb=$3
	pair rc-send ibv_rc_pingpong -d rxe0 -g "$ga" -m 1024 -s 3000 -n 1 -- \
		ibv_rc_pingpong -d rxe1 -g "$gb" -m 1024 -s 3000 -n 1 "$a"
	pair rc-send-small ibv_rc_pingpong -d rxe0 -g "$ga" -s 37 -n 1 -- \
		ibv_rc_pingpong -d rxe1 -g "$gb" -s 37 -n 1 "$a"
	pair ud-send ibv_ud_pingpong -d rxe0 -g "$ga" -s 512 -n 1 -- \
		ibv_ud_pingpong -d rxe1 -g "$gb" -s 512 -n 1 "$a"
	pair write-small ib_write_bw -d rxe0 -x "$ga" -s 100 -n 5 -F -- \
		ib_write_bw -d rxe1 -x "$gb" -s 100 -n 5 -F "$a"
	pair read ib_read_bw -d rxe0 -x "$ga" -m 1024 -s 2500 -n 5 -F -- \
		ib_read_bw -d rxe1 -x "$gb" -m 1024 -s 2500 -n 5 -F "$a"
	pair read-small ib_read_bw -d rxe0 -x "$ga" -s 64 -n 5 -F -- \
		ib_read_bw -d rxe1 -x "$gb" -s 64 -n 5 -F "$a"
	pair fadd ib_atomic_bw -d rxe0 -x "$ga" -n 5 -F -A FETCH_AND_ADD -- \
		ib_atomic_bw -d rxe1 -x "$gb" -n 5 -F -A FETCH_AND_ADD "$a"
	pair cswap ib_atomic_bw -d rxe0 -x "$ga" -n 5 -F -A CMP_AND_SWAP -- \
		ib_atomic_bw -d rxe1 -x "$gb" -n 5 -F -A CMP_AND_SWAP "$a"
	# Loss on the way to the responder makes it NAK (PSN sequence
	# error) and the requester go back N; multi-packet WRITEs too.
	tc qdisc add dev veth1 root netem loss 15%
	pair write-loss ib_write_bw -d rxe0 -x "$ga" -m 1024 -s 2500 -n 10 -F -- \
		ib_write_bw -d rxe1 -x "$gb" -m 1024 -s 2500 -n 10 -F "$a"
	tc qdisc del dev veth1 root
}

# Start dumpcap and wait (bounded) until it says it is capturing: under
# TCG its start-up takes seconds, and traffic sent before is lost.
capture() {
	dumpcap -P -i veth0 -f "udp port 4791" -w "$out/$1" \
		2>"$out/$1.log" &
	capture_pid=$!
	for _ in $(seq 300); do
		grep -q "Capturing on" "$out/$1.log" 2>/dev/null && break
		sleep 0.2
	done
	sleep 1
}

stop_capture() {
	sleep 1
	kill "$capture_pid"
	wait "$capture_pid"
	capture_pid=
}

ga4=$(gid_index rxe0 0000:0000:0000:0000:0000:ffff:0a4d:0001)
gb4=$(gid_index rxe1 0000:0000:0000:0000:0000:ffff:0a4d:0002)
ga6=$(gid_index rxe0 fd77:0000:0000:0000:0000:0000:0000:0001)
gb6=$(gid_index rxe1 fd77:0000:0000:0000:0000:0000:0000:0002)
log "GID indexes: ipv4 $ga4/$gb4 ipv6 $ga6/$gb6"
[ -n "$ga4" ] && [ -n "$gb4" ] || { log "FAIL: no RoCE v2 IPv4 GIDs"; exit 1; }

capture rxe-ipv4.pcap
traffic $A4 "$ga4" "$gb4"
stop_capture
# IPv6: one exchange is enough to check the IPv6 ICRC masking.
if [ -n "$ga6" ] && [ -n "$gb6" ]; then
	capture rxe-ipv6.pcap
	pair rc-send-ipv6 ibv_rc_pingpong -d rxe0 -g "$ga6" -m 1024 -s 3000 -n 1 -- \
		ibv_rc_pingpong -d rxe1 -g "$gb6" -m 1024 -s 3000 -n 1 $A4
	stop_capture
fi
ls -l "$out"
rdma statistic show 2>/dev/null | head -20
exit 0
