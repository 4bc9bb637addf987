#!/bin/sh
# SPDX-License-Identifier: MIT
# replay-closed.sh - closed-loop replay of a synthesized OLTP trace on the
# null back-end in simulated time: at the trace's nominal latency it
# reproduces the trace's TPS; a faster device gives more TPS-eq, a slower
# one fewer; with think times dominating, about the same.
. "$top_srcdir/tests/cli/lib.sh"

# (a synth that failed here made the test skip: synth is part of iostorm)
expect_status 0 "$IOSTORM" synth sysbench-oltp --duration 1s -o "$TMP/oltp.ist"
expect_status 0 "$IOSTORM" synth sysbench-oltp --duration 2s --set think=0.1 -o "$TMP/think.ist"

tps() { awk '/"transactions":/ { t = 1 } t && /"tps":/ { gsub(/[^0-9.]/, "", $2); print $2; exit }' "$1"; }
run() { # run TRACE LATENCY OUT.json
	expect_status 0 "$IOSTORM" replay "$1" --null --virtual-time --timing closed \
		--null-latency "$2" --json "$3" --quiet
}
run "$TMP/oltp.ist" 200us "$TMP/nom.json"   # the synthesized nominal latency
run "$TMP/oltp.ist" 20us "$TMP/fast.json"
run "$TMP/oltp.ist" 2ms "$TMP/slow.json"
txns=$("$IOSTORM" info "$TMP/oltp.ist" | awk '/^transactions:/ { print $2 }')
nom=$(tps "$TMP/nom.json"); fast=$(tps "$TMP/fast.json"); slow=$(tps "$TMP/slow.json")
echo "TPS-eq: trace $txns/s, nominal $nom, fast $fast, slow $slow"
awk -v n="$nom" -v t="$txns" 'BEGIN { exit !(n > 0.97 * t && n < 1.03 * t) }' ||
	fail "at the nominal latency TPS-eq $nom, trace $txns per second"
ok
awk -v f="$fast" -v n="$nom" 'BEGIN { exit !(f > 1.05 * n) }' || fail "faster: $fast vs $nom"
ok
awk -v s="$slow" -v n="$nom" 'BEGIN { exit !(s < 0.8 * n) }' || fail "slower: $slow vs $nom"
ok
# think times dominating: the device hardly matters
run "$TMP/think.ist" 20us "$TMP/tf.json"
run "$TMP/think.ist" 400us "$TMP/ts.json"
tf=$(tps "$TMP/tf.json"); ts=$(tps "$TMP/ts.json")
echo "think-dominated TPS-eq: fast $tf, slow $ts"
awk -v f="$tf" -v s="$ts" 'BEGIN { exit !(f >= s && f < 1.15 * s) }' || fail "think-dominated: $tf vs $ts"
ok

# --serial-commits: 3 clients (starting with a read at 0) committing in
# turn on one device (write 1 ms, flush 1 ms), each waiting for the two
# others' commits: the recorded think times are all lock waits.  At 50 us
# per I/O, without the lock model a client keeps its 4 ms of think per
# cycle (3 x 1000 / 4.1 ms); with it, the commits follow each other (3 x
# 1000 / 0.3 ms, the sum 10000 per second).
awk 'BEGIN {
	print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"
	for (s = 1; s <= 3; s++)
		printf "0,0,read,%d,4096,0,%d,1,\n", 1048576 * s, s
	t = 0
	for (i = 0; i < 60; i++) {
		s = 1 + i % 3; tx = 1 + int(i / 3)
		f = "dependent"
		printf "%d,0,write,%d,4096,1000000,%d,%d,sync|%s\n", t, i * 4096, s, tx, f
		printf "%d,0,flush,0,0,1000000,%d,%d,commit|dependent\n", t + 1000000, s, tx
		t += 2000000
	}
}' | sed 's/|,/,/; s/|$//' >"$TMP/serial.csv"
expect_status 0 "$IOSTORM" convert "$TMP/serial.csv" "$TMP/serial.ist"
ts() { awk '/"tps_streams":/ { gsub(/[^0-9.]/, "", $2); print $2; exit }' "$1"; }
expect_status 0 "$IOSTORM" replay "$TMP/serial.ist" --null --virtual-time --timing closed \
	--null-latency 50us --json "$TMP/s0.json" --txn-latency cycle
expect_grep "^transactions 60, TPS-eq [0-9.]+, streams' sum [0-9.]+$" "$TMP/out"
expect_status 0 "$IOSTORM" replay "$TMP/serial.ist" --null --virtual-time --timing closed \
	--null-latency 50us --json "$TMP/s1.json" --serial-commits --commit-groups off --quiet
