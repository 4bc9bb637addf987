#!/bin/sh
# SPDX-License-Identifier: MIT
# import_fixtures.sh - every importer on its hand-made good fixture (records
# compared with a reviewed golden CSV) and broken fixture (exact error line,
# exit 1, no output left behind).
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/import"
COLS='t=1:us,dev=2,op=3:R/W,offset=4:sectors,len=5,lat=6:100ns'

# good FORMAT FIXTURE GOLDEN [import options...]
good() {
	fmt=$1 in=$2 gold=$3
	shift 3
	expect_status 0 "$IOSTORM" import -q "$@" "$D/$in" -o "$TMP/out.ist"
	# export -f csv: the trace's metadata and device table, as convert
	# writes them, then the records (the golden file's part)
	expect_status 0 "$IOSTORM" convert "$TMP/out.ist" "$TMP/conv.csv"
	export_records "$TMP/out.ist" "$TMP/out.csv"
	cmp -s "$TMP/out.csv.full" "$TMP/conv.csv" || fail "$in: export -f csv differs from convert"
	cmp -s "$TMP/out.csv" "$D/expected/$gold" ||
		{ diff "$D/expected/$gold" "$TMP/out.csv" >&2; fail "$in: records differ from expected/$gold"; }
	ok
	# detected format (or the forced one) is reported
	expect_status 0 "$IOSTORM" import "$@" "$D/$in" -o "$TMP/out.ist"
	expect_grep "\(format $fmt\)" "$TMP/out"
	rm -f "$TMP/out.ist"
}

# bad FIXTURE ERROR-LINE [import options...]
bad() {
	in=$1 msg=$2
	shift 2
	expect_status 1 "$IOSTORM" import -q "$@" "$D/$in" -o "$TMP/bad.ist"
	expect_eq "$(cat "$TMP/err")" "iostorm: $D/$in: $msg" "$in error"
	[ ! -e "$TMP/bad.ist" ] || fail "$in: output left behind"
	[ -z "$(ls "$TMP" | grep bad.ist)" ] || fail "$in: temporary output left behind"
	ok
}

good fio fio2.iolog fio2.csv
good fio fio3.iolog fio3.csv
good blkparse blkparse.txt blkparse.csv
good blkparse blkparse.txt blkparse-Q.csv --event Q
good blktrace blk-le blkparse.csv
good blktrace blk-be blkparse.csv
good blktrace blk-le blkparse-Q.csv --event Q
# operations without data that are not flushes ('N': zone open, a driver
# command) are skipped and counted, their completions matched to nothing;
# they were taken for flushes (and their completions for those of other
# I/Os at their sector); a flush ('FN') stays one
good blkparse blkparse-nodata.txt blkparse-nodata.csv
expect_grep '^no_data_skipped 2$' "$TMP/out"
good blktrace blk-nodata blkparse-nodata.csv
expect_grep '^no_data_skipped 2$' "$TMP/out"
# a zoned drive with SCSI passthrough, as blkparse prints it: zone reset
# ('WS' of no sectors: blkparse then shows no sector), open ('N'), append,
# reset and finish as newer kernels name them ('ZA', 'ZR', 'ZF'), zone
# write plugging ('ZP', 'ZU'), write zeroes ('WZ'), an atomic write ('U'),
# SG_IO packet commands ('R 36 (12 01 ...)', 'N 0'), a flush ('FN' of no
# sector).  It was refused ("line 20: bad RWBS 'ZAS'"; the zone reset a
# zero-length write, the flush lost): an append is a write, zone commands
# and packet commands are skipped and counted, their completions matched
# to nothing (the reset's would have been the write's at its sector)
good blkparse blkparse-zoned.txt blkparse-zoned.csv
for k in 'no_data_skipped 1' 'zone_mgmt_skipped 3' 'packet_commands_skipped 2' \
	 'unmatched_completions 0' 'completed 5' 'issued 9'; do
	expect_grep "^$k$" "$TMP/out"
