#!/bin/sh
# SPDX-License-Identifier: MIT
# import_real_mqsim.sh - the MQSim WebSearch trace (no newline at the end).
. "$top_srcdir/tests/cli/lib.sh"
need_shared
F="$SHARED_DIR/realdata/mqsim/wsrch-small.trace"
[ -r "$F" ] || skip "no $F"

expect_status 0 "$IOSTORM" import "$F" -o "$TMP/t.ist"
expect_grep '\(format mqsim\)' "$TMP/out"
export_records "$TMP/t.ist" "$TMP/t.csv"
# awk counts the last line although it has no newline (wc -l would not)
expect_eq "$(($(wc -l <"$TMP/t.csv") - 1))" "$(awk 'END { print NR }' "$F")" "records"
expect_eq "$(awk -F, '$3 == "read"' "$TMP/t.csv" | wc -l)" "$(awk '$5 == 1' "$F" | wc -l)" "reads"
expect_eq "$(awk -F, 'NR > 1 { s += $5 } END { printf "%.0f", s }' "$TMP/t.csv")" \
	"$(awk '{ s += $4 * 512 } END { printf "%.0f", s }' "$F")" "bytes"
expect_eq "$(sed -n 2p "$TMP/t.csv" | cut -d, -f1,3,4,5)" \
	"$(head -1 "$F" | awk '{ printf "0,%s,%.0f,%.0f", $5 == 1 ? "read" : "write", $3 * 512, $4 * 512 }')" "first record"
expect_eq "$(tail -1 "$TMP/t.csv" | cut -d, -f1,3,4,5)" \
	"$(awk 'NR == 1 { f = $1 } END { printf "%.0f,%s,%.0f,%.0f", $1 - f, $5 == 1 ? "read" : "write", $3 * 512, $4 * 512 }' "$F")" "last record"
done_ok
