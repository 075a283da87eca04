#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# `make bench`: install what is needed, build, boot the test VM once and
# run tools/bench/bench_guest.sh (perftest over MetaRoCE and rdma_rxe side
# by side); the table lands in bench/results.md.
#   BENCH_RUNS=N   rounds (default 5), each figure is the median
#   BENCH_ONLY=RE  only the rows whose name matches RE (development: the
#                  table stays in build/vm/bench, bench/results.md is kept);
#                  the loss matrix's rows are "matrix OP 64 KiB, IMPAIRMENT",
#                  so BENCH_ONLY=^matrix runs the matrix alone
#   BENCH_MATRIX_RUNS=N  rounds of the loss matrix (default 2)
#   BENCH_MATRIX=0 leaves the loss matrix out
#   BENCH_MATRIX_STACKS="metaroce"  the matrix on these stacks only
#                  (development; default "rxe metaroce-roce metaroce")
#   BENCH_ATTRS="ack_delay_us=200 ..."  the matrix's MetaRoCE devices get
#                  these metaroce_* sysfs values (development)
#   BENCH_INCAST=0  leaves the incast section out (BENCH_ONLY=^incast runs
#                  it alone); BENCH_INCAST_RUNS=N rounds (default 3),
#                  BENCH_INCAST_N=N senders (default 8),
#                  BENCH_INCAST_STACKS="rxe metaroce-lossy" (development),
#                  BENCH_INCAST_ATTRS="cc_target_delay_us=1000 ..." the
#                  metaroce-lossy devices' metaroce_* values (development)
#                  BENCH_INCAST_DCQCN_ATTRS="..." the metaroce_* values of
#                  the two DCQCN stacks' devices (default: DCQCN's time
#                  constants for the testbed's millisecond scale, see
#                  incast_guest.sh; "" runs them with mlx5's defaults)
#   BENCH_MULTIPATH=0  leaves the multipath section out (BENCH_ONLY=^multipath
#                  runs it alone); BENCH_MP_RUNS=N rounds (default 3),
#                  BENCH_MP_STACKS="rxe spray", BENCH_MP_VARIANTS="healthy"
#                  (development)
#   MROCE_T_BENCH_PERF=1  profile each run with perf (development)
#   BENCH_APPEND="ARGS"  more guest kernel command line, e.g. tsc=reliable
#                  (the guest's clock source: development)
#   (with BENCH_ONLY, BENCH_ATTRS, BENCH_INCAST_STACKS, BENCH_INCAST_ATTRS,
#   BENCH_INCAST_DCQCN_ATTRS,
#   BENCH_MP_STACKS, BENCH_MP_VARIANTS, BENCH_APPEND or
#   MROCE_T_BENCH_PERF, bench/results.md is kept: the
#   table stays in build/vm/bench)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
tools/deps.sh --bench
make --no-print-directory modules provider
make --no-print-directory -C selftests/datapath
# Two VMs, or a build, on these few cores halve each other's figures.
load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
	echo "bench: WARNING: load average $load on $(nproc) CPUs: the host is busy," \
		"MB/s and usec figures will be low (context switches are not affected)" >&2
fi
export MROCE_T_BENCH_RUNS=${BENCH_RUNS:-5}
export MROCE_T_BENCH_LOAD=$load
export MROCE_T_BENCH_ONLY=${BENCH_ONLY:-}
export MROCE_T_BENCH_MATRIX_RUNS=${BENCH_MATRIX_RUNS:-2}
export MROCE_T_BENCH_MATRIX=${BENCH_MATRIX:-1}
export MROCE_T_BENCH_MATRIX_STACKS=${BENCH_MATRIX_STACKS:-rxe metaroce-roce metaroce}
export MROCE_T_BENCH_ATTRS=${BENCH_ATTRS:-}
export MROCE_T_BENCH_INCAST=${BENCH_INCAST:-1}
export MROCE_T_BENCH_INCAST_RUNS=${BENCH_INCAST_RUNS:-3}
export MROCE_T_BENCH_INCAST_N=${BENCH_INCAST_N:-8}
export MROCE_T_BENCH_INCAST_STACKS=${BENCH_INCAST_STACKS:-rxe metaroce-roce metaroce metaroce-lossy}
export MROCE_T_BENCH_INCAST_ATTRS=${BENCH_INCAST_ATTRS:-}
[ -z "${BENCH_INCAST_DCQCN_ATTRS+x}" ] ||
	export MROCE_T_BENCH_INCAST_DCQCN_ATTRS=$BENCH_INCAST_DCQCN_ATTRS
export MROCE_T_BENCH_MULTIPATH=${BENCH_MULTIPATH:-1}
export MROCE_T_BENCH_MP_RUNS=${BENCH_MP_RUNS:-3}
export MROCE_T_BENCH_MP_STACKS=${BENCH_MP_STACKS:-rxe flow flowlet spray spray64}
export MROCE_T_BENCH_MP_VARIANTS=${BENCH_MP_VARIANTS:-healthy degraded collision}
rc=0
tools/vm/run.sh --name bench --timeout "${BENCH_TIMEOUT:-3600}" \
	${BENCH_APPEND:+--append "$BENCH_APPEND"} -- \
	tools/bench/bench_guest.sh || rc=$?
res=build/vm/bench/bench-results.md
perf=${MROCE_T_BENCH_PERF:-0}
fct=build/vm/bench/bench-incast-fct.txt
if [ -s "$res" ] && [ -n "${BENCH_ONLY:-}${BENCH_ATTRS:-}${BENCH_INCAST_STACKS:-}${BENCH_INCAST_ATTRS:-}${BENCH_INCAST_DCQCN_ATTRS+x}${BENCH_MP_STACKS:-}${BENCH_MP_VARIANTS:-}${BENCH_APPEND:-}${perf#0}" ]; then
	if grep -q '^## Loss and reordering' "$res" &&
		! tools/bench/chart_loss.sh "$res" build/vm/bench/results-loss.png; then
		echo "bench: no chart of this partial matrix"
	fi
	if grep -q '^## Incast' "$res" &&
		! tools/bench/chart_incast.sh "$fct" build/vm/bench/results-incast.png; then
		echo "bench: no chart of this partial incast"
	fi
	if grep -q '^## Multipath' "$res" &&
		! tools/bench/chart_multipath.sh "$res" build/vm/bench/results-multipath.png; then
		echo "bench: no chart of this partial multipath section"
	fi
	echo "bench: partial table in $res (bench/results.md left as it was)"
elif [ -s "$res" ]; then
	mkdir -p bench
	cp "$res" bench/results.md
	if tools/bench/chart.sh bench/results.md bench/results.png; then
		printf '\nChart of the ratios: [results.png](results.png).\n' \
			>>bench/results.md
	fi
	if grep -q '^## Loss and reordering' bench/results.md &&
		tools/bench/chart_loss.sh bench/results.md bench/results-loss.png; then
		printf '\nChart of the loss matrix: [results-loss.png](results-loss.png).\n' \
			>>bench/results.md
	fi
	if grep -q '^## Incast' bench/results.md &&
		tools/bench/chart_incast.sh "$fct" bench/results-incast.png; then
		printf '\nIncast completion times: [results-incast.png](results-incast.png).\n' \
			>>bench/results.md
	fi
	if grep -q '^## Multipath' bench/results.md &&
		tools/bench/chart_multipath.sh bench/results.md bench/results-multipath.png; then
		printf '\nMultipath goodput and spine shares: [results-multipath.png](results-multipath.png).\n' \
			>>bench/results.md
	fi
	echo "bench: results in bench/results.md (logs in build/vm/bench)"
fi
exit $rc