done
good blkparse blkparse-zoned.txt blkparse-zoned-Q.csv --event Q
expect_grep '^zone_mgmt_skipped 2$' "$TMP/out"
expect_grep '^packet_commands_skipped 2$' "$TMP/out"
good msr msr.csv msr.csv
good systor systor.csv systor.csv
good spc spc.csv spc.csv
good alibaba alibaba.csv alibaba.csv
good tencent tencent.csv tencent.csv
good disksim disksim.txt disksim.csv
good mqsim mqsim.trace mqsim.csv
good vscsi vscsi.bin vscsi-bin.csv
good vscsi-csv vscsi.csv vscsi-csv.csv
good ist-csv ist.csv ist.csv
good csv generic.csv generic.csv --delimiter ';' --columns "$COLS"

bad fio2-bad.iolog "line 5: unknown action 'rread' (expected read, write, trim, sync, datasync or wait)"
bad fio3-bad.iolog "line 4: 'wait' is not allowed in a version 3 iolog"
bad blkparse-bad.txt "line 3: bad time '0.00000x000'"
# a sector past 2^64 (it was taken for an event without sector, skipped)
bad blkparse-bigsector.txt "line 3: bad sector '99999999999999999999'"
bad blk-badmagic.blktrace.0 "record 3 (byte offset 116): bad magic 0x58585858 (not a blktrace record)"
bad msr-bad.csv "line 2: bad I/O type 'Wrote' (expected R or W)"
bad systor-bad.csv "line 3: bad offset '-4256049987072'"
bad spc-bad.csv "line 2: bad timestamp 'later'"
bad alibaba-bad.csv "line 2: expected 5 comma-separated fields (device_id,opcode,offset,length,timestamp), got 4"
bad tencent-bad.csv "line 2: bad I/O type '2' (expected 0 or 1)"
bad disksim-bad.txt "line 2: expected 5 fields (arrival_ms device block size flags), got 4"
bad mqsim-bad.trace "line 2: bad block number '0x10'"
# an I/O whose end wraps past 2^64
bad mqsim-wrap.trace "line 2: I/O of 4096 bytes at offset 18446744073709551104 ends past 2^64"
bad fio3-wrap.iolog "line 5: I/O of 4096 bytes at offset 18446744073709551615 ends past 2^64"
bad vscsi-wrap.bin "byte offset 32: I/O of 4096 bytes at offset 18446744073709551104 ends past 2^64" --format vscsi
bad vscsi-badop.bin "record 2 (byte offset 32): unknown SCSI opcode 0x12" --format vscsi
bad vscsi-cut.bin "record 3 (byte offset 64): truncated record (25 of 32 bytes)"
bad vscsi-bad.csv "line 3: unknown SCSI opcode '12'"
bad ist-bad.csv "line 3: bad canonical CSV record (field op: unknown op 'scribble')"
bad generic-bad.csv "line 3: column 3 (op): unknown operation 'X'" --delimiter ';' --columns "$COLS"
bad generic.csv "the csv format needs --columns" --format csv
bad generic.csv "unknown trace format (give --format; --list-formats lists them)"
bad generic.csv "--columns: the column map needs t, offset and len" --columns 't=1'
# a control character of the map quoted in the error is shown as '?'
bad generic.csv "--columns: 'len=5:b?': bad unit for len" --columns "$(printf 't=1,offset=4,len=5:b\r')"

# a blktrace cut off mid-record: the complete records are kept, the cut counted
expect_status 0 "$IOSTORM" import "$D/blk-cut.blktrace.0" -o "$TMP/cut.ist"
expect_grep '^truncated_records 1$' "$TMP/out"
expect_grep '^incomplete 1$' "$TMP/out"

# --skip-bad: tolerated, counted, first positions reported
expect_status 0 "$IOSTORM" import --skip-bad 1 "$D/msr-bad.csv" -o "$TMP/skip.ist"
expect_grep "^skipped 1 bad records, first at: .*msr-bad.csv: line 2$" "$TMP/out"
expect_grep '^imported 1 records' "$TMP/out"
expect_status 0 "$IOSTORM" import -q --format vscsi --skip-bad 5 "$D/vscsi-badop.bin" -o "$TMP/skip.ist"
export_records "$TMP/skip.ist" "$TMP/skip.csv"
expect_eq "$(wc -l <"$TMP/skip.csv")" 3 "vscsi records after skipping the bad one"
# ... but not a record the importer cannot step over
expect_status 1 "$IOSTORM" import -q --skip-bad 5 "$D/blk-badmagic.blktrace.0" -o "$TMP/skip2.ist"

