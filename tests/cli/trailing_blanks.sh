#!/bin/sh
# SPDX-License-Identifier: MIT
# trailing_blanks.sh - the tables of replay, compare and stats end their
# lines with their last figure, not with blanks: replay's op header ended
# in ten spaces (an empty tenth column), compare's figures without a
# verdict in the padding of the CI column, stats's op mix in two spaces
# (a diff or a paste into a ticket showed them).
. "$top_srcdir/tests/cli/lib.sh"

T="$top_srcdir/traces/tpcc.ist"
R="$DATA/report"

# blanks WHAT : no line of $TMP/out ends in a blank
blanks() {
	n=$(grep -c '[[:blank:]]$' "$TMP/out")
	[ "$n" -eq 0 ] || { grep -n '[[:blank:]]$' "$TMP/out" | cat -A >&2; fail "$1: $n lines end in blanks"; }
	ok
}
expect_status 0 "$IOSTORM" replay "$T" --null --timing afap
expect_grep '^  op              I/Os      IOPS      MB/s     bytes    errors$' "$TMP/out"
blanks "replay"
expect_status 0 "$IOSTORM" compare "$R/base.json" "$R/improve.json"
expect_grep '^Max latency ' "$TMP/out"
blanks "compare"
expect_status 0 "$IOSTORM" stats "$T"
expect_grep '^op mix           read 7868 \(61\.5 MiB\)  write 8207 \(57\.5 MiB\)$' "$TMP/out"
blanks "stats"
done_ok
