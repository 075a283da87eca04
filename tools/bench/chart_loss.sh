#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Draw the loss matrix of `make bench` (the "Loss and reordering" table)
# as a line chart (gnuplot, PNG): goodput as a percentage of the same
# stack's clean goodput against the loss rate, one line per stack (rxe,
# MetaRoCE in roce mode, MetaRoCE in metaroce mode) and operation (64 KiB
# WRITE, READ, SEND), with issue 13's targets for metaroce mode marked.
#
#   tools/bench/chart_loss.sh RESULTS.md OUT.png
set -eu
res=$1 out=$2
command -v gnuplot >/dev/null || { echo "chart_loss: gnuplot not installed (tools/deps.sh --bench)" >&2; exit 1; }
dat=$(mktemp)
trap 'rm -f "$dat"' EXIT
# The matrix table: | test | impairment | MB/s x3 | % rxe | % roce mode |
# % metaroce mode | ...; its rows for clean and loss only, one output line
# per loss rate: the label, then rxe WRITE READ SEND, roce mode WRITE READ
# SEND, metaroce mode WRITE READ SEND ("?" where the table has no figure).
awk -F'|' '
/^\| test \| impairment \|/ { intable = 1; next }
intable && !/^\|/ { exit }
intable && $3 ~ /^ *(clean|loss [0-9.]+%) *$/ {
	imp = $3; gsub(/^ +| +$/, "", imp)
	op = ($2 ~ /write/) ? 1 : ($2 ~ /read/) ? 2 : 3
	x = (imp == "clean") ? "0" : substr(imp, 6, length(imp) - 6)
	if (!(x in seen)) { seen[x] = 1; xs[++n] = x }
	for (s = 0; s < 3; s++) {
		v = $(7 + s); gsub(/ /, "", v)
		p[x, s * 3 + op] = (v ~ /^[0-9.]+$/) ? v : "?"
	}
}
END {
	for (i = 1; i <= n; i++) {
		line = (xs[i] == "0") ? "clean" : xs[i] "%"
		for (c = 1; c <= 9; c++)
			line = line " " (((xs[i], c) in p) ? p[xs[i], c] : "?")
		print line
	}
}' "$res" >"$dat"
[ -s "$dat" ] || { echo "chart_loss: no loss matrix in $res" >&2; exit 1; }
# The targets sit at 1% and 5% loss when the table has those rates.
t1=$(awk '$1 == "1%" { print NR - 1 }' "$dat")
t5=$(awk '$1 == "5%" { print NR - 1 }' "$dat")
marks=
[ -n "$t1" ] && marks+="set label \"target 70%\" at $t1, 70 point pt 7 ps 1.5 lc rgb \"red\" offset 1, 0"$'\n'
[ -n "$t5" ] && marks+="set label \"target 40%\" at $t5, 40 point pt 7 ps 1.5 lc rgb \"red\" offset 1, 0"$'\n'
gnuplot <<GP
set terminal pngcairo size 1000,560 font "sans,10" noenhanced
set output "$out"
set title "Goodput under loss, as % of the same stack's clean goodput (64 KiB, netem on both ends)"
set datafile missing "?"
set xlabel "loss rate on each end of the veth (RoCE packets)"
set ylabel "% of clean goodput"
set yrange [0:*]
set offsets 0.2, 0.2, 0, 0
set grid ytics
set key outside right top
names = "rxe/WRITE rxe/READ rxe/SEND roce-mode/WRITE roce-mode/READ roce-mode/SEND metaroce-mode/WRITE metaroce-mode/READ metaroce-mode/SEND"
colors = "#a0a0a0 #a0a0a0 #a0a0a0 #e08020 #e08020 #e08020 #3070b0 #3070b0 #3070b0"
$marks
plot for [i=1:9] "$dat" using 0:(column(i + 1)):xtic(1) with linespoints \
	lw 2 pt 5 + (i - 1) % 3 dt 1 + (i - 1) % 3 lc rgb (word(colors, i)) \
	title word(names, i)
GP
echo "chart_loss: $out"