# sorting with a small window: in-order input goes straight to the output,
# a device appearing late or records later than the window fall back to
# runs merged at the end; the records are the same as sorted in memory
awk 'BEGIN { for (i = 0; i < 5000; i++) printf "%d %d %d 8 %d\n", i * 1000, (i >= 3000 && i % 2), i * 8, i % 3 == 0 }' >"$TMP/seq.trace"
awk 'BEGIN { for (i = 0; i < 5000; i++) { t = i * 1000; if (i % 500 == 499) t -= 400000; printf "%d 0 %d 8 1\n", t, i } }' >"$TMP/late.trace"
for f in seq late; do
	expect_status 0 "$IOSTORM" import "$TMP/$f.trace" -o "$TMP/$f-mem.ist"
	expect_grep 'sort runs spilled: 0' "$TMP/out"
	mkdir -p "$TMP/sorttmp"
	TMPDIR="$TMP/sorttmp" expect_status 0 "$IOSTORM" import --sort-window 100 "$TMP/$f.trace" -o "$TMP/$f-win.ist"
	[ "$(ls -A "$TMP/sorttmp")" = "" ] || fail "$f: temporary runs left in TMPDIR"
	cp "$TMP/out" "$TMP/$f.summary"
	expect_status 0 "$IOSTORM" export -q -f csv "$TMP/$f-mem.ist" -o "$TMP/$f-mem.csv"
	expect_status 0 "$IOSTORM" export -q -f csv "$TMP/$f-win.ist" -o "$TMP/$f-win.csv"
	cmp -s "$TMP/$f-mem.csv" "$TMP/$f-win.csv" || fail "$f: small window gives other records"
	ok
done
# device 1 appears at record 3000: the output so far becomes a run
expect_grep 'reordered 0 records \(sort runs spilled: [1-9]' "$TMP/seq.summary"
expect_grep 'reordered 10 records \(sort runs spilled: [1-9]' "$TMP/late.summary"
# a mono-device in-order input never spills
awk '$2 == 0' "$TMP/seq.trace" >"$TMP/one.trace"
expect_status 0 "$IOSTORM" import --sort-window 100 "$TMP/one.trace" -o "$TMP/one.ist"
expect_grep 'reordered 0 records \(sort runs spilled: 0\)' "$TMP/out"

# --check: parse and count, write nothing
expect_status 0 "$IOSTORM" import --check "$D/systor.csv"
expect_grep '^checked 4 records in 1 file \(format systor\)$' "$TMP/out"
expect_grep '^reordered 2 records' "$TMP/out"
expect_status 1 "$IOSTORM" import --check "$D/systor-bad.csv"
expect_err_line "^iostorm: $D/systor-bad.csv: line 3: bad offset"
expect_status 2 "$IOSTORM" import --check "$D/systor.csv" -o "$TMP/x.ist"

# usage errors
expect_status 2 "$IOSTORM" import "$D/msr.csv"
expect_status 2 "$IOSTORM" import --format nope "$D/msr.csv" -o "$TMP/x.ist"
expect_status 2 "$IOSTORM" import --event X "$D/msr.csv" -o "$TMP/x.ist"
expect_status 0 "$IOSTORM" import --list-formats
for f in fio blkparse blktrace pcap msr systor spc alibaba tencent disksim mqsim vscsi vscsi-csv csv ist-csv; do
	expect_grep "^$f " "$TMP/out"
done
# a missing input
expect_status 1 "$IOSTORM" import "$TMP/none.csv" -o "$TMP/x.ist"
expect_err_line "^iostorm: $TMP/none.csv: No such file or directory$"
# more devices than an IST file holds: the input's fault, at its line or
# record (was "OUT.ist: writing: value out of range"), and no output
awk 'BEGIN { for (i = 0; i <= 65536; i++) printf "1281663720%08d,h,%d,Read,0,4096,100\n", i, i }' \
	>"$TMP/many.csv"
