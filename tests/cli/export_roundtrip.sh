#!/bin/sh
# SPDX-License-Identifier: MIT
# export_roundtrip.sh - import -> export -> import round trips: canonical
# CSV exact, fio iolog v3 to fio's microsecond resolution (and replayable
# by fio itself), blkparse-like text exact for sector-aligned traces.
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/import"

# canonical CSV: byte for byte, the records after the metadata and device
# table that convert writes too
expect_status 0 "$IOSTORM" import -q "$D/ist.csv" -o "$TMP/a.ist"
export_records "$TMP/a.ist" "$TMP/a.csv"
cmp -s "$TMP/a.csv" "$D/ist.csv" || fail "canonical CSV round trip is not exact"
ok
expect_status 0 "$IOSTORM" convert "$TMP/a.ist" "$TMP/a-conv.csv"
cmp -s "$TMP/a.csv.full" "$TMP/a-conv.csv" || fail "export -f csv differs from convert"
ok
expect_grep '^# device: 1 size=0 block_size=0 name=dev1$' "$TMP/a.csv.full"
expect_grep '^# meta: source_format=ist-csv$' "$TMP/a.csv.full"

# fio v3 and blkparse: on every fixture (and the real samples when present)
roundtrip() {
	in=$1
	shift
	expect_status 0 "$IOSTORM" import -q "$@" "$in" -o "$TMP/o.ist"
	export_records "$TMP/o.ist" "$TMP/o.csv"
	# canonical CSV of any trace is exact, metadata and device table too
	expect_status 0 "$IOSTORM" import -q -f ist-csv "$TMP/o.csv.full" -o "$TMP/c.ist"
	expect_status 0 "$IOSTORM" export -q -f csv "$TMP/c.ist" -o "$TMP/c.csv"
	cmp -s "$TMP/o.csv.full" "$TMP/c.csv" || fail "$in: CSV round trip differs"
	ok
	# fio v3: times to the microsecond, device names, op, offset, len
	expect_status 0 "$IOSTORM" export -q -f fio "$TMP/o.ist" -o "$TMP/o.fio"
	expect_grep '^fio version 3 iolog$' "$TMP/o.fio"
	expect_status 0 "$IOSTORM" import -q "$TMP/o.fio" -o "$TMP/f.ist"
	export_records "$TMP/f.ist" "$TMP/f.csv"
	expect_status 0 "$IOSTORM" export -q -f fio "$TMP/f.ist" -o "$TMP/f.fio"
	# write-zeroes becomes a write in fio; write_zeroes are rare enough
	# that the fixtures have none
	awk -F, 'NR == 2 { t0 = int($1 / 1000) } NR > 1 { printf "%d,%s,%s,%s,%s\n", int($1 / 1000) - t0, $2, $3, $4, $5 }' "$TMP/o.csv" >"$TMP/o5"
	awk -F, 'NR > 1 { printf "%d,%s,%s,%s,%s\n", $1 / 1000, $2, $3, $4, $5 }' "$TMP/f.csv" >"$TMP/f5"
	sort "$TMP/o5" >"$TMP/o5s"
	sort "$TMP/f5" >"$TMP/f5s"
	cmp -s "$TMP/o5s" "$TMP/f5s" || { diff "$TMP/o5s" "$TMP/f5s" | head >&2; fail "$in: fio round trip differs"; }
	ok
	expect_eq "$(grep ' add$' "$TMP/f.fio")" "$(grep ' add$' "$TMP/o.fio")" "$in: fio device names"
}
for f in fio2.iolog fio3.iolog msr.csv systor.csv spc.csv alibaba.csv tencent.csv disksim.txt mqsim.trace vscsi.bin vscsi.csv blkparse.txt; do
	roundtrip "$D/$f"
done
roundtrip "$D/blkparse.txt" --event Q

