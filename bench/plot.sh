#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# plot.sh RESULTS.CSV OUT.PNG [TITLE]: the figure of a benchmark run (gnuplot).
#  top:    every ratio with a target (and the unlock paths), median and min-max
#  bottom: time until the last waiter wakes against N (thread exit; SIGKILL of a
#          process); cost per thread at scale
set -euo pipefail
csv=${1:?usage: plot.sh RESULTS.CSV OUT.PNG [TITLE]} png=${2:?usage: plot.sh RESULTS.CSV OUT.PNG [TITLE]}
title=${3:-robust_list2 benchmark}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Ratios: label, median, min, max, target (0 = none).
awk -F, 'NR > 1 && ($13 != "" || $1 == "unlock" || $2 ~ /noise floor/) && $14 != "capped" &&
	$1 != "recovery" {
	l = $2
	sub(/: [^:]* vs [^:]* \(noise floor\)/, " A/A noise", l)
	sub(/ vs .*/, "", l)
	sub(/^per entry: /, "walk/entry ", l)
	sub(/^per-thread cost 10k/, "linearity", l)
	sub(/: loaded\+1 registered thread/, " busy", l)
	sub(/: loaded/, " loaded", l)
	sub(/pthread_create\+join/, "thread", l)
	if ($1 ~ /^scale/) l = $1 ": " l
	if ($3 != 0 && $1 !~ /^scale/) l = l " N=" $3
	gsub(/"/, "", l)
	printf "\"%s\" %s %s %s %s\n", l, $7, $8, $9, ($13 == "" ? 0 : $13)
}' "$csv" >"$tmp/ratios.dat"

# Last waiter: N legacy 1slot 8slots (us); "?" where missing.
awk -F, 'NR > 1 && $2 ~ /^last waiter wakes/ {
	n[$3] = 1
	if ($2 ~ /1 slot/) { one[$3] = $5; if ($14 != "capped") leg[$3] = $6 }
	if ($2 ~ /8 slots/) eight[$3] = $5
} END {
	for (k in n) printf "%s %s %s %s\n", k, (k in leg ? leg[k] : "?"),
		(k in one ? one[k] : "?"), (k in eight ? eight[k] : "?")
}' "$csv" | sort -n >"$tmp/wake.dat"

# Recovery: N legacy 1slot 8slots watchdog (us); "?" where missing.
awk -F, 'NR > 1 && $1 == "recovery" {
	n[$3] = 1
	if ($2 ~ /1 slot vs legacy/) { one[$3] = $5; leg[$3] = $6 }
	if ($2 ~ /8 slots vs legacy/) eight[$3] = $5
	if ($2 ~ /^SIGKILL to last waiter: 1 slot vs pidfd watchdog/) wd[$3] = $6
} END {
	for (k in n) printf "%s %s %s %s %s\n", k, (k in leg ? leg[k] : "?"),
		(k in one ? one[k] : "?"), (k in eight ? eight[k] : "?"), (k in wd ? wd[k] : "?")
}' "$csv" | sort -n >"$tmp/recovery.dat"

# Scale: threads, ours, plain, per vCPU count.
for c in 1 2; do
	awk -F, -v c="scale $c vCPU" 'NR > 1 && $1 == c && $2 ~ /^thread with 8 slots/ {
		print $3, $5, $6 }' "$csv" | sort -n >"$tmp/scale$c.dat"
done

# A full-width plot on top, two below: placed by origin and size.
{
	cat <<-EOT
	set terminal pngcairo noenhanced size 1400,1000 font "DejaVu Sans,10"
	set output "$png"
	set datafile missing "?"
	set multiplot title "${title//\"/}"
	set size 1,0.56
	set origin 0,0.42
	set title "ratio ours/anchor, same boot: median and min-max over rounds (lower is better)"
	set ylabel "ratio"
	set yrange [0:*]
	set xtics rotate by 35 right font ",9"
	set grid ytics
	set key top left
	set style fill solid 0.5
	set boxwidth 0.6
	plot "$tmp/ratios.dat" using 0:2:xtic(1) with boxes lc rgb "#4a7ebb" title "median", \
	     "" using 0:2:3:4 with yerrorbars lc rgb "black" pt 0 title "min-max", \
	     "" using 0:(\$5 > 0 ? \$5 : 1/0) with points pt 2 ps 1.5 lc rgb "red" title "target", \
	     1 with lines dt 2 lc rgb "gray" notitle
	unset xtics
	set xtics norotate font ",9"
	set size 0.34,0.42
	set origin 0,0
	set title "exit: request to last waiter woken\n(4 waiters, last on the last entry)"
	set logscale xy
	set xlabel "locks held N"
	set ylabel "us"
	set yrange [*:*]
	set key top left
	plot "$tmp/wake.dat" using 1:2 with linespoints pt 7 title "legacy list (stops at 2048)", \
	     "" using 1:3 with linespoints pt 5 title "robust_list2, 1 slot", \
	     "" using 1:4 with linespoints pt 9 title "robust_list2, 8 slots"
	set origin 0.33,0
	set title "recovery: SIGKILL of the holder to last waiter\nback with EOWNERDEAD (one waiter per lock)"
	plot "$tmp/recovery.dat" using 1:2 with linespoints pt 7 title "legacy list", \
	     "" using 1:3 with linespoints pt 5 title "robust_list2, 1 slot", \
	     "" using 1:4 with linespoints pt 9 title "robust_list2, 8 slots", \
	     "" using 1:5 with linespoints pt 13 title "pidfd watchdog"
	unset logscale
	set origin 0.66,0
	set title "scale: all threads alive, each registers 8 slots, then all exit"
	set xlabel "threads"
	set ylabel "us per thread (create+register+exit+join)"
	set yrange [0:*]
	set xrange [0:*]
	plot "$tmp/scale2.dat" using 1:2 with linespoints pt 5 lc rgb "#c0392b" title "8 slots, 2 vCPU", \
	     "" using 1:3 with linespoints pt 4 dt 2 lc rgb "#c0392b" title "plain, 2 vCPU", \
	     "$tmp/scale1.dat" using 1:2 with linespoints pt 7 lc rgb "#2471a3" title "8 slots, 1 vCPU", \
	     "" using 1:3 with linespoints pt 6 dt 2 lc rgb "#2471a3" title "plain, 1 vCPU"
	unset multiplot
	EOT
} >"$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
