#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rdma-core's pyverbs resource modules against MetaRoCE and rxe in one run,
# with a pass/fail/skip table per module; every test rxe passes and MetaRoCE
# does not must have a known explanation.
source "$(dirname "$0")/verbs_lib.sh"

PY=/usr/bin/python3
SRC=/usr/share/doc/rdma-core/tests
MODULES=(test_device test_pd test_mr test_cq test_cq_events test_qp test_addr)

$PY -c 'import pyverbs' 2>/dev/null || ksft_skip_all "python3-pyverbs not installed"
[ -f "$SRC/run_tests.py" ] || ksft_skip_all "no pyverbs tests in $SRC"
mroce_load_or_skip
use_build_provider
modprobe rdma_rxe 2>/dev/null || ksft_skip_all "no rdma_rxe"

# MetaRoCE in its own namespace: rxe binds UDP 4791 in init_net.
ns=$(uname_of n) va=$(uname_of a) vb=$(uname_of b)
mdev=m$$p rdev=r$$x
new_netns "$ns" || ksft_skip_all "cannot create a namespace"
veth_pair "$va" "$ns" "$vb" "" || ksft_skip_all "cannot create veth"
ip -n "$ns" addr add 192.0.2.1/24 dev "$va"
ip addr add 192.0.2.2/24 dev "$vb"
t_check "rdma link add $mdev (metaroce, netns $ns)" mroce_dev_on "$mdev" "$va" "$ns"
defer rdma link del "$rdev"
t_check "rdma link add $rdev (rxe)" rdma link add "$rdev" type rxe netdev "$vb"
busywait 5000 port_state_is "$mdev" ACTIVE
busywait 5000 port_state_is "$rdev" ACTIVE
busywait 5000 ipv4_gid_index "$mdev" >/dev/null
busywait 5000 ipv4_gid_index "$rdev" >/dev/null
mgid=$(ipv4_gid_index "$mdev") rgid=$(ipv4_gid_index "$rdev")

work=$(mktemp -d)
defer rm -rf "$work"
cp -r "$SRC" "$work/tests"
gunzip -f "$work"/tests/*.gz
# Traffic tests cannot complete on MetaRoCE before issue 5; do not let each
# wait the default 10 s.
sed -i 's/^POLL_CQ_TIMEOUT = .*/POLL_CQ_TIMEOUT = 3/' "$work/tests/utils.py"

logs=$work/logs
mkdir -p "$logs"
for m in "${MODULES[@]}"; do
	(cd "$work" && timeout 300 $PY tests/run_tests.py --dev "$mdev" --port 1 \
		--gid "$mgid" -v "tests.$m") >"$logs/metaroce-$m.log" 2>&1
	(cd "$work" && timeout 300 $PY tests/run_tests.py --dev "$rdev" --port 1 \
		--gid "$rgid" -v "tests.$m") >"$logs/rxe-$m.log" 2>&1
done
[ -n "${MROCE_RESULTS:-}" ] && cp -r "$logs" "$MROCE_RESULTS/pyverbs-logs" 2>/dev/null

table=$($PY "$VERBS_DIR/pyverbs_table.py" "$logs" "${MODULES[@]}")
rc=$?
echo "$table"
[ $rc -eq 0 ] && t_pass "pyverbs: MetaRoCE passes wherever rxe does, or the difference is explained" ||
	t_fail "pyverbs: unexplained differences with rxe (see table)"
t_done
