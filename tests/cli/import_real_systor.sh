#!/bin/sh
# SPDX-License-Identifier: MIT
# import_real_systor.sh - the two SYSTOR'17 samples (gzip, not time-sorted):
# counts, read share, bytes, first/last record after sorting and the number
# of reordered records, all computed with zcat/sort/awk.
. "$top_srcdir/tests/cli/lib.sh"
need_shared
for name in systor17-traces-sample systor17-additional-sample; do
	F="$SHARED_DIR/realdata/caffeine-snia/$name.csv.gz"
	[ -r "$F" ] || skip "no $F"
	zcat "$F" | tail -n +2 >"$TMP/src.csv"
	expect_status 0 "$IOSTORM" import "$F" -o "$TMP/t.ist"
	expect_grep '\(format systor\)' "$TMP/out"
	# records arriving earlier than one before them (timestamps have a
	# fixed width: compare them as strings, exactly)
	want_reord=$(awk -F, '{ t = $1 "" } NR > 1 && t < m { n++ } t > m || NR == 1 { m = t } END { print n + 0 }' "$TMP/src.csv")
	expect_grep "^reordered $want_reord records" "$TMP/out"
	export_records "$TMP/t.ist" "$TMP/t.csv"
	expect_eq "$(($(wc -l <"$TMP/t.csv") - 1))" "$(wc -l <"$TMP/src.csv")" "$name: records"
	expect_eq "$(awk -F, '$3 == "read"' "$TMP/t.csv" | wc -l)" "$(awk -F, '$3 == "R"' "$TMP/src.csv" | wc -l)" "$name: reads"
	expect_eq "$(awk -F, 'NR > 1 { s += $5 } END { printf "%.0f", s }' "$TMP/t.csv")" \
		"$(awk -F, '{ s += $6 } END { printf "%.0f", s }' "$TMP/src.csv")" "$name: bytes"
	sort -s -t, -k1,1 "$TMP/src.csv" >"$TMP/sorted.csv"
	first=$(head -1 "$TMP/sorted.csv")
	last=$(tail -1 "$TMP/sorted.csv")
	expect_eq "$(sed -n 2p "$TMP/t.csv" | cut -d, -f1,4,5)" "0,$(echo "$first" | cut -d, -f5,6)" "$name: first record"
	# last t = last - first in ns, computed on the split seconds.nanoseconds
	want_t=$(echo "$first $last" | awk '{ split($1, a, "[.,]"); split($2, b, "[.,]"); printf "%.0f", (b[1] - a[1]) * 1e9 + (b[2] - a[2]) }')
	expect_eq "$(tail -1 "$TMP/t.csv" | cut -d, -f1,4,5)" "$want_t,$(echo "$last" | cut -d, -f5,6)" "$name: last record"
	# times never go back
	expect_eq "$(awk -F, 'NR > 2 && $1 < p { n++ } { p = $1 } END { print n + 0 }' "$TMP/t.csv")" 0 "$name: sorted"
	# the original start is kept in the metadata (not checked by format here)
done
done_ok
