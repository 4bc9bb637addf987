#!/bin/sh
# SPDX-License-Identifier: MIT
# import_real_blktrace.sh - the two blktrace binaries (v7, CPU0/CPU1 merged
# by time, notify records, remap PDUs) agree record for record with
# blkparse's own text of them, and with blkparse's summary figures.
. "$top_srcdir/tests/cli/lib.sh"
need_shared
B="$SHARED_DIR/realdata/blktrace-bin"
[ -r "$B/sda.blktrace.0" ] || skip "no $B"
TXT="$B/sda.blkparse-local.txt"
# blkparse's summary ("Total (sda):" block)
total() { sed -n '/^Total/,$p' "$TXT" | grep "$1" | sed "s/.*$1: *\([0-9]*\), *\([0-9]*\)KiB.*/\1 \2/"; }
read q_n q_kib <<E
$(total "Writes Queued")
E
read d_n d_kib <<E
$(total "Write Dispatches")
E
read c_n c_kib <<E
$(total "Writes Completed")
E

for ev in Q D; do
	expect_status 0 "$IOSTORM" import --event $ev "$B/sda" -o "$TMP/b.ist"
	expect_grep '\(format blktrace\)' "$TMP/out"
	expect_grep '^imported [0-9]+ records from 2 files' "$TMP/out"
	expect_grep '^notify_records [1-9]' "$TMP/out"
	expect_grep '^remaps [1-9]' "$TMP/out"
	export_records "$TMP/b.ist" "$TMP/b.csv"
	expect_status 0 "$IOSTORM" export -q -f fio "$TMP/b.ist" -o "$TMP/b.fio"
	expect_status 0 "$IOSTORM" import --event $ev "$TXT" -o "$TMP/t.ist"
	expect_grep '\(format blkparse\)' "$TMP/out"
	export_records "$TMP/t.ist" "$TMP/t.csv"
	expect_status 0 "$IOSTORM" export -q -f fio "$TMP/t.ist" -o "$TMP/t.fio"
	cmp -s "$TMP/b.csv" "$TMP/t.csv" || { diff "$TMP/b.csv" "$TMP/t.csv" | head >&2; fail "--event $ev: binary and text differ"; }
	ok
	cmp -s "$TMP/b.fio" "$TMP/t.fio" || fail "--event $ev: device tables differ"
	ok
	# blkparse prints the total bytes in KiB, rounded down
	kib=$(awk -F, 'NR > 1 { s += $5 } END { printf "%d", s / 1024 }' "$TMP/b.csv")
	n=$(($(wc -l <"$TMP/b.csv") - 1))
	if [ $ev = Q ]; then
		expect_eq "$n $kib" "$q_n $q_kib" "queued writes (count, KiB)"
	else
		expect_eq "$n $kib" "$d_n $d_kib" "dispatched writes (count, KiB)"
		expect_eq "$(awk -F, 'NR > 1 && $6 > 0' "$TMP/b.csv" | wc -l)" "$c_n" "completed (records with latency)"
	fi
	expect_eq "$(awk -F, '$3 != "write"' "$TMP/b.csv" | wc -l)" 1 "only writes (plus the header)"
done
# the per-CPU files can also be named one by one
expect_status 0 "$IOSTORM" import -q "$B/sda.blktrace.0" "$B/sda.blktrace.1" -o "$TMP/c.ist"
export_records "$TMP/c.ist" "$TMP/c.csv"
cmp -s "$TMP/c.csv" "$TMP/b.csv" || fail "explicit per-CPU files differ from NAME"
ok
done_ok
