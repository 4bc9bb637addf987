#!/bin/sh
# SPDX-License-Identifier: MIT
# import_compressed.sh - gzip, bzip2, xz and zstd inputs (detected by magic,
# whatever the file name) import to the same records as the plain file;
# concatenated members are read on; damaged streams are errors.
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/import"

expect_status 0 "$IOSTORM" import -q "$D/msr.csv" -o "$TMP/plain.ist"
export_records "$TMP/plain.ist" "$TMP/plain.csv"
for z in gzip bzip2 xz zstd; do
	command -v $z >/dev/null || skip "no $z"
	$z -c <"$D/msr.csv" >"$TMP/in.$z.data"
	expect_status 0 "$IOSTORM" import -q "$TMP/in.$z.data" -o "$TMP/z.ist"
	export_records "$TMP/z.ist" "$TMP/z.csv"
	cmp -s "$TMP/z.csv" "$TMP/plain.csv" || fail "$z input differs"
	ok
	# two concatenated streams are one input of twice the records
	cat "$TMP/in.$z.data" "$TMP/in.$z.data" >"$TMP/two.$z"
	expect_status 0 "$IOSTORM" import "$TMP/two.$z" -o "$TMP/two.ist"
	expect_grep '^imported 8 records' "$TMP/out"
	# cut short: an error naming the codec, never a silent short trace
	size=$(stat -c %s "$TMP/in.$z.data")
	head -c $((size - 6)) "$TMP/in.$z.data" >"$TMP/cut.$z"
	expect_status 1 "$IOSTORM" import "$TMP/cut.$z" -o "$TMP/cut.ist"
	# the position is in the compressed file: a truncated stream ends
	# at its length (the decompressed offset was 0 for a small file)
	expect_err_line "^iostorm: $TMP/cut.$z: compressed byte offset $((size - 6)): $z data truncated$"
	[ ! -e "$TMP/cut.ist" ] || fail "$z: output left behind"
done
# a damaged gzip body
gzip -c <"$D/tencent.csv" >"$TMP/bad.gz"
printf 'XXXXXXXX' | dd of="$TMP/bad.gz" bs=1 seek=12 conv=notrunc 2>/dev/null
expect_status 1 "$IOSTORM" import "$TMP/bad.gz" -o "$TMP/bad.ist"
expect_err_line "^iostorm: $TMP/bad.gz: compressed byte offset [1-9][0-9]*: gzip data corrupt$"
# a long stream cut in half: where it ends, not where the last line began
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "%d,%d,8,%d,1\n", i, i * 8, i % 2 }' |
	gzip -c >"$TMP/long.gz"
size=$(stat -c %s "$TMP/long.gz")
head -c $((size / 2)) "$TMP/long.gz" >"$TMP/half.gz"
expect_status 1 "$IOSTORM" import -f tencent "$TMP/half.gz" -o "$TMP/half.ist"
expect_err_line "^iostorm: $TMP/half.gz: compressed byte offset $((size / 2)): gzip data truncated$"
[ ! -e "$TMP/half.ist" ] || fail "truncated gzip: output left behind"
ls "$TMP" | grep -q importing && fail "temporary file left behind"
ok
# a zstd block damaged at its 11th byte (byte 20 of the file): where the
# damaged block starts (byte 9, after the frame and block headers), not 0
# (the decoder never says how far it read before an error)
expect_status 1 "$IOSTORM" import "$D/msr-bad.zst" -o "$TMP/zbad.ist"
expect_err_line "^iostorm: $D/msr-bad.zst: compressed byte offset 9: zstd data corrupt$"
[ ! -e "$TMP/zbad.ist" ] || fail "damaged zstd: output left behind"
# the real samples are distributed compressed too (see import_real_*.sh)
done_ok
