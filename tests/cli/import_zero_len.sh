#!/bin/sh
# SPDX-License-Identifier: MIT
# import_zero_len.sh - a read, write, discard or write-zeroes of 0 bytes is
# a bad record naming its line (or byte offset), whatever the format, so
# that --skip-bad applies; a flush has no length.  (tencent, alibaba and
# mqsim took such records; a replay then timed a one-block I/O that the
# trace never had.)
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/import"

# zero FORMAT LINE-NO OP CONTENT
zero() {
	fmt=$1 ln=$2 op=$3
	printf "$4" >"$TMP/z.$fmt"
	expect_status 1 "$IOSTORM" import -q --format $fmt "$TMP/z.$fmt" -o "$TMP/z.ist"
	expect_err_line "^iostorm: $TMP/z.$fmt: line $ln: zero-length $op \(only a flush has no length\)$"
	[ ! -e "$TMP/z.ist" ] || fail "$fmt: output left behind"
	# a bad record: --skip-bad steps over it (every input has a good one)
	expect_status 0 "$IOSTORM" import --format $fmt --skip-bad 1 "$TMP/z.$fmt" -o "$TMP/z.ist"
	expect_grep "^skipped 1 bad records, first at: $TMP/z.$fmt: line $ln$" "$TMP/out"
	expect_grep "^imported 1 records" "$TMP/out"
	rm -f "$TMP/z.ist"
}

zero tencent 2 write '1538323200,4247200,8,1,1058\n1538323200,4247200,0,1,1058\n'
zero alibaba 1 read '419,R,8792838144,0,1577808000000062\n419,W,8792838144,4096,1577808000000063\n'
zero mqsim 2 write '11413000 0 657728 16 1\n11413001 0 657728 0 0\n'
zero disksim 1 read '0.000000 0 1024 0 1\n0.5 0 1024 8 1\n'
zero msr 2 read '128166372003061629,src1,1,Read,7014609920,4096,41286\n128166372003061630,src1,1,Read,7014609920,0,41286\n'
zero systor 3 write 'Timestamp,Response,IOType,LUN,Offset,Size\n1456095145.1,0.0008,R,0,4096,4096\n1456095145.2,0.0008,W,0,4096,0\n'
zero spc 1 write '0,303567,0,w,0.000000\n0,303567,512,w,0.000001\n'
zero vscsi-csv 1 write '1,100,2a,0,42932745\n1,101,28,512,8\n'
zero fio 4 read 'fio version 3 iolog\n0 /dev/sda add\n0 /dev/sda open\n1 /dev/sda read 0 0\n2 /dev/sda read 0 4096\n'
zero ist-csv 2 discard 't_ns,dev,op,offset,len,lat_ns,stream,txn,flags\n0,0,discard,0,0,0,0,0,\n1,0,read,0,512,0,0,0,\n'
printf '0,0,R,0,8\n1,0,W,8,0\n' >"$TMP/g.csv"
expect_status 1 "$IOSTORM" import -q --columns 't=1:us,dev=2,op=3:R/W,offset=4:sectors,len=5' "$TMP/g.csv" -o "$TMP/z.ist"
expect_err_line "^iostorm: $TMP/g.csv: line 2: zero-length write \(only a flush has no length\)$"

# a binary record: its byte offset
cp "$D/vscsi.bin" "$TMP/v0.bin"
printf '\000\000\000\000' | dd of="$TMP/v0.bin" bs=1 seek=36 conv=notrunc 2>/dev/null
expect_status 1 "$IOSTORM" import -q --format vscsi "$TMP/v0.bin" -o "$TMP/z.ist"
expect_err_line "^iostorm: $TMP/v0.bin: byte offset 32: zero-length read \(only a flush has no length\)$"

