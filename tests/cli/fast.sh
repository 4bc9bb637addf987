#!/bin/sh
# SPDX-License-Identifier: MIT
# fast.sh - `--fast` (the IST writer's fast effort) on every command that
# writes IST but record, and import's `--fastest`: the file differs from the default writer's where
# deflate or ARITH won, holds the same records and totals, verifies, and
# the option is refused where it cannot apply.
. "$top_srcdir/tests/cli/lib.sh"
G="$DATA/format/synth-4000.ist"   # deflate, ANS and ARITH columns
# the default writer's bytes: its deflated columns are libdeflate's when
# the build has it (see ist_golden.sh)
grep -q '^#define HAVE_LIBDEFLATE 1' "$top_builddir/config.h" &&
	G="$DATA/format/synth-4000-libdeflate.ist"
I="$DATA/import"

# info --json without what differs between the files
drop='s/"file":"[^"]*",//; s/"file_size":[0-9]*,//; s/,"bytes_per_record":[0-9.]*//'
# same_records A.ist B.ist WHAT : every record and the footer totals alike
same_records() {
	expect_status 0 "$IOSTORM" cat "$1"
	mv "$TMP/out" "$TMP/a.csv"
	expect_status 0 "$IOSTORM" cat "$2"
	cmp -s "$TMP/a.csv" "$TMP/out" || fail "$3: records differ"
	[ -s "$TMP/a.csv" ] || fail "$3: no records"
	expect_status 0 "$IOSTORM" info --json "$1"
	sed "$drop" "$TMP/out" >"$TMP/a.json"
	expect_status 0 "$IOSTORM" info --json "$2"
	sed "$drop" "$TMP/out" >"$TMP/b.json"
	cmp -s "$TMP/a.json" "$TMP/b.json" || { diff "$TMP/a.json" "$TMP/b.json" >&2; fail "$3: info differs"; }
	ok
	expect_status 0 "$IOSTORM" verify "$2"
}

# convert: IST -> IST, CSV -> IST; the default writer's bytes unchanged
expect_status 0 "$IOSTORM" convert "$G" "$TMP/d.ist"
cmp -s "$G" "$TMP/d.ist" || fail "convert without --fast no longer writes the golden's bytes"
ok
expect_status 0 "$IOSTORM" convert --fast "$G" "$TMP/f.ist"
cmp -s "$G" "$TMP/f.ist" && fail "convert --fast wrote the default writer's bytes"
ok
same_records "$G" "$TMP/f.ist" "convert --fast"
expect_status 0 "$IOSTORM" convert "$G" "$TMP/g.csv"
expect_status 0 "$IOSTORM" convert --fast "$TMP/g.csv" "$TMP/f2.ist"
cmp -s "$TMP/f.ist" "$TMP/f2.ist" || fail "convert --fast from CSV and from IST differ"
ok
expect_status 0 "$IOSTORM" convert "$TMP/f2.ist" "$TMP/back.csv"
cmp -s "$TMP/g.csv" "$TMP/back.csv" || fail "CSV -> fast IST -> CSV differs"
ok
# to stdout, and with a chunk size
expect_status 0 sh -c "'$IOSTORM' convert --fast --to ist '$G' - >'$TMP/f3.ist'"
cmp -s "$TMP/f.ist" "$TMP/f3.ist" || fail "convert --fast to stdout differs"
ok
expect_status 0 "$IOSTORM" convert -c 1000 "$G" "$TMP/d4.ist"
expect_status 0 "$IOSTORM" convert --fast -c 1000 "$G" "$TMP/f4.ist"
same_records "$TMP/d4.ist" "$TMP/f4.ist" "convert --fast -c 1000"
# CSV output: --fast would change nothing, a usage error (as --level)
expect_status 2 "$IOSTORM" convert --fast "$G" "$TMP/g2.csv"
[ ! -e "$TMP/g2.csv" ] || fail "convert --fast to CSV wrote an output"
ok
# the fast writer deflates at level 1 (and seldom): no level
expect_status 2 "$IOSTORM" convert --fast --level 6 "$G" "$TMP/x.ist"
expect_grep "^iostorm convert: --level and --fast exclude each other$" "$TMP/err"
[ ! -e "$TMP/x.ist" ] || fail "convert --fast --level left a file"
ok

# import: binary and text inputs
for f in vscsi.bin msr.csv tencent.csv; do
	expect_status 0 "$IOSTORM" import "$I/$f" -o "$TMP/d-$f.ist"
	expect_status 0 "$IOSTORM" import --fast "$I/$f" -o "$TMP/f-$f.ist"
	expect_grep "^imported [0-9]+ records from 1 file " "$TMP/out"
	same_records "$TMP/d-$f.ist" "$TMP/f-$f.ist" "import --fast $f"
done
expect_status 2 "$IOSTORM" import --fast --check "$I/msr.csv"
expect_grep "^iostorm import: --check writes nothing: no --fast$" "$TMP/err"

