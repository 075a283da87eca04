#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# RC edges of the state machine on one device (qp_edges.c): a producer
# index moved backwards puts the QP in ERR, IBV_EVENT_SQ_DRAINED waits for
# every request to be acknowledged, and a SEND with Invalidate naming a key
# that cannot be invalidated is refused without invalidating it.
# MROCE_T_QP_EDGES_CASE=NAME runs one case.
source "$(dirname "$0")/../lib.sh"

verbs_prologue
dev=e$$q
verbs_one_dev "$dev"
out=$(timeout 120 "$SUITE_BIN/qp_edges" "$dev" "$VERBS_GID" \
	${MROCE_T_QP_EDGES_CASE:+"$MROCE_T_QP_EDGES_CASE"})
rc=$?
tap_relay "" <<<"$out"
[ $rc -le 1 ] || t_fail "qp_edges exited $rc"
t_done
