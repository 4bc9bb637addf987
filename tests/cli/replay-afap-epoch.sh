#!/bin/sh
# SPDX-License-Identifier: MIT
# replay-afap-epoch.sh - as fast as possible, no I/O is issued before the
# run's epoch (the moment elapsed time, IOPS and the intervals count from):
# the workers started at once while the epoch lay 5 ms ahead, so that a
# short replay on the null back-end finished before it and reported
# "elapsed 0 ns, 16075 I/Os, 0 IOPS" in most runs, and a longer one on a
# device counted up to 5 ms of its I/O outside its elapsed time.
. "$top_srcdir/tests/cli/lib.sh"

T="$top_srcdir/traces/tpcc.ist"
# several runs: the race was lost in about two of three
for i in 1 2 3 4 5 6; do
	expect_status 0 "$IOSTORM" replay "$T" --null --timing afap --quiet \
		--interval 1ms --json "$TMP/r.json" --csv-intervals "$TMP/r.csv"
	el=$(sed -n 's/^ *"elapsed_ns": *\([0-9]*\),*$/\1/p' "$TMP/r.json" | head -1)
	[ -n "$el" ] || fail "run $i: no run.elapsed_ns in the JSON"
	[ "$el" -gt 0 ] || fail "run $i: elapsed_ns is 0: every I/O completed before the epoch"
	expect_grep '^    "ios": 16075,$' "$TMP/r.json"
	if grep -Eq '^    "iops": 0(\.0*)?,$' "$TMP/r.json"; then fail "run $i: iops 0"; fi
	# every completion falls in an interval (from the epoch on)
	n=$(awk -F, 'NR > 1 { n += $3 } END { print n + 0 }' "$TMP/r.csv")
	expect_eq "$n" 16075 "run $i: I/Os in the intervals"
done
# the text summary says the same
expect_status 0 "$IOSTORM" replay "$T" --null --timing afap
expect_grep '^elapsed [0-9.]+ [mu]?s, 16075 I/Os, [1-9][0-9]* IOPS' "$TMP/out"
done_ok
