#!/bin/sh
# SPDX-License-Identifier: MIT
# import_interrupt.sh - SIGINT or SIGTERM in the middle of an import leaves
# nothing at the output, not even the temporary OUT.importing-PID-N that
# the import writes in place (it stayed, without footer, before).
. "$top_srcdir/tests/cli/lib.sh"
command -v env >/dev/null && env --default-signal=INT true 2>/dev/null ||
	skip "env --default-signal missing (a background job ignores SIGINT)"

for sig in INT TERM; do
	mkfifo "$TMP/in.$sig"
	# records arrive, then the input stalls: the import is mid-way
	sh -c 'awk "BEGIN { for (i = 0; i < 300000; i++) printf \"%d,%d,8,%d,1\\n\", i, i * 8, i % 2 }"
	       exec sleep 30' >"$TMP/in.$sig" &
	feeder=$!
	env --default-signal=INT "$IOSTORM" import -q -f tencent --sort-window 1000 \
		"$TMP/in.$sig" -o "$TMP/out.ist" 2>"$TMP/err" &
	pid=$!
	# wait for the temporary output to appear (at most 20 s)
	n=0
	while ! ls "$TMP" | grep -q '^out.ist.importing-'; do
		n=$((n + 1))
		[ $n -lt 200 ] || fail "no temporary output appeared"
		sleep 0.1
	done
	kill -$sig $pid
	wait $pid
	st=$?
	kill $feeder 2>/dev/null
	[ $st -gt 128 ] || fail "SIG$sig: import exited $st"
	ok
	[ ! -e "$TMP/out.ist" ] || fail "SIG$sig: output left behind"
	ls "$TMP" | grep -q importing && fail "SIG$sig: temporary output left behind"
	ok
done
done_ok
