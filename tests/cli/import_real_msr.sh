#!/bin/sh
# SPDX-License-Identifier: MIT
# import_real_msr.sh - the SNIA MSR Cambridge sample: figures computed with awk
# from the source file, compared with the imported trace.
. "$top_srcdir/tests/cli/lib.sh"
need_shared
F="$SHARED_DIR/realdata/caffeine-snia/msr-cambridge1-sample.csv"
[ -r "$F" ] || skip "no $F"

expect_status 0 "$IOSTORM" import "$F" -o "$TMP/t.ist"
expect_grep '\(format msr\)' "$TMP/out"
expect_grep '^reordered 0 records' "$TMP/out"
export_records "$TMP/t.ist" "$TMP/t.csv"
expect_status 0 "$IOSTORM" export -q -f fio "$TMP/t.ist" -o "$TMP/t.fio"

# the independent figures (FILETIMEs share their first 6 digits here, so
# the differences are exact in awk's doubles)
want_n=$(wc -l <"$F")
want_reads=$(awk -F, '$4 == "Read"' "$F" | wc -l)
want_bytes=$(awk -F, '{ s += $6 } END { printf "%.0f", s }' "$F")
want_first=$(awk -F, 'NR == 1 { printf "0,write?,%s,%s,%.0f", $5, $6, $7 * 100 }' "$F" | sed "s/write?/$(head -1 "$F" | cut -d, -f4 | tr 'A-Z' 'a-z')/")
want_last_t=$(awk -F, 'NR == 1 { p = substr($1, 1, 6); f = substr($1, 7) } { if (substr($1, 1, 6) != p) bad = 1; l = substr($1, 7) } END { if (bad) print "prefix"; else printf "%.0f", (l - f) * 100 }' "$F")
want_hosts=$(awk -F, '{ print $2 "_" $3 }' "$F" | sort -u | tr '\n' ' ')

got_n=$(($(wc -l <"$TMP/t.csv") - 1))
expect_eq "$got_n" "$want_n" "record count"
expect_eq "$(awk -F, '$3 == "read"' "$TMP/t.csv" | wc -l)" "$want_reads" "reads"
expect_eq "$(awk -F, 'NR > 1 { s += $5 } END { printf "%.0f", s }' "$TMP/t.csv")" "$want_bytes" "total bytes"
expect_eq "$(sed -n 2p "$TMP/t.csv" | cut -d, -f1,3,4,5,6)" "$want_first" "first record"
expect_eq "$(tail -1 "$TMP/t.csv" | cut -d, -f1)" "$want_last_t" "last record time"
expect_eq "$(tail -1 "$TMP/t.csv" | cut -d, -f4,5)" "$(tail -1 "$F" | cut -d, -f5,6)" "last record offset,len"
expect_eq "$(awk '$3 == "add" { print $2 }' "$TMP/t.fio" | sort -u | tr '\n' ' ')" "$want_hosts" "devices (hostname_disk)"
# the original start is kept in the metadata (FILETIME -> UTC with date(1))
ft=$(head -1 "$F" | cut -d, -f1)
secs=$(echo "$ft" | awk '{ printf "%d", substr($1, 1, 11) - 11644473600 }')
frac=$(echo "$ft" | cut -c12-18)
expect_status 0 "$IOSTORM" info "$TMP/t.ist"
expect_grep "start_time = $(date -u -d "@$secs" +%Y-%m-%dT%H:%M:%S).${frac}00Z" "$TMP/out"
expect_grep "source_format = msr" "$TMP/out"
expect_grep "source_file = $F" "$TMP/out"
expect_grep "source_time_unit = 100ns" "$TMP/out"
# every record has its response time as latency
expect_eq "$(awk -F, 'NR > 1 && $6 == 0' "$TMP/t.csv" | wc -l)" 0 "records without latency"
done_ok