# blkparse, blktrace: the event that becomes the record (D, or Q with
# --event Q) names its line or record; a flush keeps no length: 'FN' (a
# flush request), 'FWS' (an empty write with a preflush).  Both took them.
# A write of no bytes without a preflush ('WS' of no sectors) is what the
# kernel makes of a zone reset or close: skipped and counted, no bad record
# (it was one: a trace of a zoned drive did not import without --skip-bad)
ev() { printf '  8,0    0 %8d %5d.%09d   100  %s\n' "$1" 0 "$1"00000 "$2"; }
{ ev 1 'D R 0 + 8 [a]'; ev 2 'D R 8 + 0 [a]'; ev 3 'D FN 0 + 0 [a]'; ev 4 'D WS 16 + 0 [a]'
  ev 5 'Q FWS 0 + 0 [a]'; ev 6 'D D 24 + 0 [a]'; ev 7 'C FN 0 [0]'; ev 8 'D FWS 0 + 0 [a]'; } >"$TMP/z.txt"
expect_status 1 "$IOSTORM" import -q --format blkparse "$TMP/z.txt" -o "$TMP/z.ist"
expect_err_line "^iostorm: $TMP/z.txt: line 2: zero-length read \(only a flush has no length\)$"
[ ! -e "$TMP/z.ist" ] || fail "blkparse: output left behind"
rm -f "$TMP/z.ist"
expect_status 0 "$IOSTORM" import --skip-bad 3 "$TMP/z.txt" -o "$TMP/z.ist"
expect_grep "^skipped 2 bad records, first at: $TMP/z.txt: line 2, $TMP/z.txt: line 6$" "$TMP/out"
expect_grep '^zone_mgmt_skipped 1$' "$TMP/out"
export_records "$TMP/z.ist" "$TMP/z.csv"
expect_eq "$(cut -d, -f1,3,5 "$TMP/z.csv" | tr '\n' ' ')" "t_ns,op,len 0,read,4096 200000,flush,0 700000,flush,0 " "blkparse records"
# --event Q: the Q of the flush is the record, the D events are not looked at
expect_status 0 "$IOSTORM" import --event Q "$TMP/z.txt" -o "$TMP/z.ist"
expect_grep "^imported 1 records" "$TMP/out"

# blkrec T SECTOR BYTES CATEGORY ACTION: a little-endian blktrace v7
# record (device 8,0, pid 1, no PDU)
byte() { printf "\\$(printf %03o $(($1 & 255)))"; }
le16() { byte $1; byte $(($1 >> 8)); }
le32() { le16 $(($1 & 65535)); le16 $(($1 >> 16)); }
le64() { le32 $(($1 & 4294967295)); le32 $(($1 >> 32)); }
blkrec() { le32 $((0x65617407)); le32 0; le64 $1; le64 $2; le32 $3; le32 $((($4) << 16 | $5))
	   le32 1; le32 $((8 << 20)); le32 0; le16 0; le16 0; }
R=1 W=2 FL=4 S=8 D=64 C=128 DISC=8192
{ blkrec 1000 0 4096 "R|D" 7; blkrec 2000 0 0 "R|FL|D" 7; blkrec 3000 8 0 "W|D" 7
  blkrec 4000 16 0 "DISC|D" 7; blkrec 5000 0 0 "W|FL|D" 7; } >"$TMP/zb.blktrace.0"
rm -f "$TMP/z.ist"
expect_status 1 "$IOSTORM" import -q "$TMP/zb.blktrace.0" -o "$TMP/z.ist"
expect_err_line "^iostorm: $TMP/zb.blktrace.0: record 4 \(byte offset 144\): zero-length discard \(only a flush has no length\)$"
[ ! -e "$TMP/z.ist" ] || fail "blktrace: output left behind"
expect_status 0 "$IOSTORM" import --skip-bad 2 "$TMP/zb.blktrace.0" -o "$TMP/z.ist"
expect_grep "^skipped 1 bad records, first at: $TMP/zb.blktrace.0: record 4 \(byte offset 144\)$" "$TMP/out"
expect_grep '^zone_mgmt_skipped 1$' "$TMP/out"
export_records "$TMP/z.ist" "$TMP/z.csv"
# the kernel traces a flush request (REQ_OP_FLUSH) as a read of no bytes
# with the flush bit: it was taken for a zero-length read
expect_eq "$(cut -d, -f1,3,5,9 "$TMP/z.csv" | tr '\n' ' ')" "t_ns,op,len,flags 0,read,4096, 1000,flush,0, 4000,flush,0, " "blktrace records"