# import --fastest: the same records and totals as the default, a valid
# file (verify) of the same format version, larger than --fast's where
# ANS won, and deterministic
for f in vscsi.bin msr.csv tencent.csv; do
	expect_status 0 "$IOSTORM" import --fastest "$I/$f" -o "$TMP/x-$f.ist"
	expect_grep "^imported [0-9]+ records from 1 file " "$TMP/out"
	same_records "$TMP/d-$f.ist" "$TMP/x-$f.ist" "import --fastest $f"
	head -c 12 "$TMP/d-$f.ist" >"$TMP/vd"
	head -c 12 "$TMP/x-$f.ist" >"$TMP/vx"
	cmp -s "$TMP/vd" "$TMP/vx" || fail "import --fastest $f: another magic or format version"
	expect_status 0 "$IOSTORM" import --fastest "$I/$f" -o "$TMP/x2-$f.ist"
	cmp -s "$TMP/x-$f.ist" "$TMP/x2-$f.ist" || fail "import --fastest $f is not deterministic"
	ok
done
# the fixtures are a few records, plain in every writer: a larger input
# (Tencent's columns, 20000 records over 40 volumes) is where the default
# and --fast entropy-code columns and --fastest does not
awk 'BEGIN { srand(7); for (i = 0; i < 20000; i++) printf "%d,%d,%d,%d,%d\n",
	1500000000 + int(i / 9), int(rand() * 2^30), 8 * (1 + int(rand() * 4)),
	rand() < 0.3, 1000 + int(rand() * 40) }' >"$TMP/big.csv"
for e in "" --fast --fastest; do
	expect_status 0 "$IOSTORM" import $e --format tencent "$TMP/big.csv" -o "$TMP/big$e.ist"
done
same_records "$TMP/big.ist" "$TMP/big--fastest.ist" "import --fastest big.csv"
[ "$(stat -c %s "$TMP/big--fastest.ist")" -gt "$(stat -c %s "$TMP/big--fast.ist")" ] ||
	fail "import --fastest not larger than --fast's"
[ "$(stat -c %s "$TMP/big--fast.ist")" -gt "$(stat -c %s "$TMP/big.ist")" ] ||
	fail "import --fast not larger than the default's"
ok
# one effort at a time, in either order, and nothing written
expect_status 2 "$IOSTORM" import --fast --fastest "$I/msr.csv" -o "$TMP/ff.ist"
expect_grep "^iostorm import: --fast and --fastest exclude each other$" "$TMP/err"
expect_status 2 "$IOSTORM" import --fastest --fast "$I/msr.csv" -o "$TMP/ff.ist"
expect_grep "^iostorm import: --fast and --fastest exclude each other$" "$TMP/err"
[ ! -e "$TMP/ff.ist" ] || fail "import --fast --fastest wrote an output"
ok
expect_status 0 "$IOSTORM" import --fastest --fastest "$I/msr.csv" -o "$TMP/ff.ist"
cmp -s "$TMP/x-msr.csv.ist" "$TMP/ff.ist" || fail "import --fastest --fastest differs from --fastest"
ok
expect_status 2 "$IOSTORM" import --fastest --check "$I/msr.csv"
expect_grep "^iostorm import: --check writes nothing: no --fastest$" "$TMP/err"
# a sort that spills runs (written fast whatever the option) gives the
# same records as one that does not
awk 'BEGIN { for (i = 0; i < 300; i++) printf "%d,%d,8,%d,%d\n",
	1500000000 + (i % 50 < 25 ? i : 300 - i), i * 8, i % 2, 1000 + i % 3 }' >"$TMP/ten.csv"
expect_status 0 "$IOSTORM" import --format tencent "$TMP/ten.csv" -o "$TMP/w0.ist"
expect_grep "^reordered [0-9]+ records \(sort runs spilled: 0\)" "$TMP/out"
expect_status 0 "$IOSTORM" import --format tencent --sort-window 16 "$TMP/ten.csv" -o "$TMP/w16.ist"
expect_grep "^reordered [0-9]+ records \(sort runs spilled: [1-9][0-9]*\)" "$TMP/out"
same_records "$TMP/w0.ist" "$TMP/w16.ist" "import --sort-window 16"

# synth (tpcc: its 2 s are written differently by the two efforts;
# sysbench-oltp's no longer are, since the default writer keeps a large
# column's deflate only where it beats ANS by 1/8)
expect_status 0 "$IOSTORM" synth tpcc --duration 2s -o "$TMP/s-d.ist"
expect_status 0 "$IOSTORM" synth tpcc --duration 2s --fast -o "$TMP/s-f.ist"
cmp -s "$TMP/s-d.ist" "$TMP/s-f.ist" && fail "synth --fast wrote the default writer's bytes"
ok
same_records "$TMP/s-d.ist" "$TMP/s-f.ist" "synth --fast"
expect_status 0 "$IOSTORM" synth tpcc --duration 2s --fast -o "$TMP/s-f2.ist"
cmp -s "$TMP/s-f.ist" "$TMP/s-f2.ist" || fail "synth --fast is not deterministic"
ok
expect_status 2 "$IOSTORM" synth sysbench-oltp --fast --discard
expect_grep "^iostorm synth: --discard writes nothing: no --fast$" "$TMP/err"

# annotate
expect_status 0 "$IOSTORM" annotate "$TMP/s-d.ist" -o "$TMP/a-d.ist"
expect_status 0 "$IOSTORM" annotate --fast "$TMP/s-d.ist" -o "$TMP/a-f.ist"
same_records "$TMP/a-d.ist" "$TMP/a-f.ist" "annotate --fast"
done_ok
