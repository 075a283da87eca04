#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The MetaRoCE demo, run inside the test VM by `make demo`: two network
# namespaces joined by a veth, a MetaRoCE device on each side, what the
# standard RDMA tools see of them, then RC traffic between them with
# unmodified tools (ibv_rc_pingpong over IPv4 and IPv6 GIDs, perftest
# ib_write_bw and ib_read_bw, rping connected through rdma_cm).
#
# Every step is checked: the first one that fails stops the demo with
# "DEMO FAILED: <what>" and exit status 1, which tools/vm/run.sh and
# `make demo` pass on.  Tool logs land in $MROCE_RESULTS (build/vm/demo on
# the host).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export RDMAV_DRIVERS=$ROOT/build/lib/libmetaroce
LOGS=${MROCE_RESULTS:-/tmp}

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

fail() {
	local d
	printf '\n\033[1;31mDEMO FAILED: %s\033[0m\n' "$*"
	for d in mroce0 gpu_nic1; do
		[ -e "/sys/class/infiniband/$d" ] || continue
		rdma statistic show link "$d/1"
	done
	echo "packets dropped by full receive backlogs: $(backlog_drops)"
	echo "kernel log (last MetaRoCE lines):"
	dmesg | grep -iE 'metaroce|mroce|gpu_nic1' | tail -n 10
	exit 1
}

# Sum of the "dropped" column of /proc/net/softnet_stat (hex, per CPU).
backlog_drops() {
	local n=0 d rest
	while read -r _ d rest; do n=$((n + 0x$d)); done </proc/net/softnet_stat
	echo "$n"
}

# run CMD...: show CMD, run it, stop the demo if it fails.
run() {
	printf '$ %s\n' "$*"
	"$@" || fail "'$*' exited with status $?"
}

# until_ok SECONDS CMD...: retry CMD once a second until it succeeds.
until_ok() {
	local n=$1
	shift
	while ! "$@" >/dev/null 2>&1; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 1
	done
}

# gid_of DEV GID: the index of GID in DEV's port 1 GID table.  One grep
# over the 1024 entries: a process per entry takes minutes under TCG.
gid_of() {
	local f
	f=$(grep -lx "$2" "/sys/class/infiniband/$1/ports/1/gids/"* 2>/dev/null |
		head -n 1)
	[ -n "$f" ] && echo "${f##*/}"
}

port_state() { cut -d' ' -f2 "/sys/class/infiniband/$1/ports/1/state"; }
port_is() { [ "$(port_state "$1")" = "$2" ]; }
tcp_listens() { ip netns exec host2 ss -Hltn "sport = :$1" | grep -q .; }
cm_listens() {
	rdma resource show cm_id | grep -qE "state LISTEN .*src-addr [^ ]*:$1( |$)"
}

# traffic NAME WAIT... -- SERVER_CMD... -- CLIENT_CMD...
# Start SERVER_CMD in host2, wait until the command WAIT... succeeds (the
# server listens), run CLIENT_CMD in host1.  Both must exit 0; the
# client's last lines are shown.
traffic() {
	local name=$1 wait=() srv=() cli=() spid src crc
	shift
	while [ "$1" != -- ]; do wait+=("$1"); shift; done
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	printf '$ host2: %s\n$ host1: %s\n' "${srv[*]}" "${cli[*]}"
	ip netns exec host2 timeout 120 "${srv[@]}" \
		>"$LOGS/demo-$name-server.log" 2>&1 &
	spid=$!
	if ! until_ok 20 "${wait[@]}"; then
		kill "$spid" 2>/dev/null
		fail "$name: the server in host2 did not start listening"
	fi
	ip netns exec host1 timeout 120 "${cli[@]}" \
		>"$LOGS/demo-$name-client.log" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	if [ "$crc" -ne 0 ] || [ "$src" -ne 0 ]; then
		tail -n 8 "$LOGS/demo-$name-server.log" | sed 's/^/  server: /'
		tail -n 8 "$LOGS/demo-$name-client.log" | sed 's/^/  client: /'
		fail "$name: RC traffic failed (client exit $crc, server exit $src)"
	fi
	grep -vE '^[ -]*$' "$LOGS/demo-$name-client.log" | tail -n "${SHOW:-2}" |
		sed 's/^/  /'
}