s0=$(ts "$TMP/s0.json"); s1=$(ts "$TMP/s1.json")
echo "serial commits: streams' TPS without $s0, with $s1"
awk -v a="$s0" 'BEGIN { exit !(a > 700 && a < 760) }' || fail "without: $s0, not 732"
ok
awk -v a="$s1" 'BEGIN { exit !(a > 9500 && a < 10500) }' || fail "with: $s1, not 10000"
ok
expect_grep '"serial_commits": true' "$TMP/s1.json"
expect_grep '"txn_latency": "cycle"' "$TMP/s0.json"
expect_status 2 "$IOSTORM" replay "$TMP/serial.ist" --null --serial-commits
expect_status 2 "$IOSTORM" replay "$TMP/serial.ist" --null --timing closed --serial-commits -w 2
expect_status 2 "$IOSTORM" replay "$TMP/serial.ist" --null --timing closed --txn-latency last
# --commit-groups: on or off (the default), with --serial-commits only.
# Here each client's think time is all lock wait (taken out), so the three
# commits are ready together: one write and flush (100 us) carries the two
# others' commits (20 writes for 60 transactions, 3 x 10000 per second)
expect_status 0 "$IOSTORM" replay "$TMP/serial.ist" --null --virtual-time --timing closed \
	--null-latency 50us --json "$TMP/s2.json" --serial-commits --commit-groups on
s2=$(ts "$TMP/s2.json")
awk -v a="$s2" 'BEGIN { exit !(a > 29000 && a < 31000) }' || fail "groups: $s2, not 30000"
ok
expect_grep '^  commits    40 carried by another stream.s flush, in 20 group commits$' "$TMP/out"
expect_grep '"commit_groups": true' "$TMP/s2.json"
expect_grep '"joined": 40' "$TMP/s2.json"
expect_status 0 "$IOSTORM" replay "$TMP/serial.ist" --null --virtual-time --timing closed \
	--null-latency 50us --json "$TMP/s3.json" --serial-commits --quiet
s3=$(ts "$TMP/s3.json")
[ "$s3" = "$s1" ] || fail "the default: $s3, not --commit-groups off's $s1"
ok
expect_grep '"commit_groups": false' "$TMP/s3.json"
expect_grep '"commit_groups": false' "$TMP/s1.json"
expect_status 2 "$IOSTORM" replay "$TMP/serial.ist" --null --timing closed --serial-commits \
	--commit-groups maybe
expect_grep "bad --commit-groups 'maybe' \\(on or off\\)" "$TMP/err"
expect_status 2 "$IOSTORM" replay "$TMP/serial.ist" --null --timing closed --commit-groups on
expect_grep "commit-groups needs --serial-commits" "$TMP/err"
expect_status 2 "$IOSTORM" replay "$TMP/serial.ist" --null --timing closed --serial-commits \
	--commit-groups ''

# --commit-groups with --think-sched: a commit woken by another's commit
# (stream 2 slept while stream 1 committed, was woken by its flush's
# completion, waited for its client, then committed) is ready after the
# replayed release plus its CPU time after the wake-up (the unit test
# test_closed_woken_commit has the schedule): at 1 ms an I/O, its write at
# 4.25 ms, not at the release (4 ms); the summary and the JSON count it
printf '%s\n' "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags" \
	"0,0,write,0,4096,100000,2,1," "100000,0,flush,0,0,100000,2,1,commit|dependent" \
	"300000,0,write,4096,4096,1000000,1,1," "1300000,0,flush,0,0,1000000,1,1,commit|dependent" \
	"2700000,0,write,8192,4096,100000,2,2,dependent" \
	"2800000,0,flush,0,0,100000,2,2,commit|dependent" >"$TMP/woken.csv"
printf '%s\n' "# iostorm-sched 2 runq cpu client" "c 2 200000 300000" "c 2 2300000 2400000" \
	"w 2 2400000 2600000 50000" "c 2 2600000 2700000" >"$TMP/woken.sched"
expect_status 0 "$IOSTORM" convert "$TMP/woken.csv" "$TMP/woken.ist"
expect_status 0 "$IOSTORM" replay "$TMP/woken.ist" --null --virtual-time --timing closed \
	--null-latency 1ms --serial-commits --commit-groups on --think-sched "$TMP/woken.sched" \
	--cpus 1 --json "$TMP/w1.json" --lat-log "$TMP/w1.lat"
