#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Draw the incast section of `make bench` (gnuplot, PNG): the distribution
# (CDF) of the messages' completion times, one curve per stack, every
# message of every round.
#
#   tools/bench/chart_incast.sh FCT.txt OUT.png
#
# FCT.txt: "stack microseconds" per message (incast_guest.sh).
set -eu
fct=$1 out=$2
command -v gnuplot >/dev/null || { echo "chart: gnuplot not installed (tools/deps.sh --bench)" >&2; exit 1; }
[ -s "$fct" ] || { echo "chart: no completion times in $fct" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# One file per stack: sorted times in ms and their cumulative fraction.
plots=
for s in $(awk '{ print $1 }' "$fct" | sort -u); do
	awk -v s="$s" '$1 == s { print $2 / 1000 }' "$fct" | sort -g |
		awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], i / NR }' \
		>"$dir/$s.dat"
	plots="$plots${plots:+, }\"$dir/$s.dat\" using 1:2 with lines lw 2 title \"$s\""
done
gnuplot <<GP
set terminal pngcairo size 1000,520 font "sans,10" noenhanced
set output "$out"
set title "Incast: message completion times (CDF, every message of every round)"
set xlabel "completion time (ms)"
set ylabel "fraction of messages"
set yrange [0:1]
set grid
set key bottom right
plot $plots
GP
echo "chart: $out"
