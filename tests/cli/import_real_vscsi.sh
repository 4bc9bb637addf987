#!/bin/sh
# SPDX-License-Identifier: MIT
# import_real_vscsi.sh - the CloudPhysics vscsi trace: binary figures from
# od/awk, and the binary and CSV forms import to the same records (the CSV
# has whole seconds, the binary microseconds).
. "$top_srcdir/tests/cli/lib.sh"
need_shared
V="$SHARED_DIR/realdata/vscsi-cloudphysics"
[ -r "$V/cloudPhysicsIO.vscsi" ] || skip "no $V"

# u32 words per 32-byte record: sn len nSG cmd|ver<<16 lbn_lo lbn_hi ts_lo ts_hi
od -An -v -t u4 -w32 "$V/cloudPhysicsIO.vscsi" >"$TMP/od.txt"
expect_status 0 "$IOSTORM" import --absolute-time "$V/cloudPhysicsIO.vscsi" -o "$TMP/b.ist"
expect_grep '\(format vscsi\)' "$TMP/out"
export_records "$TMP/b.ist" "$TMP/b.csv"
expect_eq "$(($(wc -l <"$TMP/b.csv") - 1))" "$(($(stat -c %s "$V/cloudPhysicsIO.vscsi") / 32))" "records"
expect_eq "$(awk -F, '$3 == "read"' "$TMP/b.csv" | wc -l)" "$(awk '$4 % 65536 == 40' "$TMP/od.txt" | wc -l)" "reads (READ(10))"
expect_eq "$(awk -F, 'NR > 1 { s += $5 } END { printf "%.0f", s }' "$TMP/b.csv")" \
	"$(awk '{ s += $2 } END { printf "%.0f", s }' "$TMP/od.txt")" "bytes"
expect_eq "$(sed -n 2p "$TMP/b.csv" | cut -d, -f1,4,5)" \
	"$(head -1 "$TMP/od.txt" | awk '{ printf "%.0f,%.0f,%s", ($7 + $8 * 4294967296) * 1000, ($5 + $6 * 4294967296) * 512, $2 }')" "first record"
expect_eq "$(tail -1 "$TMP/b.csv" | cut -d, -f1,4,5)" \
	"$(tail -1 "$TMP/od.txt" | awk '{ printf "%.0f,%.0f,%s", ($7 + $8 * 4294967296) * 1000, ($5 + $6 * 4294967296) * 512, $2 }')" "last record"

# the CSV form: same records, times truncated to seconds
expect_status 0 "$IOSTORM" import --absolute-time "$V/cloudPhysicsIO.csv" -o "$TMP/c.ist"
expect_grep '\(format vscsi-csv\)' "$TMP/out"
export_records "$TMP/c.ist" "$TMP/c.csv"
awk -F, 'NR > 1 { printf "%.0f,%s,%s,%s,%s\n", int($1 / 1e9), $2, $3, $4, $5 }' "$TMP/b.csv" >"$TMP/b5"
awk -F, 'NR > 1 { printf "%.0f,%s,%s,%s,%s\n", $1 / 1e9, $2, $3, $4, $5 }' "$TMP/c.csv" >"$TMP/c5"
cmp -s "$TMP/b5" "$TMP/c5" || { diff "$TMP/b5" "$TMP/c5" | head >&2; fail "vscsi binary and CSV differ"; }
ok
# and normalized to start at 0 by default
expect_status 0 "$IOSTORM" import -q "$V/cloudPhysicsIO.vscsi" -o "$TMP/n.ist"
export_records "$TMP/n.ist" "$TMP/n.csv"
expect_eq "$(sed -n 2p "$TMP/n.csv" | cut -d, -f1)" 0 "normalized start"
done_ok
