#!/bin/sh
# SPDX-License-Identifier: MIT
# replay-latlog.sh - replay --lat-log writes one line per completed I/O;
# --null-latency-from gives the null back-end those latencies per op, in
# issue order, so that a closed loop can be modelled on a real target's
# measured latencies; its refusals.  Closed timing learns its spin window
# unless --spin T is given.
. "$top_srcdir/tests/cli/lib.sh"

expect_status 0 "$IOSTORM" synth sysbench-oltp --duration 300ms -o "$TMP/oltp.ist"
recs=$("$IOSTORM" info "$TMP/oltp.ist" | awk '/^records:/ { print $2 }')
CL="--timing closed --virtual-time --interval 0 --quiet"

# the log of a run at 30 us: a header, one line per I/O, latency 30 us
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null --null-latency 30us $CL \
	--lat-log "$TMP/a.csv"
expect_eq "$(head -1 "$TMP/a.csv")" "seq,op,stream,deadline_ns,issue_ns,done_ns,latency_ns,result,dev,offset,len" header
expect_eq "$(($(wc -l <"$TMP/a.csv") - 1))" "$recs" "lines"
expect_eq "$(awk -F, 'NR > 1 && ($7 != 30000 || $6 - $5 != $7) { n++ } END { print n + 0 }' "$TMP/a.csv")" 0 \
	"lines without latency 30000 = done - issue"
expect_eq "$(awk -F, 'NR > 1 { print $1 }' "$TMP/a.csv" | sort -n | uniq | wc -l)" "$recs" "distinct seqs"

# a device with writes of 100, 300, 100, 300... us, flushes of 40 us, the
# rest at the fixed --null-latency (reads: 5 us); the log is in
# completion order, the latencies are taken in issue order
awk -F, 'BEGIN { OFS = "," } NR == 1 { print; next }
	$2 == "write" { $7 = ($1 % 2) ? 300000 : 100000 } $2 == "flush" { $7 = 40000 }
	$2 == "read" { next } { print }' "$TMP/a.csv" | sort -t, -k1,1nr >"$TMP/dev.csv"
# (sort put the header last: back to the top)
{ grep '^seq' "$TMP/dev.csv"; grep -v '^seq' "$TMP/dev.csv"; } >"$TMP/dev2.csv"
# (original timing: the I/Os are issued in trace order, seq order)
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null --null-latency 5us --virtual-time \
	--interval 0 --quiet --null-latency-from "$TMP/dev2.csv" --lat-log "$TMP/b.csv"
want=$(awk -F, 'NR > 1 && $2 == "write" { print $1, $7 }' "$TMP/dev2.csv" | sort -n | awk '{ print $2 }' | tr '\n' ' ')
got=$(awk -F, 'NR > 1 && $2 == "write" { print $1, $7 }' "$TMP/b.csv" | sort -n | awk '{ print $2 }' | tr '\n' ' ')
expect_eq "$got" "$want" "write latencies in issue order"
expect_eq "$(awk -F, 'NR > 1 && $2 == "flush" && $7 != 40000 { n++ } END { print n + 0 }' "$TMP/b.csv")" 0 \
	"flushes not at 40 us"
expect_eq "$(awk -F, 'NR > 1 && $2 == "read" && $7 != 5000 { n++ } END { print n + 0 }' "$TMP/b.csv")" 0 \
	"reads not at --null-latency"
# the closed loop goes slower on that device than at 30 us
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null --null-latency 5us $CL \
	--null-latency-from "$TMP/dev2.csv" --json "$TMP/b.json"
tps() { awk '/"transactions":/ { t = 1 } t && /"tps":/ { gsub(/[^0-9.]/, "", $2); print $2; exit }' "$1"; }
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null --null-latency 30us $CL --json "$TMP/a.json"
awk -v a="$(tps "$TMP/a.json")" -v b="$(tps "$TMP/b.json")" 'BEGIN { exit !(b < a) }' ||
	fail "TPS-eq at 100-300 us writes $(tps "$TMP/b.json") not below 30 us's $(tps "$TMP/a.json")"
ok