expect_grep "^  commits    1 woken by another.s commit, ready after its release$" "$TMP/out"
expect_grep '"after_release": 1' "$TMP/w1.json"
expect_grep '^4,write,2,[0-9]+,4250000,' "$TMP/w1.lat"
expect_status 0 "$IOSTORM" replay "$TMP/woken.ist" --null --virtual-time --timing closed \
	--null-latency 1ms --serial-commits --think-sched "$TMP/woken.sched" --cpus 1 \
	--json "$TMP/w0.json" --lat-log "$TMP/w0.lat"
expect_grep '^4,write,2,[0-9]+,4000000,' "$TMP/w0.lat"
grep -q after_release "$TMP/w0.json" && fail "after_release without --commit-groups"
ok

# --holder-waits: stream 2 slept until stream 1, on the CPU after its
# commit, woke it (a row held through that commit), then waited for its
# client and committed (test_closed_holder_waits has the schedule): at 10
# us an I/O, its write at 520 us (stream 1's commit at 320 us plus its 200
# us of CPU after the wake-up), not at its think time's end (340 us)
printf '%s\n' "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags" \
	"0,0,write,0,4096,100000,2,1," "100000,0,flush,0,0,100000,2,1,commit|dependent" \
	"300000,0,write,4096,4096,100000,1,1," "400000,0,flush,0,0,100000,1,1,commit|dependent" \
	"850000,0,write,8192,4096,100000,2,2,dependent" \
	"950000,0,flush,0,0,100000,2,2,commit|dependent" >"$TMP/holder.csv"
printf '%s\n' "# iostorm-sched 2 runq cpu client" "c 2 200000 250000" "c 1 250000 300000" \
	"c 1 500000 600000" "r 2 520000 600000" "c 2 600000 700000" "w 2 700000 800000 50000" \
	"c 2 800000 850000" >"$TMP/holder.sched"
expect_status 0 "$IOSTORM" convert "$TMP/holder.csv" "$TMP/holder.ist"
expect_status 0 "$IOSTORM" replay "$TMP/holder.ist" --null --virtual-time --timing closed \
	--null-latency 10us --serial-commits --commit-groups on --think-sched "$TMP/holder.sched" \
	--cpus 1 --holder-waits on --json "$TMP/h1.json" --lat-log "$TMP/h1.lat"
expect_grep "^  commits    1 slept on another.s commit in the recording, 1 waited for it in the replay$" "$TMP/out"
expect_grep '"holder_waits": true' "$TMP/h1.json"
expect_grep '"holder_marked": 1' "$TMP/h1.json"
expect_grep '"holder_waited": 1' "$TMP/h1.json"
expect_grep '^4,write,2,[0-9]+,520000,' "$TMP/h1.lat"
expect_status 0 "$IOSTORM" replay "$TMP/holder.ist" --null --virtual-time --timing closed \
	--null-latency 10us --serial-commits --commit-groups on --think-sched "$TMP/holder.sched" \
	--cpus 1 --holder-waits off --json "$TMP/h0.json" --lat-log "$TMP/h0.lat"
expect_grep '^4,write,2,[0-9]+,340000,' "$TMP/h0.lat"
expect_grep '"holder_waits": false' "$TMP/h0.json"
grep -q holder_marked "$TMP/h0.json" && fail "holder_marked without --holder-waits"
grep -q "slept on another" "$TMP/out" && fail "the holder line without --holder-waits"
expect_status 2 "$IOSTORM" replay "$TMP/holder.ist" --null --timing closed --serial-commits \
	--commit-groups on --think-sched "$TMP/holder.sched" --holder-waits yes
expect_grep "bad --holder-waits 'yes' \\(on or off\\)" "$TMP/err"
expect_status 2 "$IOSTORM" replay "$TMP/holder.ist" --null --timing closed --serial-commits \
	--think-sched "$TMP/holder.sched" --holder-waits on
expect_grep "holder-waits on needs --commit-groups on and --think-sched" "$TMP/err"
expect_status 2 "$IOSTORM" replay "$TMP/holder.ist" --null --timing closed --serial-commits \
	--commit-groups on --holder-waits on
expect_grep "holder-waits on needs --commit-groups on and --think-sched" "$TMP/err"
expect_status 0 "$IOSTORM" replay "$TMP/holder.ist" --null --timing closed --serial-commits \
	--holder-waits off --quiet
ok