# a zoned drive as the kernel traces it in blktrace v7 records: zone reset
# and close are writes of no bytes (TC_WRITE), open and finish reads of
# none ('N'), an append a write of its length; the reset's completion at
# the zone's start is not the write's there.  It was refused: "record 3
# (byte offset 96): zero-length write"
ZS=$((1048576)) ZS2=$((2 * 1048576))
{ blkrec 1000 $ZS 0 "W|S|D" 7; blkrec 2000 $ZS 0 "W|S|C" 8
  blkrec 3000 $ZS 4096 "W|D" 7; blkrec 4000 $ZS2 0 "R|D" 7; blkrec 5000 $ZS2 0 "R|C" 8
  blkrec 6000 $ZS2 0 "W|S|D" 7; blkrec 7000 $ZS 4096 "W|C" 8
  blkrec 8000 $ZS2 8192 "W|D" 7; blkrec 9000 $ZS2 0 "W|S|C" 8; blkrec 10000 $ZS2 8192 "W|C" 8
} >"$TMP/zone.blktrace.0"
expect_status 0 "$IOSTORM" import "$TMP/zone.blktrace.0" -o "$TMP/zone.ist"
expect_grep '^imported 2 records' "$TMP/out"
expect_grep '^zone_mgmt_skipped 2$' "$TMP/out"
expect_grep '^no_data_skipped 1$' "$TMP/out"
expect_grep '^unmatched_completions 0$' "$TMP/out"
export_records "$TMP/zone.ist" "$TMP/zone.csv"
expect_eq "$(cut -d, -f1,3,4,5,6 "$TMP/zone.csv" | tr '\n' ' ')" \
	"t_ns,op,offset,len,lat_ns 0,write,536870912,4096,4000 5000,write,1073741824,8192,2000 " "zoned blktrace records"

# the same in blktrace v8 records (struct blk_io_trace2: a 64-bit action,
# whose categories name zone commands and write zeroes; the binaries of
# kernels and blktrace from 2025 with zoned devices): it was refused,
# "record 1 (byte offset 0): unsupported blktrace version 8 (expected 7)".
# A zone append is a write, write zeroes a write-zeroes record, zone
# reset, reset-all, open, close and finish are skipped and counted.
# blkrec2 T SECTOR BYTES CATEGORY ACTION: a little-endian v8 record
blkrec2() { le32 $((0x65617408)); le32 0; le64 $1; le64 $2; le32 $3; le32 1
	    le64 $((($4) << 16 | $5)); le32 $((8 << 20)); le32 0; le16 0; le16 0
	    le64 0; le32 0; }