expect_status 1 "$IOSTORM" import --format msr "$TMP/many.csv" -o "$TMP/many.ist"
expect_err_line "^iostorm: $TMP/many.csv: line 65537: more than 65536 devices$"
[ ! -e "$TMP/many.ist" ] || fail "many.ist left behind"
ok
# an option of another format was ignored (and --columns replaced an
# explicit --format by csv): a usage error with --format, an error naming
# the detected format without
for o in "--event Q" "--columns t=1,offset=2,len=3" "--delimiter tab" "--quote x" "--header-rows 1" "--device sdx"; do
	expect_status 2 "$IOSTORM" import --format msr "$D/msr.csv" -o "$TMP/o.ist" $o
	expect_eq "$(head -1 "$TMP/err")" "iostorm import: ${o%% *} does not apply to --format msr" "import --format msr $o"
done
expect_status 1 "$IOSTORM" import "$D/msr.csv" -o "$TMP/o.ist" --event Q
expect_err_line "^iostorm: $D/msr.csv: detected format msr, which --event does not apply to \(give --format\)$"
expect_status 1 "$IOSTORM" import "$D/blkparse.txt" -o "$TMP/o.ist" --delimiter tab
expect_err_line "^iostorm: $D/blkparse.txt: detected format blkparse, which --delimiter does not apply to \(give --format\)$"
[ ! -e "$TMP/o.ist" ] || fail "output written with an option of another format"
ok
# --device names the one device of inputs without device (csv without a
# dev column, vscsi) or all of numbered ones (disksim, mqsim); the others
# name theirs: it was ignored
for f in blkparse fio systor spc alibaba tencent ist-csv; do
	expect_status 2 "$IOSTORM" import --format $f "$D/msr.csv" -o "$TMP/o.ist" --device sdx
	expect_eq "$(head -1 "$TMP/err")" "iostorm import: --device does not apply to --format $f" "import --format $f --device"
done
expect_status 1 "$IOSTORM" import "$D/blkparse.txt" -o "$TMP/o.ist" --device sdx
expect_err_line "^iostorm: $D/blkparse.txt: detected format blkparse, which --device does not apply to \(give --format\)$"
expect_status 1 "$IOSTORM" import "$D/blk-le" -o "$TMP/o.ist" --device sdx
expect_err_line "^iostorm: $D/blk-le.blktrace.0: detected format blktrace, which --device does not apply to \(give --format\)$"
expect_status 1 "$IOSTORM" import "$D/generic.csv" -o "$TMP/o.ist" --device sdx --delimiter ';' --columns "$COLS"
expect_err_line "^iostorm: $D/generic.csv: --device does not apply to a column map with dev$"
[ ! -e "$TMP/o.ist" ] || fail "output written with --device of another format"
ok
for f in disksim.txt mqsim.trace vscsi.bin; do
	expect_status 0 "$IOSTORM" import -q "$D/$f" -o "$TMP/o.ist" --device sdx
	expect_status 0 "$IOSTORM" export -q -f fio "$TMP/o.ist" -o "$TMP/o.fio"
	expect_eq "$(grep ' add$' "$TMP/o.fio")" "0 sdx add" "$f --device"
	rm -f "$TMP/o.ist"
done
expect_status 0 "$IOSTORM" import -q "$D/generic.csv" -o "$TMP/o.ist" --device sdx --delimiter ';' --columns 't=1:us,op=3:R/W,offset=4:sectors,len=5'
expect_status 0 "$IOSTORM" export -q -f fio "$TMP/o.ist" -o "$TMP/o.fio"
expect_eq "$(grep ' add$' "$TMP/o.fio")" "0 sdx add" "csv --device"
rm -f "$TMP/o.ist"
expect_status 0 "$IOSTORM" import -q "$D/blkparse.txt" -o "$TMP/o.ist" --event Q
if command -v python3 >/dev/null; then
	python3 -c '
import struct, sys
with open(sys.argv[1], "wb") as f:
    for i in range(65537):
        f.write(struct.pack("<IIQQIIIIIHH", 0x65617407, i, i * 1000, i * 8, 4096,
                            1 << 16 | 7, 1, 8 << 20 | i, 0, 0, 0))
	' "$TMP/many.blktrace.0"
	expect_status 1 "$IOSTORM" import "$TMP/many.blktrace.0" -o "$TMP/many.ist"
	expect_err_line "^iostorm: $TMP/many.blktrace.0: record 65537 \(byte offset 3145728\): more than 65536 devices$"
else
	skip_part "no python3: a blktrace of more devices than IST holds"
fi
done_ok
