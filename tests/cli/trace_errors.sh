#!/bin/sh
# SPDX-License-Identifier: MIT
# trace_errors.sh - a trace that cannot be read is refused in the same
# words by every command that reads one: file, position, reason; exit 1.
. "$top_srcdir/tests/cli/lib.sh"

HDR=t_ns,dev,op,offset,len,lat_ns,stream,txn,flags

# the commands that read a trace (IST, or canonical CSV where they take one)
each_reader() {
	for cmd in "replay --null" "sweep --null -o $TMP/sw.json" \
		   "precondition --null --size 64M -o $TMP/pc.json --workload"; do
		expect_status 1 "$IOSTORM" $cmd "$1"
		expect_err_line "$2"
		[ ! -s "$TMP/out" ] || { cat "$TMP/out" >&2; fail "$cmd: output before the refusal"; }
		ok
	done
	[ ! -e "$TMP/sw.json" ] && [ ! -e "$TMP/pc.json" ] || fail "a result for an unreadable trace"
	ok
}

# a CSV trace whose first row is not the header row: it was "not an IST
# trace file (bad magic)"
printf 't_ns,dev,op\n0,0,read\n' >"$TMP/hdr.csv"
each_reader "$TMP/hdr.csv" "^iostorm: .*/hdr.csv: line 1: expected the header row '$HDR'$"
# a bad record: its line
printf '%s\n0,0,read,0,4096,0,0,0,\n0,0,rd,0,4096,0,0,0,\n' "$HDR" >"$TMP/rec.csv"
each_reader "$TMP/rec.csv" "^iostorm: .*/rec.csv: line 3: "

# an empty file: it was "not an IST trace file (bad magic)" (convert: "line
# 0: no header row"; stats of a .csv: a trace of 0 records, exit 0)
: >"$TMP/empty.ist"
each_reader "$TMP/empty.ist" "^iostorm: .*/empty.ist: empty file$"
for cmd in info cat verify stats "export -f csv -o $TMP/e.csv" "annotate -o $TMP/a.ist"; do
	expect_status 1 "$IOSTORM" $cmd "$TMP/empty.ist"
	expect_err_line "^iostorm: .*/empty.ist: empty file$"
done
expect_status 1 "$IOSTORM" convert "$TMP/empty.ist" "$TMP/c.csv"
expect_err_line "^iostorm: .*/empty.ist: empty file$"
[ ! -e "$TMP/e.csv" ] && [ ! -e "$TMP/a.ist" ] && [ ! -e "$TMP/c.csv" ] ||
	fail "output written for an empty trace"
ok
expect_status 1 "$IOSTORM" convert - "$TMP/c.ist" </dev/null
expect_err_line "^iostorm: stdin: empty file$"
[ ! -e "$TMP/c.ist" ] || fail "convert wrote an empty input"
ok
: >"$TMP/empty.csv"
for cmd in stats "replay --null"; do
	expect_status 1 "$IOSTORM" $cmd "$TMP/empty.csv"
	expect_err_line "^iostorm: .*/empty.csv: empty file$"
done
expect_status 1 "$IOSTORM" convert "$TMP/empty.csv" "$TMP/c.ist"
expect_err_line "^iostorm: .*/empty.csv: empty file$"

done_ok
