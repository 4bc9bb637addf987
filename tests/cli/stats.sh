#!/bin/sh
# SPDX-License-Identifier: MIT
# stats.sh - `iostorm stats` on hand-made traces with known answers.
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/synth"

# 2 reads (4 KiB, the second sequential), 1 write (8 KiB), 1 flush that
# commits the write's transaction
expect_status 0 "$IOSTORM" stats --json "$D/basic.csv"
expect_grep '"records": 4,' "$TMP/out"
expect_grep '"read": \{"count": 2, "bytes": 8192\}' "$TMP/out"
expect_grep '"read_share": 0.666667,' "$TMP/out"
expect_grep '"mean": 5461.3, "mean_read": 4096.0, "mean_write": 8192.0, "mode": 4096' "$TMP/out"
expect_grep '"sequential_share": 0.333333,' "$TMP/out"
expect_grep '"mean_ns": 1000.0, "cv": 0.0000, "burstiness": -1.0000' "$TMP/out"
expect_grep '"commits": 1, "ios": 2, "flushes": 1, "ios_per_txn": 2.0000, "flushes_per_commit": 1.0000' "$TMP/out"
expect_grep '"working_set_bytes": 16384,' "$TMP/out"
expect_grep '"count": 2, "exact": true' "$TMP/out"
expect_grep '"known": false' "$TMP/out"

# the human table says the same
expect_status 0 "$IOSTORM" stats "$D/basic.csv"
expect_grep '^read share +66.7% of I/Os, 50.0% of bytes' "$TMP/out"
expect_grep '^size +mean 5.3 KiB \(reads 4.0 KiB, writes 8.0 KiB\), mode 4096 B \(66.7%\)' "$TMP/out"
expect_grep '^transactions +1 commits, 2.00 I/Os per txn, 1.000 flushes per commit' "$TMP/out"

# latencies known: queue depth at each arrival (itself included) 1,2,3,1
expect_status 0 "$IOSTORM" stats "$D/qd.csv"
expect_grep '^latency +mean 100 ns, queue depth mean 1.75 max 3' "$TMP/out"
expect_grep '^flags +sync 0, fua 1, dependent 0, flushes 1' "$TMP/out"

# an IST trace: devices from its header, intervals as asked
expect_status 0 "$IOSTORM" synth sql-90-10 --set rate=20000 --duration 2s -o "$TMP/s.ist"
expect_status 0 "$IOSTORM" stats --interval 500ms --json "$TMP/s.ist"
expect_grep '"name": "region", "size": 257698037760' "$TMP/out"
expect_grep '"interval_ns": 500000000,' "$TMP/out"
n=$(grep -c '"t_s"' "$TMP/out")
expect_eq "$n" 4 "intervals of 500 ms in 2 s"
expect_grep '"skew": \{"top1": [0-9.]+, "top10": 0\.(89|90|91)' "$TMP/out"

# errors
expect_status 1 "$IOSTORM" stats "$D/broken.csv"
expect_err_line "^iostorm: $D/broken.csv: line 3: field op: unknown op 'rread'\$"
# a CSV is read as convert and replay read it (it took any first line that
# began with "t_ns", or none, and said "parse error" for any bad line)
printf 't_ns,dev\n0,0,read,0,4096,100,1,0,\n' >"$TMP/hdr.csv"
expect_status 1 "$IOSTORM" stats "$TMP/hdr.csv"
expect_err_line "^iostorm: $TMP/hdr.csv: line 1: expected the header row 't_ns,dev,op,offset,len,lat_ns,stream,txn,flags'\$"
printf '0,0,read,0,4096,100,1,0,\n' >"$TMP/nohdr.csv"
expect_status 1 "$IOSTORM" stats "$TMP/nohdr.csv"
expect_err_line "^iostorm: $TMP/nohdr.csv: line 1: expected the header row "
# convert's CSV: its trace header names the devices, as the IST's does
expect_status 0 "$IOSTORM" stats "$DATA/format/small.ist"
grep '^sda ' "$TMP/out" >"$TMP/ist.row" || fail "no sda row for the IST"
ok
expect_status 0 "$IOSTORM" convert "$DATA/format/small.ist" "$TMP/small.csv"
expect_status 0 "$IOSTORM" stats "$TMP/small.csv"
grep '^sda ' "$TMP/out" >"$TMP/csv.row" || fail "no sda row for its CSV"
ok
cmp -s "$TMP/ist.row" "$TMP/csv.row" || fail "the CSV's sda row differs from the IST's"
ok
expect_status 1 "$IOSTORM" stats "$TMP/missing.ist"
expect_err_line "^iostorm: $TMP/missing.ist: "
printf 'not a trace' >"$TMP/junk.ist"
expect_status 1 "$IOSTORM" stats "$TMP/junk.ist"
expect_err_line "^iostorm: $TMP/junk.ist: "
expect_status 2 "$IOSTORM" stats
expect_status 2 "$IOSTORM" stats --interval 0 "$D/basic.csv"
expect_status 2 "$IOSTORM" stats a b
expect_status 0 "$IOSTORM" stats --help
expect_grep '^Usage: iostorm stats' "$TMP/out"
# a device beyond the 4096 stats keeps: named at its line or record (the
# CSV failed with no message, the IST file as "Cannot allocate memory")
printf 't_ns,dev,op,offset,len,lat_ns,stream,txn,flags\n0,0,read,0,4096,100,1,0,\n10,70000,read,0,4096,100,1,0,\n' \
	>"$TMP/dev.csv"
