#!/bin/sh
# SPDX-License-Identifier: MIT
# convert.sh - iostorm convert: round trips, stdin/stdout, bad input, usage.
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/format"

# CSV -> IST -> CSV is byte-identical (metadata, devices, extreme values)
expect_status 0 "$IOSTORM" convert "$D/small.csv" "$TMP/a.ist"
expect_status 0 "$IOSTORM" convert "$TMP/a.ist" "$TMP/a.csv"
cmp -s "$D/small.csv" "$TMP/a.csv" || fail "CSV -> IST -> CSV differs"
ok
# the writer is deterministic and the format stable: the golden file
cmp -s "$D/small.ist" "$TMP/a.ist" || fail "small.csv no longer encodes to small.ist"
ok
# the golden of the 1.3 writer (before VANS) reads as the same records
expect_status 0 "$IOSTORM" cat "$D/small-1.3.ist"
cmp -s "$TMP/out" "$D/small.csv" || fail "small-1.3.ist no longer reads as small.csv"
ok
# IST -> CSV -> IST is record-identical
expect_status 0 "$IOSTORM" convert "$TMP/a.csv" "$TMP/b.ist"
expect_status 0 "$IOSTORM" cat "$TMP/b.ist"
cp "$TMP/out" "$TMP/b.csv"
cmp -s "$TMP/b.csv" "$D/small.csv" || fail "IST -> CSV -> IST changed records"
ok

# stdin and stdout; the kind comes from the magic, not the name
expect_status 0 sh -c "'$IOSTORM' convert - - <'$D/small.csv' >'$TMP/c.csv'"
cmp -s "$TMP/c.csv" "$D/small.csv" || fail "stdin CSV to stdout CSV"
ok
expect_status 0 sh -c "cat '$D/small.csv' | '$IOSTORM' convert --to ist - - | '$IOSTORM' convert - '$TMP/d.csv'"
cmp -s "$TMP/d.csv" "$D/small.csv" || fail "IST through pipes"
ok
cp "$D/small.ist" "$TMP/noext"
expect_status 0 "$IOSTORM" convert "$TMP/noext" "$TMP/out-noext"
head -c 1 "$TMP/out-noext" | grep -q '#' || fail "IST input without extension should give CSV"
ok

# re-chunking IST -> IST keeps the records
expect_status 0 "$IOSTORM" convert -c 2 -l 9 "$D/small.ist" "$TMP/e.ist"
expect_status 0 "$IOSTORM" info "$TMP/e.ist"
cp "$TMP/out" "$TMP/info"
expect_grep '^records: +9 in 5 chunks' "$TMP/info"
expect_status 0 "$IOSTORM" cat "$TMP/e.ist"
cp "$TMP/out" "$TMP/e.csv"
cmp -s "$TMP/e.csv" "$D/small.csv" || fail "re-chunked file differs"
ok