# --lock-handover: the three streams of test_closed_lock_handover (stream
# 1 commits 0 - 200 us; 2 and 3, asleep while the lock was held, wrote 150
# us after the releases, 50 of them on a CPU): at 1 ms an I/O stream 2's
# write goes at the release plus the median handover, 100 us: 2.1 ms
# (without: 2 ms), and carries 3
printf '%s\n' "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags" \
	"0,0,write,0,4096,100000,1,1," "0,0,read,65536,4096,50000,2,1," \
	"0,0,read,131072,4096,50000,3,1," "100000,0,flush,0,0,100000,1,1,commit|dependent" \
	"350000,0,write,4096,4096,100000,2,1,dependent" \
	"450000,0,flush,0,0,100000,2,1,commit|dependent" \
	"700000,0,write,8192,4096,100000,3,1,dependent" \
	"800000,0,flush,0,0,100000,3,1,commit|dependent" >"$TMP/ho.csv"
printf '%s\n' "# iostorm-sched 1 runq cpu" "c 2 300000 350000" "c 3 650000 700000" >"$TMP/ho.sched"
expect_status 0 "$IOSTORM" convert "$TMP/ho.csv" "$TMP/ho.ist"
expect_status 0 "$IOSTORM" replay "$TMP/ho.ist" --null --virtual-time --timing closed \
	--null-latency 1ms --serial-commits --commit-groups on --think-sched "$TMP/ho.sched" \
	--lock-handover on --json "$TMP/ho1.json" --lat-log "$TMP/ho1.lat"
expect_grep "^  handover   2 recorded; 1 lock takes after a wait delayed, 100.0 us each on average$" "$TMP/out"
expect_grep '"lock_handover": true' "$TMP/ho1.json"
expect_grep '"handover_samples": 2' "$TMP/ho1.json"
expect_grep '"handovers": 1' "$TMP/ho1.json"
expect_grep '"handover_ns": 100000' "$TMP/ho1.json"
expect_grep '^4,write,2,[0-9]+,2100000,' "$TMP/ho1.lat"
expect_status 0 "$IOSTORM" replay "$TMP/ho.ist" --null --virtual-time --timing closed \
	--null-latency 1ms --serial-commits --commit-groups on --think-sched "$TMP/ho.sched" \
	--lock-handover off --json "$TMP/ho0.json" --lat-log "$TMP/ho0.lat"
expect_grep '^4,write,2,[0-9]+,2000000,' "$TMP/ho0.lat"
expect_grep '"lock_handover": false' "$TMP/ho0.json"
grep -q handover_samples "$TMP/ho0.json" && fail "handover_samples without --lock-handover"
grep -q "^  handover" "$TMP/out" && fail "the handover line without --lock-handover"
expect_status 2 "$IOSTORM" replay "$TMP/ho.ist" --null --timing closed --serial-commits \
	--commit-groups on --think-sched "$TMP/ho.sched" --lock-handover 1
expect_grep "bad --lock-handover '1' \\(on or off\\)" "$TMP/err"
expect_status 2 "$IOSTORM" replay "$TMP/ho.ist" --null --timing closed --serial-commits \
	--think-sched "$TMP/ho.sched" --lock-handover on
expect_grep "lock-handover on needs --commit-groups on and --think-sched" "$TMP/err"
expect_status 2 "$IOSTORM" replay "$TMP/ho.ist" --null --timing closed --serial-commits \
	--commit-groups on --lock-handover on
expect_grep "lock-handover on needs --commit-groups on and --think-sched" "$TMP/err"
ok

# --think-sched: one client, a transaction of one 100 us read every 1 ms;
# 400 us of each 900 us think time it waited for a CPU (record --sched).
# At 10 us per I/O: one per 910 us without the sidecar, 510 us with it.
awk 'BEGIN {
	print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"
	for (i = 0; i <= 10; i++)
		printf "%d,0,read,%d,4096,100000,1,%d,%s\n", i * 1000000, i * 4096, i + 1, i ? "dependent" : ""
}' >"$TMP/think.csv"
{
	echo "# iostorm-sched 1 runq"
	for i in 0 1 2 3 4 5 6 7 8 9; do echo "1 ${i}200000 ${i}600000"; done
	echo "9 0 20000000"
} | sed 's/^1 0\([0-9]\)/1 \1/; s/ 0\([0-9]\)/ \1/g' >"$TMP/think.sched"
expect_status 0 "$IOSTORM" convert "$TMP/think.csv" "$TMP/think1.ist"
expect_status 0 "$IOSTORM" replay "$TMP/think1.ist" --null --virtual-time --timing closed \
	--null-latency 10us --json "$TMP/k0.json" --quiet
