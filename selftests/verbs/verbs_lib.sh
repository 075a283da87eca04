#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Helpers for the verbs selftests, on top of selftests/metaroce/lib.sh.
#
# libibverbs is pointed at the provider of the build tree, without
# installing it, by one environment variable (an absolute path without the
# "-rdmav34.so" suffix, which libibverbs appends):
#   RDMAV_DRIVERS=$MROCE_ROOT/build/lib/libmetaroce

VERBS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../metaroce/lib.sh
source "$VERBS_DIR/../metaroce/lib.sh"

MROCE_PROVIDER=$MROCE_ROOT/build/lib/libmetaroce
VERBS_BIN=$MROCE_ROOT/build/selftests/verbs

# Use the build tree's provider for every libibverbs program started below.
use_build_provider() {
	[ -f "$MROCE_PROVIDER-rdmav34.so" ] ||
		ksft_skip_all "no provider at $MROCE_PROVIDER-rdmav34.so (run 'make')"
	export RDMAV_DRIVERS=$MROCE_PROVIDER
}

# mroce_dev_on IBDEV NETDEV [NETNS]: `rdma link add`, removed at exit.
mroce_dev_on() {
	local ibdev=$1 ndev=$2 ns=${3:-}
	defer rdma link del "$ibdev"
	if [ -n "$ns" ]; then
		ip netns exec "$ns" rdma link add "$ibdev" type metaroce netdev "$ndev"
	else
		rdma link add "$ibdev" type metaroce netdev "$ndev"
	fi && busywait 5000 ibdev_exists "$ibdev"
}

# The index of the first RoCE v2 IPv4 GID of IBDEV port 1.
ipv4_gid_index() {
	local f
	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		case $(cat "$f" 2>/dev/null) in
		0000:0000:0000:0000:0000:ffff:*)
			[ "$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/${f##*/}" 2>/dev/null)" = "RoCE v2" ] &&
				{ echo "${f##*/}"; return 0; } ;;
		esac
	done
	return 1
}

# verbs_prologue: load the module, use the build tree's provider, build the
# C tests; skips the whole test program when one of them fails.
verbs_prologue() {
	mroce_load_or_skip
	use_build_provider
	make -s -C "$VERBS_DIR" >/dev/null || ksft_skip_all "cannot build the C tests"
}

# verbs_one_dev IBDEV: a veth in this namespace with 192.0.2.1 and IBDEV on
# it, ACTIVE, its IPv4 GID index in VERBS_GID; skips the test program
# otherwise.  (Not in a subshell: the cleanups it registers must stay.)
verbs_one_dev() {
	local va vb
	va=$(uname_of a) vb=$(uname_of b)
	veth_pair "$va" "" "$vb" "" || ksft_skip_all "cannot create veth"
	ip addr add 192.0.2.1/24 dev "$va"
	mroce_dev_on "$1" "$va" || ksft_skip_all "rdma link add failed"
	busywait 5000 port_state_is "$1" ACTIVE
	busywait 5000 ipv4_gid_index "$1" >/dev/null
	VERBS_GID=$(ipv4_gid_index "$1") || ksft_skip_all "no IPv4 GID on $1"
}

# tap_relay PREFIX < TAP: one subtest per "ok"/"not ok" line of a C test's
# TAP output, PREFIX before its description; comments pass through.
tap_relay() {
	local line
	while read -r line; do
		case $line in
		"ok "*) t_pass "$1${line#ok [0-9]* }" ;;
		"not ok "*) t_fail "$1${line#not ok [0-9]* }" ;;
		"# "*|"Bail out!"*) echo "# $1${line#\# }" ;;
		esac
	done
}