# the log names each I/O: its trace device, offset and length (on the
# null back-end, the trace's own): the same multiset as the trace's
# records, on a trace of four devices (MarkLogic's nodes)
expect_status 0 "$IOSTORM" synth marklogic --duration 300ms -o "$TMP/ml.ist"
expect_status 0 "$IOSTORM" replay "$TMP/ml.ist" --null --null-latency 30us $CL \
	--lat-log "$TMP/t.csv"
"$IOSTORM" cat "$TMP/ml.ist" | awk -F, '!/^#/ && !/^t_ns,/ { print $2, $4, $5, $3 }' | sort >"$TMP/t.want"
awk -F, 'NR > 1 { print $9, $10, $11, $2 }' "$TMP/t.csv" | sort >"$TMP/t.got"
cmp -s "$TMP/t.want" "$TMP/t.got" || fail "the log's dev, offset, len, op are not the trace's records"
expect_eq "$(awk -F, 'NR > 1 { print $9 }' "$TMP/t.csv" | sort -u | tr '\n' ' ')" "0 1 2 3 " "devices in the log"
# per device: node d's writes at (d + 1) x 100 us, its reads at (d + 1) x
# 10 us: in a closed loop on them (whose issue order is not the 30 us
# run's) each device's I/Os take their own device's latencies (the first
# release's log, without the column, gave each node's writes some of the
# others')
awk -F, 'BEGIN { OFS = "," } NR == 1 { print; next }
	$2 == "write" { $7 = ($9 + 1) * 100000 } $2 == "read" { $7 = ($9 + 1) * 10000 } { print }' \
	"$TMP/t.csv" >"$TMP/t2.csv"
expect_status 0 "$IOSTORM" replay "$TMP/ml.ist" --null --null-latency 1us $CL \
	--null-latency-from "$TMP/t2.csv" --lat-log "$TMP/t3.csv"
expect_eq "$(awk -F, 'NR > 1 && $7 != ($9 + 1) * ($2 == "write" ? 100000 : 10000) { n++ } END { print n + 0 }' "$TMP/t3.csv")" 0 \
	"I/Os not at their device's latency"
{ head -1 "$TMP/t2.csv" | cut -d, -f1-8; grep -v '^seq' "$TMP/t2.csv" | cut -d, -f1-8; } >"$TMP/t2v1.csv"
expect_status 0 "$IOSTORM" replay "$TMP/ml.ist" --null --null-latency 1us $CL \
	--null-latency-from "$TMP/t2v1.csv" --lat-log "$TMP/t4.csv"
expect_eq "$(awk -F, 'NR > 1 && $7 != ($9 + 1) * ($2 == "write" ? 100000 : 10000) { n++ } END { print (n > 100) }' "$TMP/t4.csv")" 1 \
	"a log without devices: latencies mixed across devices"
# a device the log has no line of: its I/Os at --null-latency, said
awk -F, 'NR == 1 || $9 != 1' "$TMP/t2.csv" >"$TMP/t5.csv"
expect_status 0 "$IOSTORM" replay "$TMP/ml.ist" --null --null-latency 3us $CL \
	--null-latency-from "$TMP/t5.csv" --lat-log "$TMP/t6.csv"
expect_eq "$(wc -l <"$TMP/err")" 2 "warnings"
expect_grep "^iostorm: warning: --null-latency-from $TMP/t5.csv has no read latency of device 1: its [0-9]+ read I/Os completed after --null-latency \\(3000 ns\\)\$" "$TMP/err"
expect_grep "^iostorm: warning: --null-latency-from $TMP/t5.csv has no write latency of device 1: its [0-9]+ write I/Os completed after --null-latency \\(3000 ns\\)\$" "$TMP/err"
expect_eq "$(awk -F, 'NR > 1 && $9 == 1 && $7 != 3000 { n++ } END { print n + 0 }' "$TMP/t6.csv")" 0 \
	"device 1's I/Os not at --null-latency"
expect_eq "$(awk -F, 'NR > 1 && $9 != 1 && $7 != ($9 + 1) * ($2 == "write" ? 100000 : 10000) { n++ } END { print n + 0 }' "$TMP/t6.csv")" 0 \
	"the other devices' I/Os not at their latency"
ok

# the spin window: learned in closed timing, unless given; fixed otherwise
spin() { grep -o '"spin_adaptive": [a-z]*' "$1" | cut -d' ' -f2; }
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null --timing closed --interval 0 --quiet \
	--duration 20ms --json "$TMP/s1.json"