step "load metaroce.ko and its dependencies"
run modprobe -a ib_core ib_uverbs rdma_ucm udp_tunnel ip6_udp_tunnel
run insmod "$ROOT/metaroce.ko"
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
V4_1=0000:0000:0000:0000:0000:ffff:c000:0201
V4_2=0000:0000:0000:0000:0000:ffff:c000:0202
V6_1=2001:0db8:0000:0000:0000:0000:0000:0001
V6_2=2001:0db8:0000:0000:0000:0000:0000:0002
gids() {
	grep -H -v '^0000:0000:0000:0000:0000:0000:0000:0000$' \
		"/sys/class/infiniband/$1/ports/1/gids/"* 2>/dev/null |
		sed 's|.*/gids/|  |'
}
until_ok 10 gid_of mroce0 $V4_1 || fail "mroce0 has no GID for 192.0.2.1"
gids mroce0
run ip -n host1 -6 addr add 2001:db8::1/64 dev veth1 nodad
until_ok 10 gid_of mroce0 $V6_1 || fail "mroce0 has no GID for 2001:db8::1"
gids mroce0

step "port state follows carrier: take host2's end down, then up"
run ip -n host2 link set veth2 down
until_ok 10 port_is mroce0 DOWN || fail "mroce0 port 1 did not go DOWN"
echo "mroce0 port 1: $(port_state mroce0)"
run ip -n host2 link set veth2 up
until_ok 10 port_is mroce0 ACTIVE || fail "mroce0 port 1 did not come back ACTIVE"
echo "mroce0 port 1: $(port_state mroce0)"
run rdma statistic show link mroce0/1

step "RC traffic between the two hosts"
# Set after the port test: taking veth2 down flushes its IPv6 addresses.
run ip -n host2 -6 addr add 2001:db8::2/64 dev veth2 nodad
until_ok 10 gid_of gpu_nic1 $V4_2 || fail "gpu_nic1 has no GID for 192.0.2.2"
until_ok 10 gid_of gpu_nic1 $V6_2 || fail "gpu_nic1 has no GID for 2001:db8::2"
G1=$(gid_of mroce0 $V4_1) G2=$(gid_of gpu_nic1 $V4_2)
G1_6=$(gid_of mroce0 $V6_1) G2_6=$(gid_of gpu_nic1 $V6_2)
echo "GID indexes: mroce0 $G1 (IPv4) $G1_6 (IPv6), gpu_nic1 $G2 (IPv4) $G2_6 (IPv6)"

echo
echo "ibv_rc_pingpong, 4 KiB messages, received data checked (-c), IPv4 GIDs:"
traffic rc_pingpong tcp_listens 18515 -- \
	ibv_rc_pingpong -d gpu_nic1 -g "$G2" -s 4096 -n 200 -c -- \
	ibv_rc_pingpong -d mroce0 -g "$G1" -s 4096 -n 200 -c 192.0.2.2
echo
echo "ibv_rc_pingpong, 64 KiB messages (64 packets each at its 1024-byte MTU), IPv6 GIDs:"
traffic rc_pingpong6 tcp_listens 18515 -- \
	ibv_rc_pingpong -d gpu_nic1 -g "$G2_6" -s 65536 -n 50 -c -- \
	ibv_rc_pingpong -d mroce0 -g "$G1_6" -s 65536 -n 50 -c 192.0.2.2
echo
echo "perftest ib_write_bw, 64 KiB RDMA WRITEs (a TCG guest: not NIC speeds):"
SHOW=3 traffic write_bw tcp_listens 18515 -- \
	ib_write_bw -d gpu_nic1 -x "$G2" -F -s 65536 -n 200 -- \
	ib_write_bw -d mroce0 -x "$G1" -F -s 65536 -n 200 192.0.2.2
echo
echo "perftest ib_read_bw, 64 KiB RDMA READs:"
SHOW=3 traffic read_bw tcp_listens 18515 -- \
	ib_read_bw -d gpu_nic1 -x "$G2" -F -s 65536 -n 200 -- \
	ib_read_bw -d mroce0 -x "$G1" -F -s 65536 -n 200 192.0.2.2
echo
echo "rping: rdma_cm connects (ib_cm over QP1); each ping is a SEND, an RDMA READ"
echo "and an RDMA WRITE; the data is verified (-V):"
traffic rping cm_listens 7174 -- \
	rping -s -a 192.0.2.2 -C 10 -S 64 -v -V -- \
	rping -c -a 192.0.2.2 -C 10 -S 64 -v -V
run rdma statistic show link mroce0/1
run rdma statistic show link gpu_nic1/1
echo "packets the veth dropped (full receive backlog): $(backlog_drops)"

step "teardown: rdma link delete, netns deletion, rmmod"
run rdma link delete gpu_nic1
run ip netns del host1
until_ok 10 test ! -e /sys/class/infiniband/mroce0 ||
	fail "mroce0 is still there after its namespace was deleted"
run ls /sys/class/infiniband/
run ip netns del host2
run rmmod metaroce
echo
echo "demo finished: every step passed"
