#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Draw the multipath section of `make bench` (gnuplot, PNG): left, each
# stack's goodput (median over the rounds) per variant; right, how each
# stack's bytes spread over the spines on the healthy fabric (the shares
# of its median round).
#
#   tools/bench/chart_multipath.sh RESULTS.md OUT.png
#
# RESULTS.md: the results with the section's raw lines
# ("multipath|variant|stack|round|MB/s|shares|...", multipath_guest.sh).
set -eu
res=$1 out=$2
command -v gnuplot >/dev/null || { echo "chart: gnuplot not installed (tools/deps.sh --bench)" >&2; exit 1; }
grep -q '^multipath|' "$res" || { echo "chart: no multipath figures in $res" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# goodput.dat: a row per variant, a column per stack ("-": not run)
awk -F"|" '$1 == "multipath" && NF >= 10 && $5 ~ /^[0-9.]+$/ {
	k = $2 SUBSEP $3
	v[k] = (k in v) ? v[k] " " $5 : $5
	if (!($2 in seenv)) { seenv[$2] = 1; vs[++nv] = $2 }
	if (!($3 in seens)) { seens[$3] = 1; ss[++ns] = $3 }
}
function med(s,    n, x, i, j, t) {
	n = split(s, x, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && x[j - 1] + 0 > x[j] + 0; j--) {
			t = x[j]; x[j] = x[j - 1]; x[j - 1] = t
		}
	return (n % 2) ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
}
END {
	printf "variant"
	for (j = 1; j <= ns; j++) printf " %s", ss[j]
	print ""
	for (i = 1; i <= nv; i++) {
		printf "%s", vs[i]
		for (j = 1; j <= ns; j++) {
			k = vs[i] SUBSEP ss[j]
			printf " %s", (k in v) ? med(v[k]) : "-"
		}
		print ""
	}
}' "$res" >"$dir/goodput.dat"
# shares.dat: a row per stack, its healthy median round's spine shares
awk -F"|" '$1 == "multipath" && $2 == "healthy" && NF >= 10 && $5 ~ /^[0-9.]+$/ {
	print $3, $5, $6
}' "$res" | sort -k1,1 -k2,2g | awk '{
	n[$1]++; r[$1, n[$1]] = $3
	if (!($1 in seen)) { seen[$1] = 1; s[++ns] = $1 }
} END {
	print "stack s1 s2 s3 s4"
	for (i = 1; i <= ns; i++) {
		x = r[s[i], int((n[s[i]] + 1) / 2)]
		gsub(",", " ", x)
		print s[i], x
	}
}' >"$dir/shares.dat"
nst=$(head -n 1 "$dir/goodput.dat" | wc -w)
gnuplot <<GP
set terminal pngcairo size 1200,500 font "sans,10" noenhanced
set output "$out"
set datafile missing "-"
set multiplot layout 1,2 title "Multipath: two host pairs across four spines"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set grid ytics
set key top right
set title "goodput, both pairs (median MB/s)"
set ylabel "MB/s"
set yrange [0:*]
plot for [c=2:$nst] "$dir/goodput.dat" using c:xtic(1) title columnheader(c)
set style histogram rowstacked
set title "healthy fabric: share of the bytes per spine (%)"
set ylabel "%"
set yrange [0:100]
set key outside right
plot for [c=2:5] "$dir/shares.dat" using c:xtic(1) title columnheader(c)
unset multiplot
GP
echo "chart: $out"