expect_eq "$(spin "$TMP/s1.json")" true "closed timing's default spin window learned"
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null --timing closed --interval 0 --quiet \
	--duration 20ms --spin 40us --json "$TMP/s2.json"
expect_eq "$(spin "$TMP/s2.json")" false "closed timing with --spin 40us learned"
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null --interval 0 --quiet \
	--duration 20ms --json "$TMP/s3.json"
expect_eq "$(spin "$TMP/s3.json")" false "original timing's default spin window learned"
# the summary says which window was used (it was in the JSON only), and
# the learned one stays within 500 us (CPU burnt spinning)
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null --timing closed --interval 0 \
	--duration 20ms --json "$TMP/s4.json"
expect_grep '^spin window: learned, 40.0 us to [0-9.]+ [mu]s \(largest oversleep ' "$TMP/out"
expect_eq "$(grep -o '"wake_margin_max_ns": [0-9]*' "$TMP/s4.json" | awk '{ print ($2 >= 40000 && $2 <= 500000) }')" 1 \
	"learned window within 40-500 us"
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null --timing closed --interval 0 \
	--duration 20ms --spin 40us
expect_grep '^spin window: 40.0 us, fixed \(largest oversleep ' "$TMP/out"
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null --timing closed --interval 0 \
	--duration 20ms --spin 0
expect_grep '^spin window: none \(--spin 0\)' "$TMP/out"
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null --interval 0 --duration 20ms
expect_grep '^spin window: 40.0 us, fixed' "$TMP/out"

# refusals
expect_status 2 "$IOSTORM" replay "$TMP/oltp.ist" --target "$TMP/t.img" --null-latency-from "$TMP/dev2.csv"
expect_grep "null-latency-from needs --null" "$TMP/err"
expect_status 1 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --null-latency-from "$TMP/none.csv"
expect_err_line "none.csv: No such file"
printf 'seq,op,latency_ns\n1,write,5\n' >"$TMP/bad1.csv"
expect_status 1 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --null-latency-from "$TMP/bad1.csv"
expect_err_line "bad1.csv: line 1: not a --lat-log"
# a broken log: the file, the line and the reason on one line (exit 1).
# Negative, signed, blank-padded and non-numeric fields, huge values and
# a header with more after it were taken (sscanf: -5 as 2^64-5, a latency
# that carried the completion past the clock's end; "5x" as 5); every
# one was a "bad line" without a reason
H=$(head -1 "$TMP/a.csv")
bad() {
	printf '%s\n%s\n' "$H" "$1" >"$TMP/bad.csv"
	expect_status 1 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --null-latency-from "$TMP/bad.csv"
	expect_err_line "^iostorm: --null-latency-from $TMP/bad.csv: line 2: $2\$"
}
bad "7,scribble,1,0,0,0,5,0,0,0,0" "unknown op 'scribble'"
bad "7,write,1,0,0,0,-5,0,0,0,0" "latency_ns '-5': negative"
bad "-7,write,1,0,0,0,5,0,0,0,0" "seq '-7': negative"
bad "7,write,1,0,0,0,5x,0,0,0,0" "latency_ns '5x': not a number"
bad "7,write,1,0,0,0, 5,0,0,0,0" "latency_ns ' 5': not a number"
bad "7,write,1,0,0,0,,0,0,0,0" "latency_ns '': empty"
bad "7,write,1,0,0,0,18446744073709551616,0,0,0,0" "latency_ns '18446744073709551616': too large \\(over an hour\\)"
bad "7,write,1,0,0,0,3600000000001,0,0,0,0" "latency_ns '3600000000001': too large \\(over an hour\\)"
bad "7,write,1,0,0,0,5,x,0,0,0" "result 'x': not a number"
bad "7,write,1,0,0,0,5,0,0,0" "10 fields, 11 expected \\(seq,op,.*\\)"
bad "7,write,1,0,0,0,5,0,1,0,0,0" "12 fields, 11 expected \\(seq,op,.*\\)"
bad "" "empty"
bad "7,write,1,0,0,0,5,0,70000,0,0" "dev '70000': too large \\(over 65535\\)"
bad "7,write,1,0,0,0,5,0,0,-1,0" "offset '-1': negative"
bad "7,write,1,0,0,0,5,0,0,0,4294967296" "len '4294967296': too large"
# the first release's log (8 fields, no dev): read; its lines have 8 fields
H1="seq,op,stream,deadline_ns,issue_ns,done_ns,latency_ns,result"
printf '%s\n7,write,1,0,0,0,5,0,0,0,0\n' "$H1" >"$TMP/bad.csv"
expect_status 1 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --null-latency-from "$TMP/bad.csv"
expect_err_line "bad.csv: line 2: 11 fields, 8 expected \\($H1\\)\$"
printf '%sjunk\n1,write,1,0,0,0,5,0,0,0,0\n' "$H" >"$TMP/bad.csv"
expect_status 1 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --null-latency-from "$TMP/bad.csv"
expect_err_line "bad.csv: line 1: not a --lat-log"
printf '%s\n1,write,1,0,0,0,5,0,0,0,0\n1,flush,1,0,0,0,5,0,0,0,0\n' "$H" >"$TMP/bad.csv"
expect_status 1 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --null-latency-from "$TMP/bad.csv"
expect_err_line "bad.csv: line 3: seq 1 also on line 2 \\(two logs in one\\?\\)"
: >"$TMP/empty.csv"
expect_status 1 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --null-latency-from "$TMP/empty.csv"
expect_err_line "empty.csv: empty \\(no --lat-log header\\)"
head -1 "$TMP/a.csv" >"$TMP/empty.csv"
expect_status 1 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --null-latency-from "$TMP/empty.csv"
expect_err_line "empty.csv: no completed I/O"
# CRLF lines are read as LF lines
sed 's/$/\r/' "$TMP/dev2.csv" >"$TMP/crlf.csv"
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null --null-latency 5us $CL \
	--null-latency-from "$TMP/crlf.csv" --json "$TMP/crlf.json"