expect_status 0 "$IOSTORM" replay "$TMP/think1.ist" --null --virtual-time --timing closed \
	--null-latency 10us --json "$TMP/k1.json" --quiet --think-sched "$TMP/think.sched"
k0=$(ts "$TMP/k0.json"); k1=$(ts "$TMP/k1.json")
echo "think-sched: streams' TPS without $k0, with $k1"
awk -v a="$k0" 'BEGIN { exit !(a > 1090 && a < 1110) }' || fail "without: $k0, not 1099"
ok
awk -v a="$k1" 'BEGIN { exit !(a > 1950 && a < 1972) }' || fail "with: $k1, not 1961"
ok
expect_grep '"think_sched": ".*think.sched"' "$TMP/k1.json"
expect_grep '"think_sched": null' "$TMP/k0.json"
# refused: without closed timing, no file, not a sidecar, a bad line
expect_status 2 "$IOSTORM" replay "$TMP/think1.ist" --null --think-sched "$TMP/think.sched"
# an empty name as every command refuses one (empty_input_name.sh)
expect_status 1 "$IOSTORM" replay "$TMP/think1.ist" --null --timing closed --think-sched ""
expect_err_line "^iostorm: '': an empty input file name$"
expect_status 1 "$IOSTORM" replay "$TMP/think1.ist" --null --timing closed --think-sched "$TMP/none.sched"
expect_err_line "none.sched"
expect_status 1 "$IOSTORM" replay "$TMP/think1.ist" --null --timing closed --think-sched "$TMP/think.csv"
expect_err_line "think.csv: line 1: not a run-queue sidecar"
printf '# iostorm-sched 1 runq\n1 5 9\n1 9 5\n' >"$TMP/bad.sched"
expect_status 1 "$IOSTORM" replay "$TMP/think1.ist" --null --timing closed --think-sched "$TMP/bad.sched"
expect_err_line "bad.sched: line 3: expected '.*STREAM START_NS END_NS' with START <= END"
printf '# iostorm-sched 1 runq\n1 5 x9\n' >"$TMP/bad.sched"
expect_status 1 "$IOSTORM" replay "$TMP/think1.ist" --null --timing closed --think-sched "$TMP/bad.sched"
expect_err_line "bad.sched: line 2:"
# a NUL byte is named as such, not taken for the end of a long line
printf '# iostorm-sched 1 runq\n1 5 9\0x\n' >"$TMP/bad.sched"
expect_status 1 "$IOSTORM" replay "$TMP/think1.ist" --null --timing closed --think-sched "$TMP/bad.sched"
expect_err_line "^iostorm: .*bad.sched: line 2: NUL byte in line$"
# a time beyond 2^64-1 ns is refused, not clamped
printf '# iostorm-sched 1 runq\n1 5 9\n1 5 18446744073709551616\n' >"$TMP/bad.sched"
expect_status 1 "$IOSTORM" replay "$TMP/think1.ist" --null --timing closed --think-sched "$TMP/bad.sched"
expect_err_line "bad.sched: line 3:"
# a NUL byte was reported as a line "too long"; a directory as "empty"
printf '# iostorm-sched 1 runq\n1 5 9\n\0001 2 3\n' >"$TMP/bad.sched"
expect_status 1 "$IOSTORM" replay "$TMP/think1.ist" --null --timing closed --think-sched "$TMP/bad.sched"
expect_err_line "^iostorm: $TMP/bad.sched: line 3: NUL byte in line$"
mkdir "$TMP/dir.sched"
expect_status 1 "$IOSTORM" replay "$TMP/think1.ist" --null --timing closed --think-sched "$TMP/dir.sched"
expect_err_line "^iostorm: $TMP/dir.sched: Is a directory$"

# --cpus N: the on-CPU parts ("c" lines) of the think times on N CPUs.
# Two clients like the one above, 800 of each 900 us think on a CPU: each
# at its own pace unlimited (2 x 1099 TPS), one CPU between them: 2 x 1 /
# 1.6 ms (their CPU time queues, 1250 TPS in all).
awk 'BEGIN {
	print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"
	for (i = 0; i <= 20; i++)
		for (s = 1; s <= 2; s++)
			printf "%d,0,read,%d,4096,100000,%d,%d,%s\n", i * 1000000 + s * 1000,
				(2 * i + s) * 4096, s, i + 1, i ? "dependent" : ""
	print "# iostorm-sched 1 runq cpu" >"/dev/stderr"
	for (i = 0; i < 20; i++)
		for (s = 1; s <= 2; s++)
			printf "c %d %d %d\n", s, i * 1000000 + s * 1000 + 150000,
				i * 1000000 + s * 1000 + 950000 >"/dev/stderr"
}' >"$TMP/cpu.csv" 2>"$TMP/cpu.sched"
expect_status 0 "$IOSTORM" convert "$TMP/cpu.csv" "$TMP/cpu.ist"
expect_status 0 "$IOSTORM" replay "$TMP/cpu.ist" --null --virtual-time --timing closed \
	--null-latency 10us --json "$TMP/c0.json" --quiet --think-sched "$TMP/cpu.sched"
