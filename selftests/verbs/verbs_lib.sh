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