expect_eq "$(tps "$TMP/crlf.json")" "$(tps "$TMP/b.json")" "TPS-eq on the CRLF log"
# an op the trace has and the log has not: said (it completed after
# --null-latency, 0 unless given)
grep -v ',write,' "$TMP/a.csv" >"$TMP/nowrite.csv"
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --null-latency-from "$TMP/nowrite.csv"
expect_err_line "warning: --null-latency-from $TMP/nowrite.csv has no write latency of device 0: its [0-9]+ write I/Os completed after --null-latency \\(0 ns\\)"
# the same log in the first release's form: the warning without a device
{ echo "$H1"; grep -v '^seq' "$TMP/nowrite.csv" | cut -d, -f1-8; } >"$TMP/nowrite1.csv"
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --null-latency-from "$TMP/nowrite1.csv"
expect_err_line "warning: --null-latency-from $TMP/nowrite1.csv has no write latency: the [0-9]+ write I/Os completed after --null-latency \\(0 ns\\)"
# a long log in reverse completion order: read in a moment (an insertion
# sort took n^2/2 steps: minutes for these 300000 lines)
awk -v h="$H" 'BEGIN { print h; for (i = 299999; i >= 0; i--) printf "%d,write,1,0,0,0,%d,4096,0,%d,4096\n", i, 1000 + i % 7, 4096 * i }' \
	>"$TMP/rev.csv"
expect_status 0 timeout 30 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --duration 1ms \
	--null-latency-from "$TMP/rev.csv"
