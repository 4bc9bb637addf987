#!/bin/sh
# SPDX-License-Identifier: MIT
# import_real_fio.sh - fio's own t0038 version 3 iolog.
. "$top_srcdir/tests/cli/lib.sh"
need_shared
F="$SHARED_DIR/realdata/fio-iolog/t0038.iolog"
[ -r "$F" ] || skip "no $F"

expect_status 0 "$IOSTORM" import "$F" -o "$TMP/t.ist"
expect_grep '\(format fio\)' "$TMP/out"
expect_grep '^file_actions 3$' "$TMP/out"
export_records "$TMP/t.ist" "$TMP/t.csv"
expect_status 0 "$IOSTORM" export -q -f fio "$TMP/t.ist" -o "$TMP/t.fio"
io() { awk 'NF == 5' "$F"; }
expect_eq "$(($(wc -l <"$TMP/t.csv") - 1))" "$(io | wc -l)" "records"
expect_eq "$(awk -F, '$3 == "discard"' "$TMP/t.csv" | wc -l)" "$(io | awk '$3 == "trim"' | wc -l)" "trims"
expect_eq "$(awk -F, '$3 == "write"' "$TMP/t.csv" | wc -l)" "$(io | awk '$3 == "write"' | wc -l)" "writes"
expect_eq "$(awk -F, 'NR > 1 { s += $5 } END { printf "%.0f", s }' "$TMP/t.csv")" \
	"$(io | awk '{ s += $5 } END { printf "%.0f", s }')" "bytes"
expect_eq "$(sed -n 2p "$TMP/t.csv" | cut -d, -f1,3,4,5)" "$(io | head -1 | awk '{ print "0,discard," $4 "," $5 }')" "first record"
expect_eq "$(tail -1 "$TMP/t.csv" | cut -d, -f1,4,5)" \
	"$(io | awk 'NR == 1 { f = $1 } END { printf "%.0f,%s,%s", ($1 - f) * 1000, $4, $5 }')" "last record"
expect_eq "$(awk '$3 == "add" { print $2 }' "$TMP/t.fio")" /dev/null "device = file name"
done_ok
