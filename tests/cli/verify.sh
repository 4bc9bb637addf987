#!/bin/sh
# SPDX-License-Identifier: MIT
# verify.sh - iostorm verify: intact, damaged chunks, missing footer, inconsistent footer.
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/format"

awk 'BEGIN { print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags";
	for (i = 0; i < 5000; i++) printf "%d,0,%s,%d,4096,%d,%d,0,\n", i * 1000, (i % 3 ? "read" : "write"), (i * 7919 % 5000) * 4096, 1000 + i % 77, i % 5 }' >"$TMP/t.csv"
expect_status 0 "$IOSTORM" convert -c 1000 "$TMP/t.csv" "$TMP/t.ist"
expect_status 0 "$IOSTORM" verify "$TMP/t.ist"
expect_grep "t.ist: OK: 5 chunks, 5000 records$" "$TMP/out"
[ ! -s "$TMP/err" ] || fail "verify of an intact file printed errors"
ok
expect_status 0 "$IOSTORM" verify -q "$D/small.ist"
[ ! -s "$TMP/out" ] || fail "--quiet printed"
ok

# damage inside chunk 2's data: named with index, offset and reason
cp "$TMP/t.ist" "$TMP/bad.ist"
# chunk offsets from a scan of the chunk magic
offs=$(grep -abo ISTC "$TMP/t.ist" | cut -d: -f1 | tr '\n' ' ')
set -- $offs
[ $# -eq 5 ] || fail "expected 5 chunk magics, found $#"
c2=$3
printf '\125\125\125' | dd of="$TMP/bad.ist" bs=1 seek=$((c2 + 60)) conv=notrunc 2>/dev/null
expect_status 1 "$IOSTORM" verify "$TMP/bad.ist"
expect_err_line "^iostorm: .*/bad.ist: chunk 2 \(byte offset $c2\): checksum mismatch$"
expect_grep "bad.ist: DAMAGED: 1 of 5 chunks damaged \(1000 records lost\), footer present; 4000 records readable$" "$TMP/out"

# the writer died: no footer, every chunk still readable
len=$(wc -c <"$TMP/t.ist")
head -c $(( $5 + 100 )) "$TMP/t.ist" >"$TMP/cut.ist"
expect_status 1 "$IOSTORM" verify "$TMP/cut.ist"
expect_err_line "^iostorm: .*/cut.ist: byte offset [0-9]+: footer: no footer \(writer did not finish\)$"
expect_grep "DAMAGED: 0 of 4 chunks damaged \(0 records lost\), footer missing or damaged; 4000 records readable$" "$TMP/out"

# a footer whose CRC is wrong
cp "$TMP/t.ist" "$TMP/foot.ist"
printf '\001' | dd of="$TMP/foot.ist" bs=1 seek=$((len - 30)) conv=notrunc 2>/dev/null
expect_status 1 "$IOSTORM" verify "$TMP/foot.ist"
expect_err_line "footer: (checksum mismatch|corrupt structure)$"

# damage in the header: named as the header's (it was "FILE: checksum
# mismatch", no position), by every command that opens a trace
cp "$TMP/t.ist" "$TMP/head.ist"
printf '\001' | dd of="$TMP/head.ist" bs=1 seek=16 conv=notrunc 2>/dev/null
for cmd in verify cat info stats; do
	expect_status 1 "$IOSTORM" $cmd "$TMP/head.ist"
	expect_err_line "^iostorm: .*/head.ist: header: checksum mismatch$"
done
# replay, sweep, precondition and export said "FILE: checksum mismatch";
# precondition said it only after filling the target (hours on a drive)
for cmd in "replay --null" "sweep --null -o $TMP/sw.json" \
	   "precondition --null --size 64M -o $TMP/pc.json --workload" "export -f csv -o $TMP/e.csv" \
	   "annotate -o $TMP/a.ist"; do
	expect_status 1 "$IOSTORM" $cmd "$TMP/head.ist"
	expect_err_line "^iostorm: .*/head.ist: header: checksum mismatch$"
	[ ! -s "$TMP/out" ] || { cat "$TMP/out" >&2; fail "$cmd: output before the refusal"; }
	ok
done
[ ! -e "$TMP/sw.json" ] && [ ! -e "$TMP/pc.json" ] && [ ! -e "$TMP/e.csv" ] && [ ! -e "$TMP/a.ist" ] ||
	fail "a result was written for a damaged trace"
ok

expect_status 1 "$IOSTORM" verify "$TMP/t.csv"
expect_err_line "^iostorm: .*/t.csv: not an IST trace file \(bad magic\)$"
expect_status 2 "$IOSTORM" verify
expect_status 0 "$IOSTORM" verify --help
expect_grep '^Usage: iostorm verify' "$TMP/out"
done_ok
