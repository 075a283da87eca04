#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# coverage.sh OBJDIR MIN SRC...: print gcov line coverage of each core
# source and the total, and fail if the total is below MIN percent.
set -eu

objdir=$1
min=$2
shift 2
gcov=${GCOV:-gcov}

cd "$objdir"
total=0
hit=0
printf '%-28s %8s %8s %8s\n' file lines covered percent
for src in "$@"; do
	# gcov -n: report only, write no .gcov files.  Its summary for the
	# source itself is the "File '<src>'" block; inline functions of
	# headers appear in their own blocks and are not counted here.
	out=$("$gcov" -n -o "$objdir" "$src" 2>/dev/null)
	line=$(printf '%s\n' "$out" |
		awk -v f="File '$src'" '$0 == f { getline; print; exit }')
	pct=$(printf '%s\n' "$line" | sed -n 's/Lines executed:\([0-9.]*\)% of .*/\1/p')
	n=$(printf '%s\n' "$line" | sed -n 's/.* of \([0-9]*\)$/\1/p')
	if [ -z "$n" ]; then
		pct=0
		n=$(grep -c . "$src")
	fi
	h=$(awk -v p="$pct" -v n="$n" 'BEGIN { printf "%d", p * n / 100 + 0.5 }')
	total=$((total + n))
	hit=$((hit + h))
	printf '%-28s %8d %8d %7.2f%%\n' "$(basename "$src")" "$n" "$h" "$pct"
done
pct=$(awk -v h=$hit -v t=$total 'BEGIN { printf "%.2f", t ? 100 * h / t : 0 }')
printf '%-28s %8d %8d %7.2f%%\n' TOTAL "$total" "$hit" "$pct"
if awk -v p="$pct" -v m="$min" 'BEGIN { exit !(p < m) }'; then
	echo "coverage: total ${pct}% is below the required ${min}%" >&2
	exit 1
fi
echo "coverage: total ${pct}% (required ${min}%)"