expect_status 0 "$IOSTORM" replay "$TMP/cpu.ist" --null --virtual-time --timing closed \
	--null-latency 10us --json "$TMP/c1.json" --quiet --think-sched "$TMP/cpu.sched" --cpus 1
c0=$(ts "$TMP/c0.json"); c1=$(ts "$TMP/c1.json")
echo "cpus: streams' TPS unlimited $c0, on 1 CPU $c1"
awk -v a="$c0" 'BEGIN { exit !(a > 2150 && a < 2250) }' || fail "unlimited: $c0, not 2198"
ok
awk -v a="$c1" 'BEGIN { exit !(a > 1200 && a < 1300) }' || fail "1 CPU: $c1, not 1250"
ok
expect_grep '"cpus": 1' "$TMP/c1.json"
expect_grep '"cpus": null' "$TMP/c0.json"
expect_grep '"cpu_scale": 1' "$TMP/c1.json"
# --cpu-scale: the CPU time served scaled (half of it: faster on 1 CPU)
expect_status 0 "$IOSTORM" replay "$TMP/cpu.ist" --null --virtual-time --timing closed \
	--null-latency 10us --json "$TMP/c2.json" --quiet --think-sched "$TMP/cpu.sched" --cpus 1 \
	--cpu-scale 0.5
c2=$(ts "$TMP/c2.json")
echo "cpus: on 1 CPU at --cpu-scale 0.5 $c2"
awk -v a="$c2" -v b="$c1" 'BEGIN { exit !(a > 1.3 * b) }' || fail "--cpu-scale 0.5: $c2, not above $c1"
ok
expect_grep '"cpu_scale": 0.5' "$TMP/c2.json"
for bad in 0 -1 x 1001 ""; do
	expect_status 2 "$IOSTORM" replay "$TMP/cpu.ist" --null --timing closed \
		--think-sched "$TMP/cpu.sched" --cpus 1 --cpu-scale "$bad"
	expect_grep "^iostorm replay: bad --cpu-scale '$bad'" "$TMP/err"
done
expect_status 2 "$IOSTORM" replay "$TMP/cpu.ist" --null --timing closed \
	--think-sched "$TMP/cpu.sched" --cpu-scale 0.5
expect_grep "^iostorm replay: --cpu-scale needs --cpus" "$TMP/err"
# --cpu-queue burst: two streams, each 100 us on a CPU, a round trip to
# its client (50 us of the client's CPU), 100 us on a CPU, then its next
# read (test_closed_cpu_bursts has the schedule): on one CPU, the gap at
# once (--cpu-queue gap), stream 1 reads at 260 us and stream 2 at 510;
# burst by burst (the default), the bursts interleave: 410 and 510 us
printf '%s\n' "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags" \
	"0,0,read,0,4096,100000,1,1," "5000,0,read,8192,4096,100000,2,1," \
	"1000000,0,read,4096,4096,100000,1,2,dependent" \
	"1005000,0,read,12288,4096,100000,2,2,dependent" >"$TMP/bursts.csv"
printf '%s\n' "# iostorm-sched 2 runq cpu client" "c 1 100000 200000" "c 2 105000 205000" \
	"w 1 200000 900000 50000" "w 2 205000 905000 50000" "c 1 900000 1000000" \
	"c 2 905000 1005000" >"$TMP/bursts.sched"
expect_status 0 "$IOSTORM" convert "$TMP/bursts.csv" "$TMP/bursts.ist"
expect_status 0 "$IOSTORM" replay "$TMP/bursts.ist" --null --virtual-time --timing closed \
	--null-latency 10us --think-sched "$TMP/bursts.sched" --cpus 1 --cpu-queue gap \
	--json "$TMP/q0.json" --lat-log "$TMP/q0.lat"
