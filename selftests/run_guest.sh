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
#
# MROCE_T_DEADLINE (epoch seconds; the debug lane sets it under CI's time
# limit): a program starts only if its estimate (MROCE_T_EST, "prog=secs
# ...", else MROCE_T_TIMEOUT) fits before the deadline, and runs at most
# until it.  A program not started, or stopped by the deadline with no
# failing subtest, is a skip that says so, not a failure.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SUITES=(metaroce datapath verbs)
RESULTS=${MROCE_RESULTS:-/tmp}
PER_TEST_TIMEOUT=${MROCE_T_TIMEOUT:-900}
DEADLINE=${MROCE_T_DEADLINE:-}

# The seconds MROCE_T_EST allows PROG, or the per-program limit.
estimate() {
	local kv
	for kv in ${MROCE_T_EST:-}; do
		[ "${kv%%=*}" = "$1" ] && { echo "${kv#*=}"; return; }
	done
	echo "$PER_TEST_TIMEOUT"
}

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
		limit=$PER_TEST_TIMEOUT cut=
		if [ -n "$DEADLINE" ]; then
			left=$((DEADLINE - start)) need=$(estimate "$prog")
			if [ "$left" -lt "$need" ]; then
				skip=$((skip + 1))
				echo "ok $n - $suite/$prog # SKIP not started: ${left}s left before the deadline, it needs about ${need}s"
				continue
			fi
			[ "$left" -lt "$limit" ] && limit=$left cut=1
		fi
		timeout -k 10 "$limit" bash "$dir/$prog" >"$log" 2>&1 < /dev/null
		rc=$?
		sed 's/^/    /' "$log"
		p=$(grep -cE '^ok [0-9]+' "$log" | head -1)
		s=$(grep -cE '^ok [0-9]+.*# SKIP' "$log")
		f=$(grep -cE '^not ok [0-9]+' "$log")
		p=$((p - s))
		if [ -n "$cut" ] && { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && [ "$f" -eq 0 ]; then
			# Stopped by the deadline, not by its own limit.
			skip=$((skip + s + 1)) pass=$((pass + p))
			echo "ok $n - $suite/$prog # SKIP stopped at the deadline after $(( $(date +%s) - start ))s (estimate ${need}s)"
			continue
		elif [ "$rc" -eq 4 ] && [ $((p + s + f)) -eq 0 ]; then
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