ZA=$((1 << 16)) ZR=$((1 << 17)) ZRA=$((1 << 18)) ZF=$((1 << 19)) ZO=$((1 << 20))
ZC=$((1 << 21)) WZ=$((1 << 22)) PC=512
{ blkrec2 1000 $ZS 0 "W|S|ZR|D" 7; blkrec2 2000 $ZS 0 "W|S|ZR|C" 8
  blkrec2 3000 $ZS 8192 "W|ZA|D" 7; blkrec2 4000 $ZS2 0 "R|ZO|D" 7
  blkrec2 5000 $ZS 8192 "W|ZA|C" 8; blkrec2 6000 $ZS2 0 "W|ZC|D" 7
  blkrec2 7000 $ZS2 0 "R|ZF|D" 7; blkrec2 8000 0 0 "W|ZRA|D" 7
  blkrec2 9000 4096 40960 "W|WZ|D" 7; blkrec2 10000 4096 40960 "W|WZ|C" 8
  blkrec2 11000 0 36 "R|PC|D" 7; blkrec2 12000 8 4096 "R|D" 7
} >"$TMP/zone2.blktrace.0"
expect_status 0 "$IOSTORM" import "$TMP/zone2.blktrace.0" -o "$TMP/zone2.ist"
expect_grep '^imported 3 records' "$TMP/out"
expect_grep '^zone_mgmt_skipped 5$' "$TMP/out"
expect_grep '^packet_commands_skipped 1$' "$TMP/out"
expect_grep '^unmatched_completions 0$' "$TMP/out"
export_records "$TMP/zone2.ist" "$TMP/zone2.csv"
expect_eq "$(cut -d, -f1,3,4,5,6 "$TMP/zone2.csv" | tr '\n' ' ')" \
	"t_ns,op,offset,len,lat_ns 0,write,536870912,8192,2000 6000,write_zeroes,2097152,40960,1000 9000,read,4096,4096,0 " \
	"blktrace v8 records"
# zone appends as the kernel traces them: issued (Q, D) at the zone's start,
# completed (C) where the device wrote them (the driver sets the request's
# sector from the drive's answer before the completion is traced).  Two
# appends in flight in zone ZS (16 then 8 sectors; the second written
# first, at the zone's start), one in zone ZS2, a read pending at the
# sector where the first append lands, and one at the zone's start: each
# completion goes to its own I/O.  The append completions matched nothing
# (unmatched_completions 3, the appends released without latency after the
# timeout) or the reads' (a read lost its latency to an append).
{ blkrec2 1000 $ZS 8192 "W|ZA|D" 7; blkrec2 1500 $ZS 4096 "W|ZA|D" 7
  blkrec2 1600 $((ZS + 8)) 4096 "R|D" 7; blkrec2 1700 $ZS 4096 "R|D" 7
  blkrec2 2000 $ZS2 4096 "W|ZA|D" 7
  blkrec2 3000 $ZS 4096 "W|ZA|C" 8; blkrec2 4000 $((ZS2 + 64)) 4096 "W|ZA|C" 8
  blkrec2 5000 $((ZS + 8)) 8192 "W|ZA|C" 8; blkrec2 6000 $((ZS + 8)) 4096 "R|C" 8
  blkrec2 6500 $ZS 4096 "R|C" 8
} >"$TMP/za.blktrace.0"
expect_status 0 "$IOSTORM" import "$TMP/za.blktrace.0" -o "$TMP/za.ist"
expect_grep '^imported 5 records' "$TMP/out"
expect_grep '^unmatched_completions 0$' "$TMP/out"
expect_grep '^incomplete 0$' "$TMP/out"
export_records "$TMP/za.ist" "$TMP/za.csv"
expect_eq "$(cut -d, -f1,3,4,5,6 "$TMP/za.csv" | tr '\n' ' ')" \
	"t_ns,op,offset,len,lat_ns 0,write,536870912,8192,4000 500,write,536870912,4096,1500 600,read,536875008,4096,4400 700,read,536870912,4096,4800 1000,write,1073741824,4096,2000 " \
	"zone appends completed where they were written"