expect_grep '^2,read,1,[0-9]+,260000,' "$TMP/q0.lat"
expect_grep '^3,read,2,[0-9]+,510000,' "$TMP/q0.lat"
expect_grep '"cpu_queue": "gap"' "$TMP/q0.json"
expect_grep '"wait_ns": 245000' "$TMP/q0.json"
grep -q '"bursts"' "$TMP/q0.json" && fail "bursts counted with --cpu-queue gap"
expect_grep "^  cpu queue  61.2 us a transaction for the 1 virtual CPU \\(each gap\\)$" "$TMP/out"
expect_status 0 "$IOSTORM" replay "$TMP/bursts.ist" --null --virtual-time --timing closed \
	--null-latency 10us --think-sched "$TMP/bursts.sched" --cpus 1 \
	--json "$TMP/q1.json" --lat-log "$TMP/q1.lat"
expect_grep '^2,read,1,[0-9]+,410000,' "$TMP/q1.lat"
expect_grep '^3,read,2,[0-9]+,510000,' "$TMP/q1.lat"
expect_grep '"cpu_queue": "burst"' "$TMP/q1.json"
expect_grep '"wait_ns": 395000' "$TMP/q1.json"
expect_grep '"bursts": 6' "$TMP/q1.json"
expect_grep "^  cpu queue  98.8 us a transaction for the 1 virtual CPU \\(each burst\\)$" "$TMP/out"
expect_status 0 "$IOSTORM" replay "$TMP/bursts.ist" --null --virtual-time --timing closed \
	--null-latency 10us --think-sched "$TMP/bursts.sched" --cpus 1 --cpu-queue burst \
	--json "$TMP/q3.json" --quiet
expect_grep '"wait_ns": 395000' "$TMP/q3.json"
expect_status 0 "$IOSTORM" replay "$TMP/bursts.ist" --null --virtual-time --timing closed \
	--null-latency 10us --think-sched "$TMP/bursts.sched" --json "$TMP/q2.json" --quiet
expect_grep '"cpu_queue": null' "$TMP/q2.json"
grep -q '"wait_ns"' "$TMP/q2.json" && fail "a CPU queue without --cpus"
expect_status 2 "$IOSTORM" replay "$TMP/bursts.ist" --null --timing closed \
	--think-sched "$TMP/bursts.sched" --cpus 1 --cpu-queue each
expect_grep "^iostorm replay: bad --cpu-queue 'each' \\(gap or burst\\)" "$TMP/err"
expect_status 2 "$IOSTORM" replay "$TMP/bursts.ist" --null --timing closed \
	--think-sched "$TMP/bursts.sched" --cpu-queue burst
expect_grep "^iostorm replay: --cpu-queue needs --cpus" "$TMP/err"
ok

# the latencies of the streams counted in the streams' sum apart: a client
# of 200 transactions (20 us of think time each) and a background stream
# of 2, a second apart (test_closed_txn_latency_streams): its cycle of 1 s
# is in the transactions' max, not in the streams' row
awk 'BEGIN {
	print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"
	for (k = 0; k < 200; k++) {
		if (k == 1)
			print "50000,0,read,0,4096,100000,9,1,"
		printf "%d,0,read,%d,4096,100000,1,%d,%s\n", k * 120000, (k + 1) * 4096, k + 1,
			k ? "dependent" : ""
	}
	print "1000000000,0,read,0,4096,100000,9,2,dependent"
}' >"$TMP/bg.csv"
expect_status 0 "$IOSTORM" convert "$TMP/bg.csv" "$TMP/bg.ist"
expect_status 0 "$IOSTORM" replay "$TMP/bg.ist" --null --virtual-time --timing closed \
	--null-latency 10us --txn-latency cycle --json "$TMP/bg.json"
expect_grep "^transactions 202, " "$TMP/out"
expect_grep "^   streams +10.0 us +29.9 us +30.0 us .* 30.0 us +1.4 us$" "$TMP/out"
if command -v python3 >/dev/null; then
	python3 - "$TMP/bg.json" <<'PY' || fail "latency_streams_ns: not the client's 200 transactions"
import json, sys
t = json.load(open(sys.argv[1]))["transactions"]
s = t["latency_streams_ns"]
assert t["latency_ns"]["max"] == 999860000, t["latency_ns"]
assert s["count"] == 200 and s["max"] == 30000 and s["min"] == 10000, s
PY
	ok
else
	expect_grep '"latency_streams_ns": \{' "$TMP/bg.json"
