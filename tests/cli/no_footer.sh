#!/bin/sh
# SPDX-License-Identifier: MIT
# no_footer.sh - an IST trace without footer (its writer died, or the file
# was cut short) is still read chunk by chunk by cat, stats, export,
# convert and annotate (and replayed by replay, sweep and precondition),
# but never silently: each warns in one line that the
# trace may be cut short (they printed nothing and exited 0 before, so that
# a half-copied trace exported as if complete).
. "$top_srcdir/tests/cli/lib.sh"

awk 'BEGIN { print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags";
	for (i = 0; i < 5000; i++) printf "%d,0,%s,%d,4096,%d,%d,0,\n", i * 1000, (i % 3 ? "read" : "write"), (i * 7919 % 5000) * 4096, 1000 + i % 77, i % 5 }' >"$TMP/t.csv"
expect_status 0 "$IOSTORM" convert -c 1000 "$TMP/t.csv" "$TMP/t.ist"
# cut after the fourth chunk's start + 100 bytes: 3 complete chunks
offs=$(grep -abo ISTC "$TMP/t.ist" | cut -d: -f1 | tr '\n' ' ')
# shellcheck disable=SC2086
set -- $offs
[ $# -eq 5 ] || fail "expected 5 chunk magics, found $#"
head -c $(( $4 + 100 )) "$TMP/t.ist" >"$TMP/cut.ist"
size=$(stat -c %s "$TMP/cut.ist")
warn="^iostorm: $TMP/cut.ist: byte offset $size: warning: no footer \(writer did not finish\): only its complete chunks are read \(the trace may be cut short\)$"

expect_status 0 "$IOSTORM" cat "$TMP/cut.ist"
expect_err_line "$warn"
expect_eq "$(grep -vc '^#' "$TMP/out")" 3001 "cat: header + 3000 records"
expect_status 0 "$IOSTORM" stats "$TMP/cut.ist"
expect_err_line "$warn"
expect_status 0 "$IOSTORM" export -q -f csv "$TMP/cut.ist" -o "$TMP/e.csv"
expect_err_line "$warn"
expect_eq "$(grep -vc '^#' "$TMP/e.csv")" 3001 "export: header + 3000 records"
expect_status 0 "$IOSTORM" convert "$TMP/cut.ist" "$TMP/c.csv"
expect_err_line "$warn"
expect_status 0 "$IOSTORM" annotate -q "$TMP/cut.ist" -o "$TMP/a.ist"
expect_err_line "$warn"
# replay, sweep and precondition replayed what the cut trace had, silently
expect_status 0 "$IOSTORM" replay "$TMP/cut.ist" --null --timing afap --quiet --json "$TMP/r.json"
expect_err_line "$warn"
expect_grep '"ios": 3000,' "$TMP/r.json"
expect_status 0 "$IOSTORM" sweep "$TMP/cut.ist" --null --threads 1 --qd 1 --rates none --point 10ms \
	--quiet -o "$TMP/s.json"
expect_err_line "$warn"

# a complete trace: no warning
for cmd in cat stats "replay --null --quiet"; do
	# shellcheck disable=SC2086
	expect_status 0 "$IOSTORM" $cmd "$TMP/t.ist"
	[ ! -s "$TMP/err" ] || fail "$cmd of a complete trace warned"
	ok
done
done_ok
