#!/bin/sh
# SPDX-License-Identifier: MIT
# replay-interrupt.sh - SIGINT/SIGTERM stop issuing, drain, and the report
# says interrupted; a file target gets no I/O after the stop.
. "$top_srcdir/tests/cli/lib.sh"
need_uring # replays on files or devices

# 50k reads over 50 s: far longer than the test waits.
awk 'BEGIN { print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"
	for (i = 0; i < 50000; i++) printf "%.0f,0,read,%d,4096,0,0,0,\n", i * 1000000, (i % 256) * 4096 }' >"$TMP/long.csv"

for sig in INT TERM; do
	"$IOSTORM" replay "$TMP/long.csv" --null --json "$TMP/$sig.json" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	wait_running "$pid"
	sleep 0.2
	kill -"$sig" "$pid"
	wait "$pid"
	expect_eq "$?" 0 "exit status after SIG$sig"
	expect_grep '"interrupted": true' "$TMP/$sig.json"
	expect_grep '"complete": false' "$TMP/$sig.json"
	expect_grep 'INTERRUPTED' "$TMP/out"
	expect_grep 'interrupted: stopped issuing, drained' "$TMP/err"
	n=$(awk '/"ios":/ { gsub(/[^0-9]/, "", $2); print $2; exit }' "$TMP/$sig.json")
	[ "$n" -gt 0 ] && [ "$n" -lt 50000 ] || fail "SIG$sig: $n I/Os reported"
	ok
done

# on a real file with a deep queue: the in-flight I/Os drain, none is lost
truncate -s 1M "$TMP/t.img"
"$IOSTORM" replay "$TMP/long.csv" --target "$TMP/t.img" --speed 10 --json "$TMP/f.json" \
	>"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_running "$pid"
sleep 0.2
kill -INT "$pid"
wait "$pid"
expect_eq "$?" 0 "exit status (file)"
expect_grep '"interrupted": true' "$TMP/f.json"
expect_grep '"errors": 0,' "$TMP/f.json"
done_ok