expect_status 2 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --lat-log "$TMP/x.json" --json "$TMP/x.json"
expect_grep "lat-log names a file another option names" "$TMP/err"
[ ! -e "$TMP/x.json" ] || fail "a refused run left $TMP/x.json"
# a result over the latencies read (they would be replaced by the report)
cp "$TMP/dev2.csv" "$TMP/in.csv"
expect_status 1 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --null-latency-from "$TMP/in.csv" --json "$TMP/in.csv"
expect_err_line "^iostorm: $TMP/in.csv: is also an input \\(it would be replaced\\)$"
expect_status 1 "$IOSTORM" replay "$TMP/oltp.ist" --null $CL --null-latency-from "$TMP/in.csv" --csv-intervals "$TMP/in.csv"
expect_err_line "^iostorm: $TMP/in.csv: is also an input \\(it would be replaced\\)$"
cmp -s "$TMP/dev2.csv" "$TMP/in.csv" || fail "the latency log was changed"
ok
# a run that fails leaves no log
expect_status 1 "$IOSTORM" replay "$TMP/oltp.ist" --target "$TMP/nodir/t.img" --lat-log "$TMP/c.csv"
[ ! -e "$TMP/c.csv" ] || fail "a failed run left its --lat-log"
ok
# the log is written to a temporary file beside it, renamed into place
# when the run succeeded: a file of its name stays as it was when the run
# fails (it was truncated, then removed), a write that fails (a file size
# limit: EFBIG) fails the run (exit 1) and SIGHUP leaves neither the log
# nor a temporary file (it left half a log).  The signalled runs last
# 30 s (--speed 0.01) if not signalled.
mkdir "$TMP/l"
echo "the user's" >"$TMP/l/c.csv"
expect_status 1 "$IOSTORM" replay "$TMP/oltp.ist" --target "$TMP/nodir/t.img" --lat-log "$TMP/l/c.csv"
expect_eq "$(cat "$TMP/l/c.csv")" "the user's" "a failed run: the file of the log's name"
expect_eq "$(ls "$TMP/l" | tr '\n' ' ')" "c.csv " "a failed run: files left"
sh -c "trap '' XFSZ; ulimit -f 1; exec \"\$0\" \"\$@\"" "$IOSTORM" replay "$TMP/oltp.ist" \
	--null $CL --lat-log "$TMP/l/c.csv" >"$TMP/out" 2>"$TMP/err"
expect_eq "$?" 1 "a log that cannot be written: exit status"
expect_err_line "c.csv: File too large"
expect_eq "$(cat "$TMP/l/c.csv")" "the user's" "a log that cannot be written: the file of its name"
expect_eq "$(ls "$TMP/l" | tr '\n' ' ')" "c.csv " "a log that cannot be written: files left"
rm -f "$TMP/l/c.csv"
# (SIGHUP set back to its default: under nohup, or a CI runner that
# ignores it, an ignored SIGHUP stays ignored, as below)
env --default-signal=HUP true 2>/dev/null || skip "env(1) has no --default-signal"
env --default-signal=HUP "$IOSTORM" replay "$TMP/oltp.ist" --null --speed 0.01 --interval 0 --quiet \
	--lat-log "$TMP/l/c.csv" >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_running $pid
kill -HUP $pid
wait $pid
expect_eq "$?" 129 "SIGHUP: exit status"
expect_eq "$(ls "$TMP/l" | tr '\n' ' ')" "" "SIGHUP: files left"
# an ignored SIGHUP (nohup) stays ignored: the run goes on, and SIGINT
# then ends it with its log
sh -c "trap '' HUP; exec \"\$0\" \"\$@\"" "$IOSTORM" replay "$TMP/oltp.ist" --null --speed 0.01 \
	--interval 0 --quiet --lat-log "$TMP/l/c.csv" >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_running $pid
kill -HUP $pid
sleep 0.2
kill -0 $pid 2>/dev/null || fail "an ignored SIGHUP ended the replay"
kill -INT $pid
wait $pid
expect_eq "$?" 0 "SIGHUP ignored, then SIGINT: exit status"
expect_eq "$(ls "$TMP/l" | tr '\n' ' ')" "c.csv " "SIGHUP ignored, then SIGINT: files left"
rm -f "$TMP/l/c.csv"
# SIGINT: the replay stops, drains and keeps the log of what it completed,
# as its report (marked interrupted)
"$IOSTORM" replay "$TMP/oltp.ist" --null --speed 0.01 --interval 0 --quiet \
	--lat-log "$TMP/l/c.csv" --json "$TMP/l/c.json" >"$TMP/out" 2>"$TMP/err" &
pid=$!
wait_running $pid
kill -INT $pid
wait $pid
expect_eq "$?" 0 "SIGINT: exit status"
expect_grep '"interrupted": true' "$TMP/l/c.json"
expect_eq "$(($(wc -l <"$TMP/l/c.csv") - 1))" "$(grep -o '"ios": [0-9]*' "$TMP/l/c.json" | head -1 | cut -d' ' -f2)" \
	"SIGINT: lines of the log = I/Os of the report"
expect_eq "$(ls "$TMP/l" | tr '\n' ' ')" "c.csv c.json " "SIGINT: files left"
ok
done_ok