# blkparse-like text: Q lines plus C lines carry time, sector, size and
# latency; re-imported with --event Q it gives the same records
expect_status 0 "$IOSTORM" import -q --event Q "$D/blk-le" -o "$TMP/q.ist"
export_records "$TMP/q.ist" "$TMP/q.csv"
expect_status 0 "$IOSTORM" export -q -f blkparse "$TMP/q.ist" -o "$TMP/q.txt"
expect_status 0 "$IOSTORM" import -q --event Q "$TMP/q.txt" -o "$TMP/q2.ist"
export_records "$TMP/q2.ist" "$TMP/q2.csv"
cmp -s "$TMP/q.csv" "$TMP/q2.csv" || { diff "$TMP/q.csv" "$TMP/q2.csv" >&2; fail "blkparse round trip differs"; }
ok
expect_eq "$(grep -c '  C ' "$TMP/q.txt")" "$(awk -F, 'NR > 1 && $6 > 0' "$TMP/q.csv" | wc -l)" "C lines = records with latency"
# two I/Os in flight at one sector (reads of a block, completing in issue
# order; writes, the second issued after the first completed): each
# completion goes to its own issue, first in first out (the second issue
# took the first's place: one latency wrong, the other lost)
expect_status 0 "$IOSTORM" import -q "$D/samesector.csv" -o "$TMP/ss.ist"
expect_status 0 "$IOSTORM" export -q -f blkparse "$TMP/ss.ist" -o "$TMP/ss.txt"
expect_status 0 "$IOSTORM" import --event Q "$TMP/ss.txt" -o "$TMP/ss2.ist"
expect_grep '^unmatched_completions 0$' "$TMP/out"
expect_grep '^incomplete 0$' "$TMP/out"
export_records "$TMP/ss2.ist" "$TMP/ss2.csv"
expect_eq "$(tail -n +2 "$TMP/ss2.csv" | cut -d, -f1-6 | tr '\n' ' ')" \
	"0,0,read,0,4096,300000 100000,0,read,0,4096,400000 150000,0,write,8192,4096,50000 200000,0,write,8192,4096,20000 " \
	"blkparse round trip of I/Os in flight at one sector"
# every flag blkparse's RWBS field carries (F before the op: preflush, F
# after: FUA, A, S, M), flushes and discards, each I/O done before the
# next: the same records back, to the byte
cat >"$TMP/fl.csv" <<'EOF'
t_ns,dev,op,offset,len,lat_ns,stream,txn,flags
0,0,write,0,4096,1000,1,0,preflush
2000,0,write,4096,4096,1000,1,0,fua
4000,0,read,8192,4096,1000,1,0,readahead
6000,0,write,12288,4096,1000,1,0,sync
8000,0,read,16384,4096,1000,1,0,meta
10000,0,write,20480,4096,1000,1,0,sync|fua|meta|preflush
12000,0,flush,0,0,1000,1,0,
14000,0,discard,24576,8192,1000,1,0,
16000,0,write,32768,512,1000,2,0,sync|fua
EOF
expect_status 0 "$IOSTORM" import -q "$TMP/fl.csv" -o "$TMP/fl.ist"
expect_status 0 "$IOSTORM" export -q -f blkparse "$TMP/fl.ist" -o "$TMP/fl.txt"
expect_grep '^  0,0 +0 +1 +0\.000000000 +1  Q  FW 0 \+ 8 \[iostorm\]$' "$TMP/fl.txt"
expect_grep '^  0,0 +0 +[0-9]+ +0\.000011000 +1  C FWFSM 40 \+ 8 \[0\]$' "$TMP/fl.txt"
expect_status 0 "$IOSTORM" import -q --event Q "$TMP/fl.txt" -o "$TMP/fl2.ist"
export_records "$TMP/fl2.ist" "$TMP/fl2.csv"
cmp -s "$TMP/fl.csv" "$TMP/fl2.csv" || { diff "$TMP/fl.csv" "$TMP/fl2.csv" >&2; fail "flags: blkparse round trip differs"; }
ok

