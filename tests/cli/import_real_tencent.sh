#!/bin/sh
# SPDX-License-Identifier: MIT
# import_real_tencent.sh - the Tencent CBS sample (bzip2, 2038 volumes, not
# strictly sorted), also through a small sort window that spills runs to
# disk: the result must not change.
. "$top_srcdir/tests/cli/lib.sh"
need_shared
F="$SHARED_DIR/realdata/caffeine-snia/tencent-cbs-cloud_storage-sample.bz2"
[ -r "$F" ] || skip "no $F"
bzcat "$F" >"$TMP/src.csv"

expect_status 0 "$IOSTORM" import "$F" -o "$TMP/t.ist"
expect_grep '\(format tencent\)' "$TMP/out"
want_reord=$(awk -F, 'NR > 1 && $1 < m { n++ } NR == 1 || $1 > m { m = $1 } END { print n + 0 }' "$TMP/src.csv")
expect_grep "^reordered $want_reord records \(sort runs spilled: 0\)" "$TMP/out"
export_records "$TMP/t.ist" "$TMP/t.csv"
expect_status 0 "$IOSTORM" export -q -f fio "$TMP/t.ist" -o "$TMP/t.fio"

expect_eq "$(($(wc -l <"$TMP/t.csv") - 1))" "$(wc -l <"$TMP/src.csv")" "records"
expect_eq "$(awk -F, '$3 == "read"' "$TMP/t.csv" | wc -l)" "$(awk -F, '$4 == 0' "$TMP/src.csv" | wc -l)" "reads"
expect_eq "$(awk -F, 'NR > 1 { s += $5 } END { printf "%.0f", s }' "$TMP/t.csv")" \
	"$(awk -F, '{ s += $3 * 512 } END { printf "%.0f", s }' "$TMP/src.csv")" "bytes"
expect_eq "$(awk '$3 == "add"' "$TMP/t.fio" | wc -l)" "$(cut -d, -f5 "$TMP/src.csv" | sort -u | wc -l)" "volumes"
# first and last record of a stable sort by time
sort -s -t, -k1,1n "$TMP/src.csv" >"$TMP/sorted.csv"
f=$(head -1 "$TMP/sorted.csv")
l=$(tail -1 "$TMP/sorted.csv")
expect_eq "$(sed -n 2p "$TMP/t.csv" | cut -d, -f1,3,4,5)" \
	"$(echo "$f" | awk -F, '{ printf "0,%s,%.0f,%.0f", $4 == 0 ? "read" : "write", $2 * 512, $3 * 512 }')" "first record"
expect_eq "$(tail -1 "$TMP/t.csv" | cut -d, -f1,3,4,5)" \
	"$(echo "$f $l" | tr ' ' ',' | awk -F, '{ printf "%.0f,%s,%.0f,%.0f", ($6 - $1) * 1e9, $9 == 0 ? "read" : "write", $7 * 512, $8 * 512 }')" "last record"
grep -q "^0 vol$(echo "$f" | cut -d, -f5) add$" "$TMP/t.fio" || fail "device of the first record"
ok

# the same through the external sort (runs on disk, k-way merge): the
# multiset of records is the same and the order is by time
mkdir "$TMP/tmpdir"
TMPDIR="$TMP/tmpdir" expect_status 0 "$IOSTORM" import --sort-window 1000 "$F" -o "$TMP/s.ist"
expect_grep "^reordered $want_reord records" "$TMP/out"
runs=$(sed -n 's/.*sort runs spilled: \([0-9]*\).*/\1/p' "$TMP/out")
[ "$runs" -gt 1 ] || fail "expected sorted runs on disk, got '$runs'"
ok
expect_eq "$(ls -A "$TMP/tmpdir" | wc -l)" 0 "temporary runs removed"
export_records "$TMP/s.ist" "$TMP/s.csv"
expect_eq "$(awk -F, 'NR > 2 && $1 < p { n++ } { p = $1 } END { print n + 0 }' "$TMP/s.csv")" 0 "sorted with runs"
sort "$TMP/t.csv" >"$TMP/a"
sort "$TMP/s.csv" >"$TMP/b"
cmp -s "$TMP/a" "$TMP/b" || fail "window sort and external sort give different records"
ok
done_ok
