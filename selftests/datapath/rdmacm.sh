#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Connection setup through the kernel's communication manager: ib_mad opens
# the GSI QP (QP1) of a MetaRoCE port, ib_cm carries its REQ/REP/RTU and
# DREQ/DREP MADs over it, and rdma_cm (through rdma_ucm) moves the
# userspace RC QPs of rping, ucmatose and perftest -R to RTS with the
# attributes the CM negotiated.  Both topologies: MetaRoCE <-> MetaRoCE
# (mm) and MetaRoCE <-> rdma_rxe (mx), each side as server, IPv4 and IPv6.
source "$(dirname "$0")/../lib.sh"

# PortInfo:CapabilityMask.IsCommunicationManagementSupported (IB_PORT_CM_SUP)
CAP_CM_SUP=$((1 << 16))

mroce_load_or_skip
use_build_provider
for t in rping ucmatose ib_send_bw; do
	command -v $t >/dev/null || ksft_skip_all "$t not installed"
done
modprobe rdma_ucm 2>/dev/null || ksft_skip_all "rdma_ucm (rdma_cm) not available"

port_has_cm() { # DEV
	local cap
	read -r cap <"/sys/class/infiniband/$1/ports/1/cap_mask" || return 1
	[ $((cap & CAP_CM_SUP)) -ne 0 ]
}

gsi_qp_ready() { # DEV: ib_mad's QP1 exists and is in RTS
	rdma resource show qp link "$1/1" 2>/dev/null |
		grep -qE "lqpn 1 .*type GSI.*state RTS"
}

# No MAD or CM layer complained about DEV (ib_mad, ib_cm and rdma_cm name
# the device in their messages).
no_mad_errors() { # DEV
	! dmesg | grep -F "$1" | grep -iE "couldn|fail|error|warn"
}

# pt_cm DESC SIDE TOOL ARGS...: a perftest -R run.  The perftest server
# listens on its port twice: for the connection that exchanges the test
# parameters, then for the test QPs.  perftest 4.5's client gives up when it
# reaches the second listener before it exists (REJ with reason 8, invalid
# service ID; later perftest retries there): run it again, at most twice.
pt_cm() {
	local desc=$1 side=$2 tool=$3 out first try
	shift 3
	for try in 1 2 3; do
		out=$(cs_run "$desc" cm:$T_PORT "$side" 60 \
			"$tool" -d {DEV} -R -F "$@" -- \
			"$tool" -d {DEV} -R -F "$@" {PEER})
		[[ $out == ok* ]] && break
		grep -q "RDMA_CM_EVENT_REJECTED; error: 8" <<<"$out" || break
		echo "# $desc: the client came before the second listener (try $try)"
	done
	first=${out%%$'\n'*}
	if [[ $first == ok* ]]; then
		t_pass "$desc"
	else
		t_fail "${first#not ok * - }"
	fi
	[[ $out == *$'\n'* ]] && echo "${out#*$'\n'}"
}

# The tests of one topology, MetaRoCE on side 1 (server side 1 and 2).
cm_tests() { # TOPO
	local topo=$1 side s
	t_check "$topo: $DEV1 advertises CM support" port_has_cm "$DEV1"
	t_check "$topo: ib_mad opened QP1 of $DEV1" busywait 5000 gsi_qp_ready "$DEV1"
	for side in 2 1; do
		s="$topo, server on side $side"
		cs_run "rping -S 64, $s" cm:7174 $side 60 \
			rping -s -v -V -C 10 -S 64 -a {PEER} -- \
			rping -c -v -V -C 10 -S 64 -a {PEER}
		# Four packets per message; -V checks the data, -v would
		# print 4 KiB lines.
		cs_run "rping -S 4096, $s" cm:7174 $side 60 \
			rping -s -V -C 10 -S 4096 -a {PEER} -- \
			rping -c -V -C 10 -S 4096 -a {PEER}
		cs_run "ucmatose, $s" cm:7471 $side 60 \
			ucmatose -b {PEER} -C 10 -- \
			ucmatose -s {PEER} -C 10
		pt_cm "ib_send_bw -R 4 KiB, $s" $side ib_send_bw -s 4096 -n 200
		pt_cm "ib_write_bw -R 64 KiB, $s" $side ib_write_bw -s 65536 -n 200
		pt_cm "ib_read_lat -R 2 B, $s" $side ib_read_lat -s 2 -n 200
		# The other perftest programs with -R: both roles against rxe,
		# one between two MetaRoCE devices (the same code either way).
		[ "$topo" = mm ] && [ "$side" = 1 ] && continue
		pt_cm "ib_read_bw -R 64 KiB, $s" $side ib_read_bw -s 65536 -n 100
		pt_cm "ib_atomic_bw -R, $s" $side ib_atomic_bw -n 100
		pt_cm "ib_write_lat -R 2 B, $s" $side ib_write_lat -s 2 -n 100
		pt_cm "ib_send_lat -R 2 B, $s" $side ib_send_lat -s 2 -n 100
	done
	cs_run "rping IPv6 -S 1024, $topo, server on side 2" cm:7174 2 60 \
		rping -s -v -V -C 10 -S 1024 -a {PEER6} -- \
		rping -c -v -V -C 10 -S 1024 -a {PEER6}
	cs_run "ucmatose IPv6, $topo, server on side 1" cm:7471 1 60 \
		ucmatose -b {PEER6} -C 10 -- \
		ucmatose -s {PEER6} -C 10
	t_skip "ib_send_bw -R IPv6, $topo" \
		"perftest 4.5 resolves the -R server address as IPv4 only (\"Address family for hostname not supported\")"
	t_check "$topo: no MAD/CM errors in the kernel log" no_mad_errors "$DEV1"
	echo "# $DEV1: $(dp_counters "$DEV1")"
}

# Which listeners a perftest -R server opens on its port (-p, T_PORT): cs_run
# must wait for the one the client connects to.  Informational.
perftest_listeners() {
	local pid tcp=0 cm=0
	ip netns exec "$NS2" timeout 30 ib_send_bw -d "$DEV2" -R -F -n 5 \
		>/dev/null 2>&1 &
	pid=$!
	busywait 10000 cm_listening $T_PORT && cm=1
	tcp_listening "$NS2" $T_PORT && tcp=1
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "# ib_send_bw -R server: rdma_cm listener $cm, TCP listener $tcp"
}

dp_topo mm || ksft_skip_all "cannot build the mm topology"
perftest_listeners
cm_tests mm
# One topology at a time: the names of the namespaces and devices repeat.
_run_cleanups

# rdma_rxe keeps UDP port 4791 of the initial namespace while it is loaded,
# which MetaRoCE devices there would need: unload it again if we load it.
grep -q '^rdma_rxe ' /proc/modules || defer modprobe -r rdma_rxe
if ! modprobe rdma_rxe 2>/dev/null; then
	t_skip "mx: rping, ucmatose, perftest -R vs rdma_rxe" "rdma_rxe not available"
elif ! dp_topo mx; then
	t_fail "mx: cannot build the topology"
else
	cm_tests mx
fi
t_done