if [ -d "$SHARED_DIR/realdata" ]; then
	roundtrip "$SHARED_DIR/realdata/caffeine-snia/msr-cambridge1-sample.csv"
	roundtrip "$SHARED_DIR/realdata/caffeine-snia/tencent-cbs-cloud_storage-sample.bz2"
	roundtrip "$SHARED_DIR/realdata/vscsi-cloudphysics/cloudPhysicsIO.vscsi"
	for ev in Q D; do
		expect_status 0 "$IOSTORM" import -q --event $ev "$SHARED_DIR/realdata/blktrace-bin/sda" -o "$TMP/r.ist"
		export_records "$TMP/r.ist" "$TMP/r.csv"
		expect_status 0 "$IOSTORM" export -q -f blkparse "$TMP/r.ist" -o "$TMP/r.txt"
		expect_status 0 "$IOSTORM" import -q --event Q "$TMP/r.txt" -o "$TMP/r2.ist"
		export_records "$TMP/r2.ist" "$TMP/r2.csv"
		cut -d, -f1,3-8 "$TMP/r.csv" >"$TMP/r7"
		cut -d, -f1,3-8 "$TMP/r2.csv" >"$TMP/r27"
		cmp -s "$TMP/r7" "$TMP/r27" || fail "blktrace $ev: blkparse-text round trip differs"
		ok
	done
else
	skip_part "no shared realdata at $SHARED_DIR: round trips of the real samples"
fi

# fio replays what iostorm exports: every I/O of the trace, on files
if command -v fio >/dev/null; then
	expect_status 0 "$IOSTORM" import -q "$D/msr.csv" -o "$TMP/m.ist"
	for d in 0 1 2; do truncate -s 8G "$TMP/d$d.img"; done
	expect_status 0 "$IOSTORM" export -q -f fio "$TMP/m.ist" -o "$TMP/m.fio" \
		--map "src1_1=$TMP/d0.img" --map "src1_0=$TMP/d1.img" --map "web_2=$TMP/d2.img"
	expect_status 0 fio --name=replay --read_iolog="$TMP/m.fio" --ioengine=psync \
		--replay_no_stall=1 --output-format=json
	# JSON: "read" then "write" then "trim", each with io_bytes and total_ios
	expect_eq "$(grep -E -o '"(io_bytes|total_ios)" : [0-9]+' "$TMP/out" | head -4 | awk '{ printf "%s ", $3 }')" \
		"$(awk -F, '$4 ~ /^[Rr]ead$/ { rb += $6; rn++ } $4 == "Write" { wb += $6; wn++ } END { printf "%d %d %d %d ", rb, rn, wb, wn }' "$D/msr.csv")" \
		"fio replay: read bytes, read I/Os, write bytes, write I/Os"
	# the written data landed where the trace says
	[ "$(du -k "$TMP/d0.img" | cut -f1)" -gt 0 ] || fail "fio wrote nothing to d0.img"
	ok
else
	skip_part "no fio: fio replaying an exported iolog"
fi

# --map naming a device the trace lacks (a typo): an error, not a log
# that keeps the unmapped name
expect_status 0 "$IOSTORM" import -q "$D/msr.csv" -o "$TMP/map.ist"
# --map with csv: accepted and ignored before; a usage error now
expect_status 2 "$IOSTORM" export -f csv "$TMP/map.ist" -o "$TMP/map.csv" --map "src1_1=/dev/x"
expect_eq "$(head -1 "$TMP/err")" "iostorm export: --map applies to fio and blkparse output (csv keeps device indexes)" "export -f csv --map"
[ ! -e "$TMP/map.csv" ] || fail "export -f csv --map: output written"
ok
expect_status 1 "$IOSTORM" export -f fio "$TMP/map.ist" -o "$TMP/map.fio" \
	--map "src1_1=/dev/x" --map "src9_9=/dev/y"
