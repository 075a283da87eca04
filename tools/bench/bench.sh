#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `make bench`: install what is needed, build, boot the test VM once and
# run tools/bench/bench_guest.sh (perftest over MetaRoCE and rdma_rxe side
# by side); the table lands in bench/results.md.
#   BENCH_RUNS=N   rounds (default 5), each figure is the median
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
tools/deps.sh
make --no-print-directory modules provider
make --no-print-directory -C selftests/datapath
export MROCE_T_BENCH_RUNS=${BENCH_RUNS:-5}
rc=0
tools/vm/run.sh --name bench --timeout "${BENCH_TIMEOUT:-3600}" -- \
	tools/bench/bench_guest.sh || rc=$?
res=build/vm/bench/bench-results.md
if [ -s "$res" ]; then
	mkdir -p bench
	cp "$res" bench/results.md
	echo "bench: results in bench/results.md (logs in build/vm/bench)"
fi
exit $rc