# bad input: one line naming file, line and reason; exit 1; nothing left
for case in "bad_op.csv:13:field op: unknown op 'rd'" \
	    "bad_len.csv:14:field len: out of range '4294967296'" \
	    "bad_fields.csv:16:expected 9 fields" \
	    "bad_flags.csv:18:field flags: unknown flags 'sync\|bogus'" \
	    "no_header.csv:9:expected the header row"; do
	f=${case%%:*}; rest=${case#*:}; line=${rest%%:*}; why=${rest#*:}
	rm -f "$TMP"/out.*
	expect_status 1 "$IOSTORM" convert "$D/$f" "$TMP/out.ist"
	expect_err_line "^iostorm: .*/$f: line $line: $why"
	[ -z "$(ls "$TMP" | grep '^out\.')" ] || fail "$f left $(ls "$TMP" | grep '^out\.')"
	ok
	expect_status 1 "$IOSTORM" convert "$D/$f" "$TMP/out.csv"
	[ -z "$(ls "$TMP" | grep '^out\.')" ] || fail "$f left a CSV output"
	ok
done
# a damaged IST input: chunk and byte offset; --salvage goes on
cp "$D/small.ist" "$TMP/dmg.ist"
off=$(( $(head -c 16 "$TMP/dmg.ist" | od -An -tu4 -j12 | tr -d ' ') + 45 ))
printf '\377' | dd of="$TMP/dmg.ist" bs=1 seek=$off conv=notrunc 2>/dev/null
expect_status 1 "$IOSTORM" convert "$TMP/dmg.ist" "$TMP/out.csv"
expect_err_line "^iostorm: .*/dmg.ist: chunk 0 \(byte offset [0-9]+\): checksum mismatch$"
[ ! -e "$TMP/out.csv" ] || fail "damaged input left an output"
ok
expect_status 0 "$IOSTORM" convert --salvage "$TMP/dmg.ist" "$TMP/out.csv"
expect_err_line "warning: .*chunk 0 .*skipped"
# not a trace, missing files, unwritable output
expect_status 1 "$IOSTORM" convert "$TMP/missing.csv" "$TMP/out.ist"
expect_err_line "^iostorm: .*/missing.csv: No such file or directory$"
expect_status 1 "$IOSTORM" convert "$D/small.csv" "$TMP/no/such/dir/x.ist"
expect_err_line "^iostorm: .*/x.ist: No such file or directory$"
# a compressed CSV is named so (it was "line 1: NUL byte in line")
printf '\037\213\010\000\000\000\000\000' >"$TMP/t.csv.gz"
expect_status 1 "$IOSTORM" convert "$TMP/t.csv.gz" "$TMP/out.ist"
expect_eq "$(cat "$TMP/err")" "iostorm: $TMP/t.csv.gz: gzip-compressed: convert reads IST and canonical CSV (decompress it into 'iostorm convert -', or use iostorm import)" "convert x.csv.gz"
printf '\3757zXZ\000' >"$TMP/t.csv.xz"
expect_status 1 "$IOSTORM" convert - "$TMP/out.ist" <"$TMP/t.csv.xz"
expect_eq "$(cat "$TMP/err")" "iostorm: stdin: xz-compressed: convert reads IST and canonical CSV (decompress it into 'iostorm convert -', or use iostorm import)" "convert - <x.csv.xz"
[ ! -e "$TMP/out.ist" ] || fail "a compressed input left an output"
ok
printf '\211IST\r\n\032\n\002\000' >"$TMP/v2.ist"
expect_status 1 "$IOSTORM" convert "$TMP/v2.ist" "$TMP/out.csv"
expect_err_line "truncated|unsupported"

# usage errors exit 2, --help exits 0
expect_status 2 "$IOSTORM" convert "$D/small.csv"
expect_status 2 "$IOSTORM" convert --to xml "$D/small.csv" "$TMP/x"
expect_status 2 "$IOSTORM" convert --chunk-records 0 "$D/small.csv" "$TMP/x"
expect_status 2 "$IOSTORM" convert --level 10 "$D/small.csv" "$TMP/x"
# options for the other kind did nothing, silently: usage errors now
rm -f "$TMP/x.csv" "$TMP/x.ist"
expect_status 2 "$IOSTORM" convert --level 5 "$D/small.ist" "$TMP/x.csv"
expect_eq "$(head -1 "$TMP/err")" "iostorm convert: --level applies to an IST output (OUT is CSV)" "convert --level to CSV"
expect_status 2 "$IOSTORM" convert -c 10 --to csv "$D/small.csv" "$TMP/x.ist"
expect_eq "$(head -1 "$TMP/err")" "iostorm convert: --chunk-records applies to an IST output (OUT is CSV)" "convert -c to CSV"
expect_status 2 "$IOSTORM" convert --fast "$D/small.ist" "$TMP/x.csv"
expect_eq "$(head -1 "$TMP/err")" "iostorm convert: --fast applies to an IST output (OUT is CSV)" "convert --fast to CSV"
expect_status 2 "$IOSTORM" convert --salvage "$D/small.csv" "$TMP/x.ist"
expect_eq "$(head -1 "$TMP/err")" "iostorm convert: --salvage applies to an IST input ($D/small.csv is CSV)" "convert --salvage of CSV"
[ ! -e "$TMP/x.csv" ] && [ ! -e "$TMP/x.ist" ] || fail "convert wrote an output after a usage error"
ok
expect_status 0 "$IOSTORM" convert --salvage -c 10 --level 5 "$D/small.ist" "$TMP/x.ist"
expect_status 2 "$IOSTORM" convert --bogus "$D/small.csv" "$TMP/x"
expect_status 0 "$IOSTORM" convert --help
expect_grep '^Usage: iostorm convert' "$TMP/out"
# a CSV device beyond what an IST file holds: the input's record, not
# the output's "unknown device"
printf 't_ns,dev,op,offset,len,lat_ns,stream,txn,flags\n0,0,read,0,4096,100,1,0,\n10,70000,read,0,4096,100,1,0,\n' \
	>"$TMP/dev.csv"
expect_status 1 "$IOSTORM" convert "$TMP/dev.csv" "$TMP/dev.ist"
expect_err_line "^iostorm: $TMP/dev.csv: record 2: device 70000: an IST file holds devices 0 to 65535$"
[ ! -e "$TMP/dev.ist" ] || fail "dev.ist left behind"
ok
done_ok
