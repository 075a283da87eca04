#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Guest side of a run through the kernel's own kselftest runner: run an
# installed tree (make -C selftests install INSTALL_PATH=DIR) with its
# run_kselftest.sh and count the results the way selftests/run_guest.sh
# does (TAP subtests of every program; a program that fails without a
# failing subtest counts one failure, one that skips without subtests one
# skip).
#
#   tools/vm/run.sh --name ksft -- selftests/run_ksft_guest.sh DIR [run_kselftest.sh options]
#
# Writes $MROCE_RESULTS/kselftest.tap (the runner's output) and
# $MROCE_RESULTS/summary.txt ("passed N", "failed N", "skipped N").
set -u
RESULTS=${MROCE_RESULTS:-/tmp}
[ $# -ge 1 ] && [ -x "$1/run_kselftest.sh" ] ||
	{ echo "usage: run_ksft_guest.sh INSTALL_PATH [run_kselftest.sh options]" >&2; exit 2; }
dir=$(cd "$1" && pwd)
shift

"$dir/run_kselftest.sh" "$@" </dev/null 2>&1 | tee "$RESULTS/kselftest.tap"

# run_kselftest.sh prefixes each program's output with "# " and ends it with
# "ok N selftests: DIR: PROG", "ok ... # SKIP" or "not ok ...".
awk '
/^# selftests: / { p = s = f = 0; next }
/^# not ok [0-9]+/ { f++; next }
/^# ok [0-9]+.*# SKIP/ { s++; next }
/^# ok [0-9]+/ { p++; next }
/^(not )?ok [0-9]+ selftests: / {
	if ($1 == "not" && f == 0)
		f = 1
	else if ($0 ~ /# SKIP/ && p + s + f == 0)
		s = 1
	P += p; S += s; F += f; p = s = f = 0
	progs++
}
END { printf "passed %d\nfailed %d\nskipped %d\nprograms %d\n", P, F, S, progs }
' "$RESULTS/kselftest.tap" >"$RESULTS/summary.txt"
sed 's/^/# /' "$RESULTS/summary.txt"
grep -q '^programs [1-9]' "$RESULTS/summary.txt" && grep -q '^failed 0$' "$RESULTS/summary.txt"
