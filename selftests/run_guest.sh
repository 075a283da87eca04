#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest side of `make check`: run every VM selftest program in one boot,
# kselftest style.  Each suite directory has a Makefile whose TEST_PROGS
# lists its programs in order; each program prints TAP 13 and exits 0
# (pass), 4 (skip, with a reason) or anything else (fail).
#
#   run_guest.sh [SUITE_DIR...] (default: every suite listed in SUITES)
#
# Writes $MROCE_RESULTS/summary.txt: "passed N", "failed N", "skipped N",
# counted over the subtests of all programs.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SUITES=(metaroce datapath verbs)
RESULTS=${MROCE_RESULTS:-/tmp}
PER_TEST_TIMEOUT=${MROCE_T_TIMEOUT:-900}

[ $# -gt 0 ] && SUITES=("$@")

pass=0 fail=0 skip=0 n=0
echo "TAP version 13"
for suite in "${SUITES[@]}"; do
	dir=$HERE/$suite
	[ -d "$dir" ] || dir=$suite
	progs=$(make -s -C "$dir" --no-print-directory list)
	for prog in $progs; do
		# MROCE_T_ONLY="a.sh b.sh" runs a subset (for development).
		if [ -n "${MROCE_T_ONLY:-}" ] && ! [[ " $MROCE_T_ONLY " == *" $prog "* ]]; then
			continue
		fi
		n=$((n + 1))
		log=$RESULTS/$(basename "$dir")-${prog%.*}.tap
		echo "# ---- $suite/$prog"
		start=$(date +%s)
		timeout -k 10 "$PER_TEST_TIMEOUT" bash "$dir/$prog" >"$log" 2>&1 < /dev/null
		rc=$?
		sed 's/^/    /' "$log"
		p=$(grep -cE '^ok [0-9]+' "$log" | head -1)
		s=$(grep -cE '^ok [0-9]+.*# SKIP' "$log")
		f=$(grep -cE '^not ok [0-9]+' "$log")
		p=$((p - s))
		if [ "$rc" -eq 4 ] && [ $((p + s + f)) -eq 0 ]; then
			s=1
		elif [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$f" -eq 0 ]; then
			# Died, timed out or forgot to report: a failure of its own.
			f=1
			echo "    # $prog exited $rc without a failing subtest"
		fi
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
		secs=$(( $(date +%s) - start ))
		if [ "$rc" -eq 0 ]; then
			echo "ok $n - $suite/$prog (${secs}s)"
		elif [ "$rc" -eq 4 ]; then
			echo "ok $n - $suite/$prog # SKIP $(grep -m1 -o 'SKIP.*' "$log")"
		else
			echo "not ok $n - $suite/$prog (exit $rc, ${secs}s)"
		fi
		# A test that leaves the module wedged should not take the rest down.
		if ! lsmod >/dev/null; then break 2; fi
		# rdma_rxe holds UDP port 4791 of the initial namespace while it
		# is loaded, which MetaRoCE devices there need: every test starts
		# without it, whatever the one before did.
		if grep -q '^rdma_rxe ' /proc/modules &&
		   ! modprobe -r rdma_rxe 2>/dev/null; then
			echo "# $prog left rdma_rxe in use: $(rdma link show 2>&1 | grep -c rxe) rxe links"
		fi
	done
done
echo "1..$n"
printf 'passed %d\nfailed %d\nskipped %d\n' "$pass" "$fail" "$skip" >"$RESULTS/summary.txt"
echo "# subtests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