# the same as blkparse prints it ('ZA' in the RWBS), with --event Q too
awk -v zs=$ZS -v zs2=$ZS2 'BEGIN {
	split("1000 D W 0 16|1500 D W 0 8|1600 D R 8 8|1700 D R 0 8|2000 D W2 0 8|3000 C W 0 8|4000 C W2 64 8|5000 C W 8 16|6000 C R 8 8|6500 C R 0 8", ev, "|")
	for (i = 1; i <= 10; i++) {
		split(ev[i], f, " ")
		base = f[3] == "W2" ? zs2 : zs
		rwbs = f[3] == "R" ? "R" : "ZAS"
		for (q = 0; q < 2; q++) {
			if (q && f[2] != "D")
				continue
			printf "  8,0    0 %8d %5d.%09d   600  %s %s %d + %d [x]\n", ++n, 0, f[1] - (q ? 1 : 0), q ? "Q" : f[2], rwbs, base + f[4], f[5]
		}
	}
}' | sort -s -t. -k2,2n >"$TMP/za.txt"
for ev in D Q; do
	expect_status 0 "$IOSTORM" import --event $ev "$TMP/za.txt" -o "$TMP/za-$ev.ist"
	expect_grep '^unmatched_completions 0$' "$TMP/out"
	expect_grep '^incomplete 0$' "$TMP/out"
	export_records "$TMP/za-$ev.ist" "$TMP/za-$ev.csv"
	want="0,write,536870912,8192,4000 500,write,536870912,4096,1500 600,read,536875008,4096,4400 700,read,536870912,4096,4800 1000,write,1073741824,4096,2000 "
	[ $ev = Q ] && want="0,write,536870912,8192,4001 500,write,536870912,4096,1501 600,read,536875008,4096,4401 700,read,536870912,4096,4801 1000,write,1073741824,4096,2001 "
	expect_eq "$(tail -n +2 "$TMP/za-$ev.csv" | cut -d, -f1,3,4,5,6 | tr '\n' ' ')" "$want" "blkparse zone appends, --event $ev"
done
# a v8 record cut short after the first 48 bytes: the trace ends there
{ blkrec2 1000 8 4096 "R|D" 7; blkrec2 2000 16 4096 "R|D" 7; } | head -c 112 >"$TMP/cut2.blktrace.0"
expect_status 0 "$IOSTORM" import "$TMP/cut2.blktrace.0" -o "$TMP/cut2.ist"
expect_grep '^truncated_records 1$' "$TMP/out"
expect_grep '^imported 1 records' "$TMP/out"

# packet commands (TC_PC: SG_IO of smartctl, udev) have no sector: the
# binary importer made reads at sector 0 and flushes of them, the text
# importer skips them (blkparse shows 'D R 36 (12 00 ...)'); both count
# their issues (they were skipped in silence)
PC=512
{ blkrec 1000 0 4096 "R|D" 7; blkrec 2000 0 36 "R|PC|D" 7; blkrec 3000 0 0 "PC|D" 7
  blkrec 4000 0 36 "R|PC|128" 8; } >"$TMP/pc.blktrace.0"
expect_status 0 "$IOSTORM" import "$TMP/pc.blktrace.0" -o "$TMP/pc.ist"
expect_grep "^imported 1 records" "$TMP/out"
expect_grep '^packet_commands_skipped 2$' "$TMP/out"

# flushes have no length: kept
printf 'fio version 3 iolog\n0 /dev/sda add\n0 /dev/sda open\n1 /dev/sda sync\n2 /dev/sda write 0 4096\n' >"$TMP/f.iolog"
expect_status 0 "$IOSTORM" import "$TMP/f.iolog" -o "$TMP/f.ist"
expect_grep '^imported 2 records' "$TMP/out"
printf 't_ns,dev,op,offset,len,lat_ns,stream,txn,flags\n0,0,flush,0,0,0,0,0,\n' >"$TMP/f.csv"
expect_status 0 "$IOSTORM" import "$TMP/f.csv" -o "$TMP/f.ist"
expect_grep '^imported 1 records' "$TMP/out"
printf '1,100,35,0,0\n' >"$TMP/f.vcsv"
expect_status 0 "$IOSTORM" import --format vscsi-csv "$TMP/f.vcsv" -o "$TMP/f.ist"
expect_grep '^imported 1 records' "$TMP/out"
done_ok
