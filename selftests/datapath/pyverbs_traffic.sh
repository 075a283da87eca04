#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# rdma-core's pyverbs traffic modules against MetaRoCE and rxe in one run,
# with the pass/fail/skip table per module (selftests/verbs/pyverbs_table.py):
# every test rxe passes and MetaRoCE does not must have a known explanation.
# Most of these tests connect two QPs of the same device, so they also
# exercise loopback.  MetaRoCE sits in a namespace (rxe keeps UDP 4791 of
# the initial one on 6.1).
source "$(dirname "$0")/dp_lib.sh"

PY=/usr/bin/python3
SRC=/usr/share/doc/rdma-core/tests
MODULES=(${MROCE_T_PYV_MODULES:-test_cq test_cq_events test_cqex test_qpex
	test_atomic test_mr test_shared_pd test_relaxed_ordering
	test_parent_domain test_fork test_odp test_rdmacm})

$PY -c 'import pyverbs' 2>/dev/null || ksft_skip_all "python3-pyverbs not installed"
[ -f "$SRC/run_tests.py" ] || ksft_skip_all "no pyverbs tests in $SRC"
mroce_load_or_skip
use_build_provider
modprobe rdma_rxe 2>/dev/null || ksft_skip_all "no rdma_rxe"
defer modprobe -r rdma_rxe
dp_topo mx || ksft_skip_all "cannot build the mx topology"

work=$(mktemp -d)
defer rm -rf "$work"
cp -r "$SRC" "$work/tests"
gunzip -f "$work"/tests/*.gz
logs=$work/logs
mkdir -p "$logs"

# run_mod NS DEV GID MODULE LOG
run_mod() {
	(cd "$work" && ns_exec "$1" timeout 600 $PY tests/run_tests.py \
		--dev "$2" --port 1 --gid "$3" -v "tests.$4") >"$5" 2>&1
}
for m in "${MODULES[@]}"; do
	if [ ! -f "$work/tests/$m.py" ]; then
		echo "# $m: not shipped by this rdma-core" >"$logs/absent-$m"
		continue
	fi
	start=$(date +%s)
	run_mod "$NS1" "$DEV1" "$G1" "$m" "$logs/metaroce-$m.log"
	mid=$(date +%s)
	run_mod "" "$DEV2" "$G2" "$m" "$logs/rxe-$m.log"
	echo "# $m: metaroce $((mid - start)) s, rxe $(($(date +%s) - mid)) s"
done
[ -n "${MROCE_RESULTS:-}" ] && cp -r "$logs" "$MROCE_RESULTS/pyverbs-traffic-logs" 2>/dev/null

$PY "$DP_DIR/../verbs/pyverbs_table.py" "$logs" "${MODULES[@]}"
rc=$?
[ $rc -eq 0 ] && t_pass "pyverbs traffic: MetaRoCE passes wherever rxe does, or the difference is explained" ||
	t_fail "pyverbs traffic: unexplained differences with rxe (see table)"
echo "# $DEV1: $(dp_counters "$DEV1")"
t_done