fi
# --wake-cost: the same two clients, each gap's 840 us on a CPU after a
# wake-up by its read's completion (the sleep began before it).  Taken off
# only where the I/O completes in the issuing thread (--inline always on
# the null back-end): 2 x 19 wake-ups (the first bursts follow nothing).
awk 'BEGIN {
	print "# iostorm-sched 3 runq cpu runtime"
	for (i = 0; i < 20; i++)
		for (s = 1; s <= 2; s++) {
			t = i * 1000000 + s * 1000
			printf "r %d %d %d\n", s, t + 100000, t + 110000
			printf "c %d %d %d %d\n", s, t + 110000, t + 950000, 840000
		}
}' >"$TMP/wake.sched"
expect_status 0 "$IOSTORM" replay "$TMP/cpu.ist" --null --virtual-time --timing closed \
	--null-latency 10us --json "$TMP/w0.json" --quiet --think-sched "$TMP/wake.sched" --cpus 1
expect_status 0 "$IOSTORM" replay "$TMP/cpu.ist" --null --virtual-time --timing closed \
	--null-latency 10us --json "$TMP/w1.json" --think-sched "$TMP/wake.sched" --cpus 1 \
	--wake-cost 100us --inline always --no-progress
expect_grep "^  wake-ups   38 of the recorded not caused by the replay, 3.8 ms of CPU off at 100.0 us each; 0 kept$" "$TMP/out"
expect_status 0 "$IOSTORM" replay "$TMP/cpu.ist" --null --virtual-time --timing closed \
	--null-latency 10us --json "$TMP/w2.json" --quiet --think-sched "$TMP/wake.sched" --cpus 1 \
	--wake-cost 100us
w0=$(ts "$TMP/w0.json"); w1=$(ts "$TMP/w1.json"); w2=$(ts "$TMP/w2.json")
echo "wake-cost: on 1 CPU without $w0, 100 us a wake-up off $w1, I/O that sleeps $w2"
awk -v a="$w1" -v b="$w0" 'BEGIN { exit !(a > 1.08 * b) }' || fail "--wake-cost 100us: $w1, not above $w0"
ok
[ "$w2" = "$w0" ] || fail "--wake-cost with I/O that sleeps: $w2, not $w0"
ok
expect_grep '"wake_cost_ns": 100000' "$TMP/w1.json"
for kv in '"cost_ns": 100000' '"dropped": 38' '"kept": 0' '"cpu_dropped_ns": 3800000'; do
	expect_grep "$kv" "$TMP/w1.json"
done
for kv in '"dropped": 0' '"kept": 38' '"cpu_dropped_ns": 0'; do
	expect_grep "$kv" "$TMP/w2.json"
done
expect_grep '"wake_cost_ns": null' "$TMP/w0.json"
# auto: the 10th percentile of those bursts, 840 us (the bin's middle)
expect_status 0 "$IOSTORM" replay "$TMP/cpu.ist" --null --virtual-time --timing closed \
	--null-latency 10us --json "$TMP/w3.json" --quiet --think-sched "$TMP/wake.sched" --cpus 1 \
	--wake-cost auto --inline always
expect_grep '"wake_cost_ns": 840050' "$TMP/w3.json"
expect_grep "wake-up cost 840.0 us \\(the sidecar's bursts after wake-ups" "$TMP/w3.json"
for bad in x -1 2s ""; do
	expect_status 2 "$IOSTORM" replay "$TMP/cpu.ist" --null --timing closed \
		--think-sched "$TMP/wake.sched" --cpus 1 --wake-cost "$bad"
	expect_grep "^iostorm replay: bad --wake-cost '$bad' \\(auto, or a time up to 1s\\)$" "$TMP/err"
done
expect_status 2 "$IOSTORM" replay "$TMP/cpu.ist" --null --timing closed \
	--think-sched "$TMP/wake.sched" --wake-cost auto
expect_grep "^iostorm replay: --wake-cost needs --cpus" "$TMP/err"
# refused: bad N, no sidecar, a sidecar without on-CPU lines
for bad in 0 -1 x 1.5 4097 ""; do
	expect_status 2 "$IOSTORM" replay "$TMP/cpu.ist" --null --timing closed \
		--think-sched "$TMP/cpu.sched" --cpus "$bad"
	expect_grep "^iostorm replay: bad --cpus '$bad' \(1\.\.4096\)$" "$TMP/err"
done
expect_status 2 "$IOSTORM" replay "$TMP/cpu.ist" --null --timing closed --cpus 1
expect_grep "^iostorm replay: --cpus needs --think-sched" "$TMP/err"
expect_status 2 "$IOSTORM" replay "$TMP/cpu.ist" --null --think-sched "$TMP/cpu.sched" --cpus 1
expect_status 1 "$IOSTORM" replay "$TMP/think1.ist" --null --timing closed \
	--think-sched "$TMP/think.sched" --cpus 1
expect_err_line "think.sched: no on-CPU intervals"
done_ok
