#!/bin/sh
# SPDX-License-Identifier: MIT
# replay-csv.sh - a canonical CSV as convert and export write it (comment
# lines with the trace header first) replays as its IST does; a bad line
# is named with its field, as convert names it.  (replay took only a CSV
# whose first line was the header row: convert's output was "not an IST
# trace file (bad magic)", and a bad line a bare "parse error".)
. "$top_srcdir/tests/cli/lib.sh"

expect_status 0 "$IOSTORM" synth sysbench-oltp -d 200ms -o "$TMP/s.ist"
expect_status 0 "$IOSTORM" convert "$TMP/s.ist" "$TMP/s.csv"
expect_grep '^# device: 0 size=[0-9]+ block_size=512 name=mysql$' "$TMP/s.csv"
# the same result but for the command line, the start's wall-clock time,
# the CPU time and the input's path and format; the totals agree, streams
# and transactions included (a CSV's pre-scan counted none)
strip() { grep -Ev '"(command|started|cpu_[a-z_]+|path|format)":' "$1"; }
for t in original closed; do
	expect_status 0 "$IOSTORM" replay "$TMP/s.csv" --null --virtual-time --timing $t \
		--null-latency 50us --quiet --json "$TMP/c.json"
	expect_status 0 "$IOSTORM" replay "$TMP/s.ist" --null --virtual-time --timing $t \
		--null-latency 50us --quiet --json "$TMP/i.json"
	strip "$TMP/c.json" >"$TMP/c.txt"
	strip "$TMP/i.json" >"$TMP/i.txt"
	cmp -s "$TMP/c.txt" "$TMP/i.txt" || { diff "$TMP/c.txt" "$TMP/i.txt" | head -20 >&2; fail "--timing $t: CSV and IST replays differ"; }
	ok
done
expect_grep '"name": "mysql"' "$TMP/c.json"
expect_grep '"profile": "sysbench-oltp"' "$TMP/c.json"

# a bad line: its number and field, from every command that replays
sed '12s/,read,/,rd,/' "$TMP/s.csv" >"$TMP/bad.csv"
grep -q ',rd,' "$TMP/bad.csv" || fail "no bad line made"
ok
for cmd in "replay --null" "sweep --null -o $TMP/sw.json" \
	   "precondition --null --size 64M -o $TMP/pc.json --workload"; do
	expect_status 1 "$IOSTORM" $cmd "$TMP/bad.csv"
	expect_err_line "^iostorm: $TMP/bad.csv: line 12: field op: unknown op 'rd'$"
done
# comment lines and no header row
printf '# meta: a=b\n0,0,read,0,4096,0,0,0,\n' >"$TMP/nohdr.csv"
expect_status 1 "$IOSTORM" replay "$TMP/nohdr.csv" --null
expect_err_line "^iostorm: $TMP/nohdr.csv: line 2: expected the header row 't_ns,dev,op,offset,len,lat_ns,stream,txn,flags'$"
done_ok
