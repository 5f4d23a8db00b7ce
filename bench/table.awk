#!/usr/bin/awk -f
# SPDX-License-Identifier: GPL-2.0
# results.csv of rl2_bench -> a table: -v fmt=text (default) or fmt=md, -v title=...
# -v summary=1: the rows with a target and a few that explain them (noise floors,
# every register row, unlock, last waiter at N >= 2048, scale), no notes (README).
# Rows keep the order measured; notes follow the table.
BEGIN { FS = ","; if (fmt == "") fmt = "text" }
NR == 1 { next }
summary && !($13 != "" || $2 ~ /noise floor/ || $1 == "register" || $1 == "unlock" ||
	     ($2 ~ /last waiter/ && $3 >= 2048) ||
	     ($1 ~ /^scale/ && ($3 == 10000 || $2 ~ /^thread with/))) { next }
{
	# the note (last field) may not contain commas, but be safe: rejoin
	note = $15
	for (i = 16; i <= NF; i++) note = note "," $i
	n = ++rows
	sec[n] = $1; item[n] = $2; N[n] = ($3 == 0 ? "" : $3); unit[n] = $4
	ours[n] = fmtnum($5); anc[n] = ($14 == "capped" ? "-" : fmtnum($6))
	if ($14 == "capped") { ratio[n] = "-"; spread[n] = "-" }
	else { ratio[n] = sprintf("%.2f", $7); spread[n] = sprintf("%.2f-%.2f", $8, $9) }
	target[n] = ($13 == "" ? "" : "<=" $13); verdict[n] = $14; notes[n] = note
	nr[$12]++
}
function fmtnum(v) { return v >= 100 || v <= -100 ? sprintf("%.0f", v) : sprintf("%.1f", v) }
END {
	for (k in nr) if (nr[k] > best) { best = nr[k]; maxr = k }
	if (title != "") print (fmt == "md" ? "**" title "**\n" : title)
	line = "Each ratio is ours / anchor from one boot, median of " maxr \
	       " rounds (bystander and scale: see results.csv), min-max over rounds; absolute times under TCG are for scale only."
	print line; print ""
	if (fmt == "md") {
		print "| section | measurement | N | ours | anchor | unit | ratio | min-max | target | verdict |"
		print "|---|---|--:|--:|--:|---|--:|--:|--:|---|"
		for (i = 1; i <= rows; i++)
			printf "| %s | %s | %s | %s | %s | %s | **%s** | %s | %s | %s |\n", sec[i], item[i],
				N[i], ours[i], anc[i], unit[i], ratio[i], spread[i], target[i], verdict[i]
	} else {
		printf "%-14s %-56s %6s %9s %9s %-10s %6s %-11s %-7s %s\n", "section", "measurement",
			"N", "ours", "anchor", "unit", "ratio", "min-max", "target", "verdict"
		for (i = 1; i <= rows; i++)
			printf "%-14s %-56s %6s %9s %9s %-10s %6s %-11s %-7s %s\n", sec[i], item[i], N[i],
				ours[i], anc[i], unit[i], ratio[i], spread[i], target[i], verdict[i]
	}
	if (summary) exit
	print ""
	print (fmt == "md" ? "Notes:\n" : "notes:")
	for (i = 1; i <= rows; i++)
		if (notes[i] != "")
			printf "%s%s / %s%s: %s\n", (fmt == "md" ? "- " : "  "), sec[i], item[i],
				(N[i] == "" ? "" : " / N=" N[i]), notes[i]
}
