#!/bin/sh
# SPDX-License-Identifier: MIT
# info.sh - iostorm info: footer totals, JSON, a file without footer, bad input.
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/format"
SYNTH12_CKSUM="2376959931 107255" # cksum of main's (IST 1.2) convert of synth-1.2.ist

expect_status 0 "$IOSTORM" info "$D/small.ist"
expect_grep '^file: .*small.ist \(504 B, IST 1\.4\)$' "$TMP/out"
expect_grep '^footer: +yes$' "$TMP/out"
expect_grep '^  note = tab.and back\\slash, equals = sign$' "$TMP/out"
# a block size of 0 is unknown, as a size of 0 (it printed "block size 0")
expect_grep '^  2: dm-0 with spaces  size 123 B  block size unknown  highest offset used ' "$TMP/out"
expect_grep '^records: +9 in 1 chunks$' "$TMP/out"
expect_grep '^  write_zeroes +1 \( 11\.1%\)  4\.0 GiB$' "$TMP/out"
expect_grep '^streams: +6$' "$TMP/out"
expect_grep '^transactions: +5$' "$TMP/out"
expect_grep '^out of order: +2$' "$TMP/out"
expect_grep '^on disk: +56\.00 bytes per record$' "$TMP/out"

# a file of IST 1.0 (before footer metadata) reads as it did
expect_status 0 "$IOSTORM" info "$D/small-1.0.ist"
expect_grep '^file: .*small-1\.0\.ist \(508 B, IST 1\.0\)$' "$TMP/out"
expect_grep '^footer: +yes$' "$TMP/out"
expect_grep '^  2: dm-0 with spaces  size 123 B  block size unknown .*B$' "$TMP/out"
expect_grep '^records: +9 in 1 chunks$' "$TMP/out"
expect_status 0 "$IOSTORM" cat "$D/small-1.0.ist"
cmp -s "$TMP/out" "$D/small.csv" || fail "small-1.0.ist no longer reads as small.csv"
ok

# files of IST 1.2 (written by the 1.2 writer, before the ARITH storage)
# read as they did: small-1.2.ist as small.csv, synth-1.2.ist (2000
# records of \`ist_speed --synth 2000\`: ANS, deflate, DICT, SEQ columns)
# as the CSV the 1.2 reader gave, and it re-encodes to the same records
expect_status 0 "$IOSTORM" info "$D/small-1.2.ist"
expect_grep '^file: .*small-1\.2\.ist \(510 B, IST 1\.2\)$' "$TMP/out"
expect_status 0 "$IOSTORM" cat "$D/small-1.2.ist"
cmp -s "$TMP/out" "$D/small.csv" || fail "small-1.2.ist no longer reads as small.csv"
expect_status 0 "$IOSTORM" convert "$D/synth-1.2.ist" "$TMP/synth.csv"
sum=$(cksum <"$TMP/synth.csv")
[ "$sum" = "$SYNTH12_CKSUM" ] || fail "synth-1.2.ist reads differently: cksum $sum"
expect_status 0 "$IOSTORM" convert "$TMP/synth.csv" "$TMP/synth.ist"
expect_status 0 "$IOSTORM" convert "$TMP/synth.ist" "$TMP/synth2.csv"
cmp -s "$TMP/synth.csv" "$TMP/synth2.csv" || fail "synth-1.2 records do not round-trip through IST 1.4"
ok

expect_status 0 "$IOSTORM" info --json "$D/small.ist"
expect_grep '"records":9,' "$TMP/out"
expect_grep '"write_zeroes":\{"count":1,"bytes":4294967295\}' "$TMP/out"
if command -v python3 >/dev/null; then
	python3 -m json.tool "$TMP/out" >/dev/null || fail "info --json is not JSON"
	ok
else
	skip_part "no python3: info --json is JSON"
fi

# a file whose writer died (no footer): said so, totals from a scan
len=$(wc -c <"$D/small.ist")
head -c $((len - 30)) "$D/small.ist" >"$TMP/nofooter.ist"
expect_status 0 "$IOSTORM" info "$TMP/nofooter.ist"
expect_grep '^footer: +NONE \(no footer \(writer did not finish\)\): totals below come from a scan' "$TMP/out"
expect_grep '^records: +9 in 1 chunks$' "$TMP/out"
expect_status 0 "$IOSTORM" info --json "$TMP/nofooter.ist"
expect_grep '"footer":false,"footer_error":"no footer' "$TMP/out"

# bad input
printf 'not a trace\n' >"$TMP/text.ist"
expect_status 1 "$IOSTORM" info "$TMP/text.ist"
expect_err_line "^iostorm: .*/text.ist: not an IST trace file \(bad magic\)$"
cp "$D/small.ist" "$TMP/v9.ist"
printf '\011' | dd of="$TMP/v9.ist" bs=1 seek=8 conv=notrunc 2>/dev/null
expect_status 1 "$IOSTORM" info "$TMP/v9.ist"
expect_err_line "^iostorm: .*/v9.ist: header: unsupported IST major version$"
expect_status 1 "$IOSTORM" info "$TMP/none.ist"
expect_err_line "No such file or directory$"
expect_status 2 "$IOSTORM" info
expect_status 2 "$IOSTORM" info a b
expect_status 0 "$IOSTORM" info --help
expect_grep '^Usage: iostorm info' "$TMP/out"
done_ok
