#!/bin/sh
# SPDX-License-Identifier: MIT
# import_interrupt.sh - SIGINT or SIGTERM in the middle of an import, a
# conversion to CSV or an export leaves nothing at the output, not even the
# temporary file renamed into place at the end (OUT.importing-PID-N,
# OUT.tmp-XXXXXX, OUT.tmpPID stayed behind before), and of synth.
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

# convert, CSV to IST, from a FIFO that stalls
mkfifo "$TMP/i.fifo"
sh -c 'awk "BEGIN { print \"t_ns,dev,op,offset,len,lat_ns,stream,txn,flags\"; for (i = 0; i < 200000; i++) printf \"%d,0,read,%d,4096,0,0,0,\\n\", i, i * 4096 }"
       exec sleep 30' >"$TMP/i.fifo" &
feeder=$!
env --default-signal=INT "$IOSTORM" convert -c 1000 "$TMP/i.fifo" "$TMP/i.ist" 2>"$TMP/err" &
pid=$!
n=0
while ! ls "$TMP" | grep -q '^i.ist.converting-'; do
	n=$((n + 1))
	[ $n -lt 200 ] || fail "convert to IST: no temporary output appeared"
	sleep 0.1
done
kill -INT $pid
wait $pid
st=$?
kill $feeder 2>/dev/null
[ $st -gt 128 ] || fail "convert to IST: exited $st"
ls "$TMP" | grep -q '^i.ist' && fail "convert to IST: output left behind after SIGINT"
ok

# convert, CSV to CSV, from a FIFO that stalls
mkfifo "$TMP/c.fifo"
sh -c 'awk "BEGIN { print \"t_ns,dev,op,offset,len,lat_ns,stream,txn,flags\"; for (i = 0; i < 200000; i++) printf \"%d,0,read,%d,4096,0,0,0,\\n\", i, i * 4096 }"
       exec sleep 30' >"$TMP/c.fifo" &
feeder=$!
env --default-signal=INT "$IOSTORM" convert -t csv "$TMP/c.fifo" "$TMP/c.csv" 2>"$TMP/err" &
pid=$!
n=0
while ! ls "$TMP" | grep -q '^c.csv.tmp'; do
	n=$((n + 1))
	[ $n -lt 200 ] || fail "convert: no temporary output appeared"
	sleep 0.1
done
kill -INT $pid
wait $pid
st=$?
kill $feeder 2>/dev/null
[ $st -gt 128 ] || fail "convert: exited $st"
ls "$TMP" | grep -q '^c.csv' && fail "convert: output left behind after SIGINT"
ok

# export of a large trace, interrupted while it writes (when it is still
# running once its temporary file appears)
awk 'BEGIN { for (i = 0; i < 2000000; i++) printf "%d,%d,8,%d,1\n", i, i * 8, i % 2 }' >"$TMP/big.csv"
expect_status 0 "$IOSTORM" import -q -f tencent "$TMP/big.csv" -o "$TMP/big.ist"
env --default-signal=INT "$IOSTORM" export -q -f blkparse "$TMP/big.ist" -o "$TMP/e.txt" 2>"$TMP/err" &
pid=$!
while kill -0 $pid 2>/dev/null && ! ls "$TMP" | grep -q '^e.txt.tmp'; do
	sleep 0.02
done
if kill -INT $pid 2>/dev/null; then
	wait $pid
	st=$?
	[ $st -gt 128 ] || fail "export: exited $st"
	ls "$TMP" | grep -q '^e.txt' && fail "export: output left behind after SIGINT"
	ok
else
	wait $pid
fi

# annotate of a large trace, interrupted while it writes (when it is still
# running once its temporary file appears)
env --default-signal=INT "$IOSTORM" annotate -q "$TMP/big.ist" -o "$TMP/a.ist" 2>"$TMP/err" &
pid=$!
while kill -0 $pid 2>/dev/null && ! ls "$TMP" | grep -q '^a.ist.annotating-'; do
	sleep 0.02
done
if kill -INT $pid 2>/dev/null; then
	wait $pid
	st=$?
	[ $st -gt 128 ] || fail "annotate: exited $st"
	ls "$TMP" | grep -q '^a.ist' && fail "annotate: output left behind after SIGINT"
	ok
else
	wait $pid
fi

# synth of a long trace, IST and CSV: the temporary output (the IST
# writer's own OUT.tmp-XXXXXX stayed behind before) goes with the signal
for o in s.ist s.csv; do
	env --default-signal=INT "$IOSTORM" synth tpcc -d 30m -o "$TMP/$o" 2>"$TMP/err" &
	pid=$!
	n=0
	while ! ls "$TMP" | grep -q "^$o.synth-"; do
		n=$((n + 1))
		[ $n -lt 200 ] || fail "synth: no temporary output appeared"
		sleep 0.1
	done
	kill -INT $pid
	wait $pid
	st=$?
	[ $st -gt 128 ] || fail "synth -o $o: exited $st"
	ls "$TMP" | grep -q "^$o" && fail "synth -o $o: output left behind after SIGINT"
	ok
done
done_ok
