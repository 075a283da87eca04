#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# RC edges of the state machine on one device (qp_edges.c): a producer
# index moved backwards puts the QP in ERR, IBV_EVENT_SQ_DRAINED waits for
# every request to be acknowledged, and a SEND with Invalidate naming a key
# that cannot be invalidated is refused without invalidating it.
# MROCE_T_QP_EDGES_CASE=NAME runs one case.
source "$(dirname "$0")/verbs_lib.sh"

mroce_load_or_skip
use_build_provider
make -s -C "$VERBS_DIR" >/dev/null || ksft_skip_all "cannot build the C tests"

va=$(uname_of a) vb=$(uname_of b) dev=e$$q
veth_pair "$va" "" "$vb" "" || ksft_skip_all "cannot create veth"
ip addr add 192.0.2.1/24 dev "$va"
mroce_dev_on "$dev" "$va" || ksft_skip_all "rdma link add failed"
busywait 5000 port_state_is "$dev" ACTIVE
busywait 5000 ipv4_gid_index "$dev" >/dev/null

out=$(timeout 120 "$VERBS_BIN/qp_edges" "$dev" "$(ipv4_gid_index "$dev")" \
	${MROCE_T_QP_EDGES_CASE:+"$MROCE_T_QP_EDGES_CASE"})
rc=$?
while read -r line; do
	case $line in
	"ok "*) t_pass "${line#ok [0-9]* }" ;;
	"not ok "*) t_fail "${line#not ok [0-9]* }" ;;
	"Bail out!"*) echo "# $line" ;;
	esac
done <<<"$out"
[ $rc -le 1 ] || t_fail "qp_edges exited $rc"
t_done
