#!/bin/sh
# SPDX-License-Identifier: MIT
# import_interrupt.sh - SIGINT or SIGTERM in the middle of an import, a
# conversion to CSV or an export leaves nothing at the output, not even the
# temporary file renamed into place at the end (OUT.importing-PID-N,
# OUT.tmp-XXXXXX, OUT.tmpPID stayed behind before), and of synth.  Every
# command makes it the same way (istint_tmp_create(): OUT.TAG-PID-N).
. "$top_srcdir/tests/cli/lib.sh"
command -v env >/dev/null && env --default-signal=INT true 2>/dev/null ||
	skip "env --default-signal missing (a background job ignores SIGINT)"

# interrupted LABEL SIG OUT TMP_PREFIX CMD...: runs CMD in the background,
# waits (at most 20 s) for its temporary output, a name in $TMP starting
# TMP_PREFIX, and sends it SIG: CMD must die of the signal and leave no name
# starting OUT in $TMP.
interrupted() {
	label=$1 sig=$2 out=$3 prefix=$4
	shift 4
	env --default-signal=INT "$@" 2>"$TMP/err" &
	pid=$!
	n=0
	while ! ls "$TMP" | grep -q "^$prefix"; do
		n=$((n + 1))
		[ $n -lt 200 ] || fail "$label: no temporary output appeared"
		sleep 0.1
	done
	kill -$sig $pid
	wait $pid
	st=$?
	[ $st -gt 128 ] || fail "$label: exited $st"
	ls "$TMP" | grep -q "^$out" && fail "$label: output left behind after SIG$sig"
	ok
}

for sig in INT TERM; do
	mkfifo "$TMP/in.$sig"
	# records arrive, then the input stalls: the import is mid-way
	sh -c 'awk "BEGIN { for (i = 0; i < 300000; i++) printf \"%d,%d,8,%d,1\\n\", i, i * 8, i % 2 }"
	       exec sleep 30' >"$TMP/in.$sig" &
	feeder=$!
	interrupted "SIG$sig: import" $sig out.ist out.ist.importing- \
		"$IOSTORM" import -q -f tencent --sort-window 1000 "$TMP/in.$sig" -o "$TMP/out.ist"
	kill $feeder 2>/dev/null
done

# convert, CSV to IST, from a FIFO that stalls
mkfifo "$TMP/i.fifo"
sh -c 'awk "BEGIN { print \"t_ns,dev,op,offset,len,lat_ns,stream,txn,flags\"; for (i = 0; i < 200000; i++) printf \"%d,0,read,%d,4096,0,0,0,\\n\", i, i * 4096 }"
       exec sleep 30' >"$TMP/i.fifo" &
feeder=$!
interrupted "convert to IST" INT i.ist i.ist.converting- \
	"$IOSTORM" convert -c 1000 "$TMP/i.fifo" "$TMP/i.ist"
kill $feeder 2>/dev/null

# convert, CSV to CSV, from a FIFO that stalls
mkfifo "$TMP/c.fifo"
sh -c 'awk "BEGIN { print \"t_ns,dev,op,offset,len,lat_ns,stream,txn,flags\"; for (i = 0; i < 200000; i++) printf \"%d,0,read,%d,4096,0,0,0,\\n\", i, i * 4096 }"
       exec sleep 30' >"$TMP/c.fifo" &
feeder=$!
interrupted "convert to CSV" INT c.csv c.csv.converting- "$IOSTORM" convert -t csv "$TMP/c.fifo" "$TMP/c.csv"
kill $feeder 2>/dev/null

# interrupted_writing LABEL OUT TMP_PREFIX CMD...: runs CMD (reading a
# large trace) in the background and sends it SIGINT once its temporary
# output appears: CMD must die of the signal and leave no name starting OUT.
# A CMD that ended before: it must have succeeded (it went unchecked, so
# that a command failing at once passed), and the part is said not run.
interrupted_writing() {
	label=$1 out=$2 prefix=$3
	shift 3
	env --default-signal=INT "$@" 2>"$TMP/err" &
	pid=$!
	while kill -0 $pid 2>/dev/null && ! ls "$TMP" | grep -q "^$prefix"; do
		sleep 0.02
	done
	if kill -INT $pid 2>/dev/null; then
		wait $pid
		st=$?
		[ $st -gt 128 ] || fail "$label: exited $st"
		ls "$TMP" | grep -q "^$out" && fail "$label: output left behind after SIGINT"
		ok
	else
		wait $pid
		st=$?
		[ $st -eq 0 ] || { cat "$TMP/err" >&2; fail "$label: exited $st before it was interrupted"; }
		[ -s "$TMP/$out" ] || fail "$label: no output"
		ok
		rm -f "$TMP/$out"
		skip_part "$label ended before it could be interrupted"
	fi
}

# export and annotate of a large trace, interrupted while they write
awk 'BEGIN { for (i = 0; i < 2000000; i++) printf "%d,%d,8,%d,1\n", i, i * 8, i % 2 }' >"$TMP/big.csv"
expect_status 0 "$IOSTORM" import -q -f tencent "$TMP/big.csv" -o "$TMP/big.ist"
interrupted_writing export e.txt e.txt.exporting- "$IOSTORM" export -q -f blkparse "$TMP/big.ist" -o "$TMP/e.txt"
interrupted_writing annotate a.ist a.ist.annotating- "$IOSTORM" annotate -q "$TMP/big.ist" -o "$TMP/a.ist"

# synth of a long trace, IST and CSV: the temporary output, OUT.tmp-PID-N (the IST
# writer's own OUT.tmp-XXXXXX stayed behind before) goes with the signal
for o in s.ist s.csv; do
	interrupted "synth -o $o" INT $o "$o\\." "$IOSTORM" synth tpcc -d 30m -o "$TMP/$o"
done
done_ok