expect_status 1 "$IOSTORM" stats "$TMP/dev.csv"
expect_err_line "^iostorm: $TMP/dev.csv: line 3: device 70000: stats covers devices 0 to 4095$"
awk 'BEGIN { for (i = 0; i < 4100; i++) printf "1281663720%08d,h,%d,Read,0,4096,100\n", i * 10, i }' \
	>"$TMP/dev.msr"
expect_status 0 "$IOSTORM" import -q --format msr "$TMP/dev.msr" -o "$TMP/dev.ist"
expect_status 1 "$IOSTORM" stats "$TMP/dev.ist"
expect_err_line "^iostorm: $TMP/dev.ist: record 4097: device 4096: stats covers devices 0 to 4095$"
head -4096 "$TMP/dev.msr" >"$TMP/dev4096.msr"
expect_status 0 "$IOSTORM" import -q --format msr "$TMP/dev4096.msr" -o "$TMP/dev.ist"
expect_status 0 "$IOSTORM" stats "$TMP/dev.ist"

# every key --json emits is documented in JSON OUTPUT of iostorm-stats(1)
# and every documented key is emitted (nested keys joined by '.', arrays
# of objects as '[]', an op name as OP, metadata as one key)
if command -v python3 >/dev/null; then
	: >"$TMP/keys"
	for t in "$D/basic.csv" "$D/qd.csv" "$TMP/s.ist"; do
		expect_status 0 "$IOSTORM" stats --json "$t"
		python3 -c '
import json, sys
def walk(v, p):
    if isinstance(v, dict) and p != "metadata":
        for k, x in v.items():
            walk(x, (p + "." if p else "") + ("OP" if p == "ops" else k))
    elif isinstance(v, list) and v and isinstance(v[0], dict):
        for x in v:
            walk(x, p + "[]")
    else:
        print(p)
walk(json.load(open(sys.argv[1])), "")' "$TMP/out" >>"$TMP/keys" || fail "stats --json of $t: not JSON"
	done
	# a device name with a quote, a backslash and a tab: escaped (it
	# was written as it is, and the JSON did not parse)
	printf '# device: 0 size=0 block_size=512 name=a"b\\\\c\\x09d\nt_ns,dev,op,offset,len,lat_ns,stream,txn,flags\n0,0,read,0,4096,0,1,0,\n' >"$TMP/q.csv"
	expect_status 0 "$IOSTORM" stats --json "$TMP/q.csv"
	expect_eq "$(python3 -c 'import json, sys; print(repr(json.load(open(sys.argv[1]))["devices"][0]["name"]))' "$TMP/out")" \
		"'a\"b\\\\c\\td'" "device name in stats --json"
	sort -u "$TMP/keys" >"$TMP/emitted"
	# the tags (.TP / .TQ lines' next line) of the JSON OUTPUT section
	awk '/^\.SH/ { o = ($0 ~ /^\.SH "?JSON OUTPUT/) } o && t { print } { t = o && /^\.T[PQ]/ }' \
		"$top_srcdir/man/iostorm-stats.1" |
		sed -E 's/^\.BI? //; s/\\f[BIRP]//g; s/[ "]//g' | sort -u >"$TMP/documented"
	[ -s "$TMP/documented" ] || fail "no JSON OUTPUT keys in man/iostorm-stats.1"
	d=$(comm -23 "$TMP/emitted" "$TMP/documented" | tr '\n' ' ')
	expect_eq "$d" "" "stats --json keys missing from man/iostorm-stats.1"
	d=$(comm -13 "$TMP/emitted" "$TMP/documented" | tr '\n' ' ')
	expect_eq "$d" "" "keys in man/iostorm-stats.1 that stats --json does not emit"
else
	skip_part "no python3: stats --json keys against iostorm-stats(1)"
fi
done_ok
