#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Shared helpers for the MetaRoCE VM selftests: TAP 13 output, cleanup,
# bounded waits, network namespaces and module loading.  Source it first.

# In an installed kselftest tree (make -C selftests install) the MetaRoCE
# tree the programs use is recorded in ../mroce-root.
if [ -z "${MROCE_ROOT:-}" ] && [ -r "$(dirname "${BASH_SOURCE[0]}")/../mroce-root" ]; then
	MROCE_ROOT=$(cat "$(dirname "${BASH_SOURCE[0]}")/../mroce-root")
fi
MROCE_ROOT=${MROCE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

_t_num=0
_t_failed=0
_cleanups=()

echo "TAP version 13"

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

# True when the RDMA device exists.
ibdev_exists() {
	[ -e "/sys/class/infiniband/$1" ]
}

ibdev_gone() {
	! ibdev_exists "$1"
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

# mroce_counter DEV NAME: a device counter from `rdma statistic`.
mroce_counter() {
	rdma statistic show link "$1/1" 2>/dev/null |
		tr ' ' '\n' | grep -A1 -x "$2" | tail -n 1
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
