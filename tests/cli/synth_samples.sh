#!/bin/sh
# SPDX-License-Identifier: MIT
# synth_samples.sh - the sample traces in traces/ are what traces/regen.sh
# makes today (bit for bit), each under 1 MB, and characterize as expected.
. "$top_srcdir/tests/cli/lib.sh"
T="$top_srcdir/traces"

# The samples are written by a build with libdeflate (the IST writer's
# deflated columns are libdeflate's there, zlib's without it): a build
# without it checks the records and totals instead of the bytes.
bytes=1
grep -q '^#define HAVE_LIBDEFLATE 1' "$top_builddir/config.h" || bytes=0
expect_status 0 "$T/regen.sh" "$IOSTORM" "$TMP"
for f in "$T"/*.ist; do
	name=${f##*/}
	if [ $bytes = 1 ]; then
		cmp "$f" "$TMP/$name" || fail "$name is stale: run traces/regen.sh"
	else
		"$IOSTORM" cat "$f" >"$TMP/a.csv" && "$IOSTORM" cat "$TMP/$name" >"$TMP/b.csv" ||
			fail "$name: cat failed"
		cmp -s "$TMP/a.csv" "$TMP/b.csv" || fail "$name is stale: run traces/regen.sh"
		"$IOSTORM" info --json "$f" | sed 's/"file":"[^"]*",//; s/"file_size":[0-9]*,//; s/,"bytes_per_record":[0-9.]*//' >"$TMP/a.json" &&
		"$IOSTORM" info --json "$TMP/$name" | sed 's/"file":"[^"]*",//; s/"file_size":[0-9]*,//; s/,"bytes_per_record":[0-9.]*//' >"$TMP/b.json" ||
			fail "$name: info failed"
		cmp -s "$TMP/a.json" "$TMP/b.json" || fail "$name: totals differ from regen.sh's"
	fi
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
