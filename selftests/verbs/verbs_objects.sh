#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Every verbs object, limit, bad argument and destruction order through
# ibv_* calls only (verbs_objects.c), on a MetaRoCE device of the build tree.
source "$(dirname "$0")/verbs_lib.sh"

mroce_load_or_skip
use_build_provider
make -s -C "$VERBS_DIR" >/dev/null || ksft_skip_all "cannot build the C tests"

va=$(uname_of a) vb=$(uname_of b) dev=o$$z
veth_pair "$va" "" "$vb" "" || ksft_skip_all "cannot create veth"
ip addr add 192.0.2.1/24 dev "$va"
mroce_dev_on "$dev" "$va" || ksft_skip_all "rdma link add failed"
busywait 5000 port_state_is "$dev" ACTIVE
busywait 5000 ipv4_gid_index "$dev" >/dev/null
"$VERBS_BIN/verbs_objects" "$dev" "$(ipv4_gid_index "$dev")"
