#!/bin/sh
# SPDX-License-Identifier: MIT
# cat.sh - iostorm cat: canonical CSV, filters, seeking, bad input.
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/format"

expect_status 0 "$IOSTORM" cat "$D/small.ist"
cmp -s "$TMP/out" "$D/small.csv" || fail "cat differs from the source CSV"
ok
body() { grep -v '^#' "$D/small.csv" | grep -v '^t_ns'; }
expect_status 0 "$IOSTORM" cat --no-header --op write "$D/small.ist"
expect_eq "$(cat "$TMP/out")" "$(body | awk -F, '$3 == "write"')" "--op write"
expect_status 0 "$IOSTORM" cat -n --dev 1 "$D/small.ist"
expect_eq "$(cat "$TMP/out")" "$(body | awk -F, '$2 == 1')" "--dev 1"
# repeated: the records of any of them (the last one replaced the others)
expect_status 0 "$IOSTORM" cat -n --op read --op flush "$D/small.ist"
expect_eq "$(cat "$TMP/out")" "$(body | awk -F, '$3 == "read" || $3 == "flush"')" "--op read --op flush"
expect_status 0 "$IOSTORM" cat -n --dev 1 --dev 2 "$D/small.ist"
expect_eq "$(cat "$TMP/out")" "$(body | awk -F, '$2 == 1 || $2 == 2')" "--dev 1 --dev 2"
expect_eq "$(wc -l <"$TMP/out")" 4 "records of devices 1 and 2"
expect_status 0 "$IOSTORM" cat -n --from 1000ns --to 3000ns "$D/small.ist"
expect_eq "$(cat "$TMP/out")" "$(body | awk -F, '$1 >= 1000 && $1 < 3000')" "--from/--to"

# seeking with many chunks: --from skips whole chunks through the index
awk 'BEGIN { print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags";
	for (i = 0; i < 20000; i++) printf "%d,0,read,%d,4096,0,0,0,\n", i * 1000, i * 4096 }' >"$TMP/seq.csv"
expect_status 0 "$IOSTORM" convert -c 1000 "$TMP/seq.csv" "$TMP/seq.ist"
expect_status 0 "$IOSTORM" cat -n --from 15.5ms --to 15.503ms "$TMP/seq.ist"
expect_eq "$(cat "$TMP/out")" "15500000,0,read,63488000,4096,0,0,0,
15501000,0,read,63492096,4096,0,0,0,
15502000,0,read,63496192,4096,0,0,0," "--from seek"
# --from at the last record of a chunk (999 us ends chunk 0): that record
# is the first printed, the next chunk's first follows
expect_status 0 "$IOSTORM" cat -n --from 999us --to 1.001ms "$TMP/seq.ist"
expect_eq "$(cat "$TMP/out")" "999000,0,read,4091904,4096,0,0,0,
1000000,0,read,4096000,4096,0,0,0," "--from at a chunk's last record"

# a damaged chunk: one line with chunk and offset, exit 1
cp "$TMP/seq.ist" "$TMP/dmg.ist"
c1=$(grep -abo ISTC "$TMP/seq.ist" | sed -n 2p | cut -d: -f1)
printf '\377\377' | dd of="$TMP/dmg.ist" bs=1 seek=$((c1 + 50)) conv=notrunc 2>/dev/null
expect_status 1 "$IOSTORM" cat "$TMP/dmg.ist"
expect_err_line "^iostorm: .*/dmg.ist: chunk 1 \(byte offset $c1\): checksum mismatch$"

expect_status 2 "$IOSTORM" cat --op frobnicate "$D/small.ist"
expect_status 2 "$IOSTORM" cat --from yesterday "$D/small.ist"
expect_status 2 "$IOSTORM" cat --dev -1 "$D/small.ist"
# swapped bounds: a usage error, not an empty listing
expect_status 2 "$IOSTORM" cat --from 10s --to 5s "$D/small.ist"
expect_grep "^iostorm cat: --to must be later than --from$" "$TMP/err"
[ ! -s "$TMP/out" ] || fail "cat printed records for an empty window"
ok
# a device the trace lacks: a usage error listing its devices (it printed
# nothing and exited 0, as for a device without I/O)
expect_status 2 "$IOSTORM" cat --dev 3 "$D/small.ist"
expect_eq "$(head -1 "$TMP/err")" "iostorm cat: --dev 3: $D/small.ist has no such device; its devices: 0 (sda), 1 (nvme0n1), 2 (dm-0 with spaces)" "cat --dev 3"
[ ! -s "$TMP/out" ] || fail "cat printed something for a missing device"
ok
expect_status 0 "$IOSTORM" cat -n --dev 2 "$D/small.ist"
# many devices: the first 16 and the count
awk 'BEGIN { print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags";
	for (i = 0; i < 20; i++) printf "%d,%d,read,0,4096,0,0,0,\n", i, i }' >"$TMP/many.csv"
expect_status 0 "$IOSTORM" import -q "$TMP/many.csv" -o "$TMP/many.ist"
expect_status 2 "$IOSTORM" cat --dev 20 "$TMP/many.ist"
expect_grep "^iostorm cat: --dev 20: $TMP/many.ist has no such device; its devices: 0 \(dev0\), 1 \(dev1\), .*, 15 \(dev15\), \.\.\. \(20 in all\)$" "$TMP/err"
# converted without '# device:' lines: no table, the records' indexes count
expect_status 0 "$IOSTORM" convert "$TMP/many.csv" "$TMP/bare.ist"
expect_status 0 "$IOSTORM" cat -n --dev 19 "$TMP/bare.ist"
expect_eq "$(cat "$TMP/out")" "19,19,read,0,4096,0,0,0," "cat --dev 19 of a trace without device table"
expect_status 2 "$IOSTORM" cat --dev 20 "$TMP/bare.ist"
expect_grep "^iostorm cat: --dev 20: $TMP/bare.ist has no such device; its devices: 0, 1, 2, .*, 15, \.\.\. \(20 in all\)$" "$TMP/err"
expect_status 2 "$IOSTORM" cat
expect_status 0 "$IOSTORM" cat --help
expect_grep '^Usage: iostorm cat' "$TMP/out"
done_ok
