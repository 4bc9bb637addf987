#!/bin/sh
# SPDX-License-Identifier: MIT
# import_real_blkparse.sh - the Apress blkparse text (8,16 with remaps from
# 8,17, CFQ messages, merges; cut off mid-trace): event counts from awk.
. "$top_srcdir/tests/cli/lib.sh"
need_shared
F="$SHARED_DIR/realdata/apress-blkparse/blktrace.txt"
[ -r "$F" ] || skip "no $F"
ev() { awk -v a="$1" '$1 ~ /^[0-9]+,[0-9]+$/ && $6 == a' "$F"; }

nq=$(ev Q | wc -l)
nd=$(ev D | wc -l)
nc=$(ev C | wc -l)
nm=$(($(ev M | wc -l) + $(ev F | wc -l)))
na=$(ev A | wc -l)

# --event Q: one record per queued bio
expect_status 0 "$IOSTORM" import --event Q "$F" -o "$TMP/q.ist"
expect_grep '\(format blkparse\)' "$TMP/out"
expect_grep "^queued $nq$" "$TMP/out"
expect_grep "^merges $nm$" "$TMP/out"
expect_grep "^remaps $na$" "$TMP/out"
# the trace is cut off: bios without a completion are counted
expect_grep '^incomplete [1-9][0-9]*$' "$TMP/out"
export_records "$TMP/q.ist" "$TMP/q.csv"
expect_eq "$(($(wc -l <"$TMP/q.csv") - 1))" "$nq" "Q records"
expect_eq "$(awk -F, '$3 == "read"' "$TMP/q.csv" | wc -l)" "$(ev Q | awk '$7 ~ /R/' | wc -l)" "Q reads"
expect_eq "$(awk -F, 'NR > 1 { s += $5 } END { printf "%.0f", s }' "$TMP/q.csv")" \
	"$(ev Q | awk '{ s += $10 * 512 } END { printf "%.0f", s }')" "Q bytes"
expect_eq "$(sed -n 2p "$TMP/q.csv" | cut -d, -f1,4,5,7)" \
	"$(ev Q | head -1 | awk '{ printf "0,%.0f,%.0f,%s", $8 * 512, $10 * 512, $5 }')" "first Q"
expect_eq "$(tail -1 "$TMP/q.csv" | cut -d, -f4,5)" \
	"$(ev Q | tail -1 | awk '{ printf "%.0f,%.0f", $8 * 512, $10 * 512 }')" "last Q"

# --event D (the default): one record per dispatched request; each has the
# latency of its completion (every C here matches a D but one: a barrier's
# second completion, 'C WS 1950885322 [0]' of no data, which is matched to
# nothing, as a zone reset's is, instead of being counted unmatched)
expect_status 0 "$IOSTORM" import "$F" -o "$TMP/d.ist"
expect_grep "^issued $nd$" "$TMP/out"
expect_grep '^unmatched_completions 0$' "$TMP/out"
expect_grep '^completed '"$(($(ev C | wc -l) - 1))"'$' "$TMP/out"
export_records "$TMP/d.ist" "$TMP/d.csv"
expect_eq "$(($(wc -l <"$TMP/d.csv") - 1))" "$nd" "D records"
expect_eq "$(awk -F, 'NR > 1 { s += $5 } END { printf "%.0f", s }' "$TMP/d.csv")" \
	"$(ev D | awk '{ s += $10 * 512 } END { printf "%.0f", s }')" "D bytes"
# latency of the first D = its C time - its D time, from the text
d1=$(ev D | head -1)
c1=$(ev C | awk -v s="$(echo "$d1" | awk '{ print $8 }')" '$8 == s' | head -1)
want_lat=$(echo "$d1|$c1" | awk -F'|' '{ split($1, x, " "); split($2, y, " "); split(x[4], a, "."); split(y[4], b, ".");
	printf "%.0f", (b[1] - a[1]) * 1e9 + (b[2] - a[2]) }')
expect_eq "$(sed -n 2p "$TMP/d.csv" | cut -d, -f6)" "$want_lat" "first D latency"
expect_eq "$(awk -F, 'NR > 1 && $6 > 0' "$TMP/d.csv" | wc -l)" "$(($nc - 1))" "D records with latency"
done_ok
