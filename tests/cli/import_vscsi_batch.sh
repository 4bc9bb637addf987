#!/bin/sh
# SPDX-License-Identifier: MIT
# import_vscsi_batch.sh - a vscsi trace longer than the sort window and the
# stream's buffer, parsed many records at a time straight into the sort
# window (next_batch): the same records as the CSV form of the same trace
# (parsed one line at a time), ties kept in input order, a late record
# after a long ordered run sorted in and counted, and bad records in the
# middle of a buffer reported at their own record and byte offset, or
# skipped with --skip-bad; every SCSI opcode read, in both forms, with
# its op, and opcodes past a byte whose low byte is one of them refused.
. "$top_srcdir/tests/cli/lib.sh"
command -v perl >/dev/null || skip "no perl"
N=200000
# gen FILE.bin FILE.csv [BAD-SPEC]: record i at second i/4 (four equal
# times each), record 150000 at the time of record 149000 (late, within
# the window); BAD-SPEC "i:what,..." spoils records (op, ver, zero, wrap)
gen() {
	perl -e '
		my ($n, $bin, $csv, $bad) = @ARGV; my %bad;
		for (split /,/, $bad // "") { my ($i, $w) = split /:/; $bad{$i} = $w; }
		open my $b, ">:raw", $bin or die; open my $c, ">", $csv or die;
		print $c "version,time,op,size,lbn\n";
		for my $i (0 .. $n - 1) {
			my $s = int(($i == 150000 ? 149000 : $i) / 4);
			my ($cmd, $ver, $len, $lbn) = ($i % 3 ? 0x2a : 0x28, 0x100, 512 * (1 + $i % 16), $i * 7);
			my $w = $bad{$i} // "";
			$cmd = 0x12 if $w eq "op"; $ver = 0x200 if $w eq "ver";
			$len = 0 if $w eq "zero"; $lbn = 36028797018963967 if $w eq "wrap";
			print $b pack("VVVvvQ<Q<", $i, $len, 1, $cmd, $ver, $lbn, $s * 1000000);
			printf $c "1,%d,%x,%d,%d\n", $s, $cmd, $len, $lbn unless $w;
		}' "$N" "$1" "$2" "${3:-}"
}

gen "$TMP/v.bin" "$TMP/v.csv"
for fast in "" --fast; do
	expect_status 0 "$IOSTORM" import $fast --format vscsi "$TMP/v.bin" -o "$TMP/b.ist"
	expect_grep "^imported $N records from 1 file \(format vscsi\)" "$TMP/out"
	expect_grep '^reordered 1 records \(sort runs spilled: 0\)$' "$TMP/out"
	expect_status 0 "$IOSTORM" import $fast --format vscsi-csv "$TMP/v.csv" -o "$TMP/c.ist"
	expect_grep '^reordered 1 records \(sort runs spilled: 0\)$' "$TMP/out"
	expect_status 0 "$IOSTORM" export -q -f csv "$TMP/b.ist" -o "$TMP/b.csv"
	sed -i '/^# /d' "$TMP/b.csv"
	expect_status 0 "$IOSTORM" export -q -f csv "$TMP/c.ist" -o "$TMP/c.csv"
	sed -i '/^# /d' "$TMP/c.csv"
	cmp -s "$TMP/b.csv" "$TMP/c.csv" || { diff "$TMP/b.csv" "$TMP/c.csv" | head >&2; fail "vscsi$fast: binary and CSV imports differ"; }
	ok
done
# ties in input order (the offsets name the records), the late record
# (lbn 150000 * 7) right after record 149003, the last of its second
expect_eq "$(sed -n '2,5p' "$TMP/b.csv" | cut -d, -f4 | tr '\n' ' ')" "0 3584 7168 10752 " "records of the first second"
expect_eq "$(grep -n ",$((150000 * 7 * 512))," "$TMP/b.csv" | cut -d: -f1)" "$((149004 + 2))" "the late record's place"

# bad records far into the input, mid-buffer: the first one stops the
# import at its own record and byte offset; --skip-bad steps over all
gen "$TMP/x.bin" "$TMP/x.csv" "70001:op,80001:zero,90001:ver,100001:wrap,140000:op"
expect_status 1 "$IOSTORM" import -q --format vscsi "$TMP/x.bin" -o "$TMP/x.ist"
expect_err_line "^iostorm: $TMP/x.bin: record 70002 \(byte offset $((70001 * 32))\): unknown SCSI opcode 0x12$"
[ ! -e "$TMP/x.ist" ] || fail "output left behind"
expect_status 1 "$IOSTORM" import -q --format vscsi --skip-bad 4 "$TMP/x.bin" -o "$TMP/x.ist"
expect_err_line "^iostorm: $TMP/x.bin: record 140001 \(byte offset $((140000 * 32))\): unknown SCSI opcode 0x12$"
expect_status 0 "$IOSTORM" import --format vscsi --skip-bad 5 "$TMP/x.bin" -o "$TMP/x.ist"
expect_grep "^skipped 5 bad records, first at: $TMP/x.bin: record 70002 \(byte offset $((70001 * 32))\), $TMP/x.bin: byte offset $((80001 * 32)), $TMP/x.bin: record 90002 \(byte offset $((90001 * 32))\), $TMP/x.bin: byte offset $((100001 * 32)), $TMP/x.bin: record 140001 \(byte offset $((140000 * 32))\)$" "$TMP/out"
expect_grep "^imported $((N - 5)) records" "$TMP/out"
# --check parses the same way (no sort window): the same positions, counts
expect_status 1 "$IOSTORM" import --check --format vscsi "$TMP/x.bin"
expect_err_line "^iostorm: $TMP/x.bin: record 70002 \(byte offset $((70001 * 32))\): unknown SCSI opcode 0x12$"
expect_status 0 "$IOSTORM" import --check --format vscsi --skip-bad 5 "$TMP/x.bin"
expect_grep "^skipped 5 bad records, first at: $TMP/x.bin: record 70002 \(byte offset $((70001 * 32))\), $TMP/x.bin: byte offset $((80001 * 32)), " "$TMP/out"
expect_grep "^checked $((N - 5)) records in 1 file \(format vscsi\)" "$TMP/out"
expect_grep '^reordered 1 records' "$TMP/out"
expect_status 0 "$IOSTORM" import -q --format vscsi-csv "$TMP/x.csv" -o "$TMP/y.ist"
expect_status 0 "$IOSTORM" export -q -f csv "$TMP/x.ist" -o "$TMP/x.out"
sed -i '/^# /d' "$TMP/x.out"
expect_status 0 "$IOSTORM" export -q -f csv "$TMP/y.ist" -o "$TMP/y.out"
sed -i '/^# /d' "$TMP/y.out"
cmp -s "$TMP/x.out" "$TMP/y.out" || fail "vscsi: records after skipping differ from the CSV's"
ok
# the opcodes read (READ 6/10/12/16, WRITE 6/10/12/16, SYNCHRONIZE CACHE
# 10/16, UNMAP, WRITE SAME 10/16), 200 rounds of the 13 (the batch parse
# after the first record), in binary and in CSV; then opcodes 0x128
# (whose low byte is READ(10)'s) and 0xff in the batch, refused
perl -e '
	my @c = (0x08, 0x28, 0xa8, 0x88, 0x0a, 0x2a, 0xaa, 0x8a, 0x35, 0x91, 0x42, 0x41, 0x93);
	my ($bin, $csv) = @ARGV;
	open my $b, ">:raw", $bin or die; open my $c, ">", $csv or die;
	print $c "version,time,op,size,lbn\n";
	for my $i (0 .. 2599) {
		my $cmd = $c[$i % 13];
		print $b pack("VVVvvQ<Q<", $i, 4096, 1, $cmd, 0x100, $i * 8, $i * 1000);
		printf $c "1,%d,%x,4096,%d\n", $i * 1000, $cmd, $i * 8;
	}' "$TMP/o.bin" "$TMP/o.csv"
ops13="read read read read write write write write flush flush discard write_zeroes write_zeroes "
for f in vscsi:o.bin vscsi-csv:o.csv; do
	expect_status 0 "$IOSTORM" import -q --format "${f%%:*}" "$TMP/${f#*:}" -o "$TMP/o.ist"
	expect_status 0 "$IOSTORM" export -q -f csv "$TMP/o.ist" -o "$TMP/o.out"
	sed -i '/^# /d' "$TMP/o.out"
	expect_eq "$(sed -n '2,14p' "$TMP/o.out" | cut -d, -f3 | tr '\n' ' ')" "$ops13" "${f%%:*}: ops of the 13 opcodes"
	expect_eq "$(sed -n '2597,2601p' "$TMP/o.out" | cut -d, -f3 | tr '\n' ' ')" "flush flush discard write_zeroes write_zeroes " "${f%%:*}: ops of the last records"
done
for bad in 296 255; do
	perl -e '
		my ($bin, $bad) = @ARGV; open my $b, ">:raw", $bin or die;
		for my $i (0 .. 2599) {
			print $b pack("VVVvvQ<Q<", $i, 4096, 1, $i == 2000 ? $bad : 0x28, 0x100, $i * 8, $i * 1000);
		}' "$TMP/p.bin" "$bad"
	expect_status 1 "$IOSTORM" import -q --format vscsi "$TMP/p.bin" -o "$TMP/p.ist"
	expect_err_line "^iostorm: $TMP/p.bin: record 2001 \(byte offset $((2000 * 32))\): unknown SCSI opcode $(printf '0x%02x' "$bad")$"
done
done_ok
