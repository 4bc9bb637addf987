#!/bin/sh
# SPDX-License-Identifier: MIT
# synth_samples.sh - the sample traces in traces/ are what traces/regen.sh
# makes today (bit for bit), each under 1 MB, and characterize as expected.
. "$top_srcdir/tests/cli/lib.sh"
T="$top_srcdir/traces"

expect_status 0 "$T/regen.sh" "$IOSTORM" "$TMP"
for f in "$T"/*.ist; do
	name=${f##*/}
	cmp "$f" "$TMP/$name" || fail "$name is stale: run traces/regen.sh"
	ok
	size=$(wc -c <"$f")
	[ "$size" -lt 1000000 ] || fail "$name is $size bytes (limit 1 MB)"
	ok
done
[ -f "$T/sysbench-oltp.ist" ] || fail "the demo's sample is missing"
expect_status 0 "$IOSTORM" stats --json "$T/sysbench-oltp.ist"
expect_grep '"records": 52992,' "$TMP/out"
expect_grep '"profile": "sysbench-oltp"' "$TMP/out"
done_ok