expect_err_line "^iostorm: $TMP/map.ist: --map src9_9: no device of that name in the trace$"
[ ! -e "$TMP/map.fio" ] || fail "--map error: output left behind"
ls "$TMP" | grep -q 'map.fio.exporting-' && fail "--map error: temporary file left behind"
ok
# one device mapped twice: the first --map was used, the second dropped
expect_status 2 "$IOSTORM" export -f fio "$TMP/map.ist" -o "$TMP/map.fio" \
	--map "src1_1=/dev/x" --map "src1_1=/dev/y"
expect_eq "$(cat "$TMP/err")" "iostorm export: --map: device 'src1_1' given twice
Try 'iostorm export --help' for more information." "export --map twice"
[ ! -e "$TMP/map.fio" ] || fail "--map twice: output written"
ok

# a device name fio cannot read back as one file name (white space): an
# error naming the device, not a log that neither fio nor import reads
expect_status 1 "$IOSTORM" export -f fio "$DATA/format/small.ist" -o "$TMP/sp.fio"
expect_err_line "^iostorm: $DATA/format/small.ist: device 2: file name 'dm-0 with spaces': white space cannot stand in a fio iolog \(give --map\)$"
[ ! -e "$TMP/sp.fio" ] || fail "white space: output left behind"
ls "$TMP" | grep -q 'sp.fio.exporting-' && fail "white space: temporary file left behind"
ok
expect_status 1 "$IOSTORM" export -f fio "$DATA/format/small.ist" -o "$TMP/sp.fio" \
	--map "dm-0 with spaces=/tmp/a b"
expect_err_line "^iostorm: $DATA/format/small.ist: device 2: file name '/tmp/a b': white space "
expect_status 0 "$IOSTORM" export -q -f fio "$DATA/format/small.ist" -o "$TMP/sp.fio" \
	--map "dm-0 with spaces=/tmp/a_b"
expect_grep '^0 /tmp/a_b add$' "$TMP/sp.fio"
expect_grep '^2 /tmp/a_b trim 18446744073709547520 4095$' "$TMP/sp.fio"

# a trace not in time order (a recording's may not be; convert keeps the
# order of unsorted.csv): the close lines come after every record of the
# log, not at the last record's time (5 ms, before sdb's write at 9 ms),
# and import gives the same records back, sorted
expect_status 0 "$IOSTORM" convert "$D/unsorted.csv" "$TMP/u.ist"
expect_status 0 "$IOSTORM" export -q -f fio "$TMP/u.ist" -o "$TMP/u.fio"
expect_eq "$(grep ' close$' "$TMP/u.fio" | tr '\n' ' ')" "9000 sda close 9000 sdb close " "fio close lines"
expect_status 0 "$IOSTORM" import -q "$TMP/u.fio" -o "$TMP/u2.ist"
export_records "$TMP/u2.ist" "$TMP/u2.csv"
expect_eq "$(tail -n +2 "$TMP/u2.csv" | cut -d, -f1-5 | tr '\n' ' ')" \
	"0,0,read,0,4096 1000000,0,read,4096,4096 4000000,0,flush,0,0 8000000,1,write,8192,4096 " "unsorted fio round trip"

# errors: not an IST file, unknown format, no output left behind
printf 'not an ist file\n' >"$TMP/junk.ist"
expect_status 1 "$IOSTORM" export -f csv "$TMP/junk.ist" -o "$TMP/j.csv"
expect_err_line "^iostorm: $TMP/junk.ist: "
[ ! -e "$TMP/j.csv" ] || fail "partial export left behind"
expect_status 2 "$IOSTORM" export -f xml "$TMP/a.ist" -o "$TMP/j.csv"
expect_status 2 "$IOSTORM" export "$TMP/a.ist" -o "$TMP/j.csv"
expect_status 2 "$IOSTORM" export -f csv "$TMP/a.ist"
expect_status 0 "$IOSTORM" export --list-formats
expect_grep '^blkparse ' "$TMP/out"
done_ok
