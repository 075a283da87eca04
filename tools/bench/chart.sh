#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Draw the table of `make bench` as a bar chart (gnuplot, PNG): for each
# row, how fast MetaRoCE is relative to rxe in the same VM run: the
# bandwidth ratio, and rxe's latency over MetaRoCE's for latency rows, so
# that above 1 always means MetaRoCE is faster.
#
#   tools/bench/chart.sh RESULTS.md OUT.png
set -eu
res=$1 out=$2
command -v gnuplot >/dev/null || { echo "chart: gnuplot not installed (tools/deps.sh --bench)" >&2; exit 1; }
dat=$(mktemp)
trap 'rm -f "$dat"' EXIT
# The first table's rows: | test | rxe | MetaRoCE | ratio | ...; its
# header and rows without figures are skipped.
awk -F'|' '/^\|/ { intable = 1 } intable && !/^\|/ { exit }
intable && NF > 6 && $5 ~ /^ *[0-9.]+ *$/ {
	name = $2; gsub(/^ +| +$/, "", name)
	r = $5 + 0
	if (name ~ /_lat /) { if (r > 0) r = 1 / r }
	gsub(/ /, "_", name)
	printf "%s %.3f\n", name, r
}' "$res" >"$dat"
[ -s "$dat" ] || { echo "chart: no figures in $res" >&2; exit 1; }
gnuplot <<GP
set terminal pngcairo size 1000,520 font "sans,10" noenhanced
set output "$out"
set title "MetaRoCE relative to rdma_rxe (same VM, same veth; above 1: MetaRoCE faster)"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.7
set yrange [0:*]
set ylabel "bandwidth ratio; latency: rxe / MetaRoCE"
set xtics rotate by -30 left
set grid ytics
set key off
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb "red"
plot "$dat" using 2:xtic(1) lc rgb "#3070b0"
GP
echo "chart: $out"
