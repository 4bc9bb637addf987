#!/bin/sh
# SPDX-License-Identifier: MIT
# replay-options.sh - an option that the chosen mode would ignore is a
# usage error (exit 2, nothing replayed), in any order of the options;
# the combinations that use it still run.
. "$top_srcdir/tests/cli/lib.sh"

printf '%s\n' t_ns,dev,op,offset,len,lat_ns,stream,txn,flags \
	0,0,read,0,4096,1000,1,1, 1000,0,write,4096,4096,1000,1,1,dependent \
	2000,0,read,8192,4096,1000,2,2, >"$TMP/t.csv"

# refused EXPECTED-MESSAGE OPTIONS...
refused() {
	msg=$1; shift
	expect_status 2 "$IOSTORM" replay "$TMP/t.csv" "$@" --json "$TMP/r.json"
	expect_eq "$(head -1 "$TMP/err")" "iostorm replay: $msg" "replay $*"
	[ ! -e "$TMP/r.json" ] || fail "replay $*: result written"
	ok
}
# --timing after --rate was dropped (the rate kept); before it, refused
refused "--rate and --timing closed exclude each other" --null --rate 100 --timing closed
refused "--rate and --timing closed exclude each other" --null --timing closed --rate 100
refused "--rate and --timing afap exclude each other" --null --rate 100 --timing afap
# --speed scales recorded times: afap and --rate have none
refused "--speed and --timing afap exclude each other (it scales the recorded times of original and closed timing)" \
	--null --timing afap --speed 2
refused "--speed and --rate exclude each other (it scales the recorded times of original and closed timing)" \
	--null --speed 2 --rate 100
# think times are closed timing's
refused "--think-scale needs --timing closed" --null --think-scale 2
# --pin: pinning where the default would not; the null back-end is never pinned
refused "--pin and --no-pin exclude each other" --target "$TMP/f.img" --pin --no-pin
refused "--pin needs a --target (the null back-end is not pinned)" --null --pin
refused "--think-scale needs --timing closed" --null --timing afap --think-scale 0.5
# the null back-end's latency, a created file's size
refused "--null-latency needs --null" --target "$TMP/f.img" --create --null-latency 10us
refused "--size needs --create" --target "$TMP/f.img" --size 1M
[ ! -e "$TMP/f.img" ] || fail "a target was created"
ok
# an empty window: --to 0 replayed the whole trace (0 stood for no --to),
# --from 1us --to 0 the trace from 1us on
refused "--to must be after --from" --null --to 0
refused "--to must be after --from" --null --from 1us --to 0
refused "--to must be after --from" --null --from 1us --to 1us
# the null back-end has no target: it was dropped
refused "--null and --target exclude each other" --null -t "$TMP/a.img"
refused "--null and --target exclude each other" -t "$TMP/a.img" --null
# one target per device: a second one was found after the targets were
# opened (and created), and as "target is empty" when both named device 0
refused "--target '$TMP/b.img': the devices without DEV= have a target already ('$TMP/a.img')" \
	-t "$TMP/a.img" -t "$TMP/b.img" --create
refused "--target '0=$TMP/b.img': device 0 has a target already ('$TMP/a.img')" \
	-t "0=$TMP/a.img" -t "0=$TMP/b.img" --create
[ ! -e "$TMP/a.img" ] && [ ! -e "$TMP/b.img" ] || fail "a refused --target was created"
ok
# a mapping the trace refuses (a device it lacks, a device left without a
# target): exit 1 before any target is made
printf '%s\n' t_ns,dev,op,offset,len,lat_ns,stream,txn,flags 0,0,read,0,4096,0,1,0, \
	10,1,read,0,4096,0,1,0, >"$TMP/two.csv"
expect_status 1 "$IOSTORM" replay "$TMP/t.csv" -t "0=$TMP/a.img" -t "1=$TMP/b.img" --create
expect_eq "$(cat "$TMP/err")" "iostorm: --target 1=$TMP/b.img: the trace has 1 device" "a device the trace lacks"
expect_status 1 "$IOSTORM" replay "$TMP/two.csv" -t "0=$TMP/a.img" --create
expect_eq "$(cat "$TMP/err")" "iostorm: trace device 1 (dev1) has no --target" "a device without a target"
[ ! -e "$TMP/a.img" ] && [ ! -e "$TMP/b.img" ] || fail "a target was created for a refused mapping"
ok
# --interval 0: no rows (as the man page says; it said "at least 1ms")
expect_status 0 "$IOSTORM" replay "$TMP/t.csv" --null --interval 0 --quiet --json "$TMP/i.json" \
	--csv-intervals "$TMP/i.csv"
expect_eq "$(tr -d ' \n' <"$TMP/i.json" | grep -o '"intervals":\[\]')" '"intervals":[]' "--interval 0: intervals"
expect_eq "$(wc -l <"$TMP/i.csv")" 1 "--interval 0: CSV rows (the header only)"
expect_status 0 "$IOSTORM" replay --help
expect_grep '^  -q, --iodepth N          in-flight cap per worker \(1-65536, default 64\)$' "$TMP/out"
expect_grep '^      --loop N             replay N times \(1-1000000\)$' "$TMP/out"
expect_grep '^      --seed N             seed of the write data \(default 0\)$' "$TMP/out"
# the ranges the usage errors give, in --help and the man page (--workers,
# --cpus and --cpu-scale had them in neither, or in the man page only)
expect_grep '^  -w, --workers N          worker threads, each with its own ring \(1-64,$' "$TMP/out"
expect_grep ' on N shared CPUs, 1-4096 \(default:$' "$TMP/out"
expect_grep "recording's; above 0, at most 1000, default 1\\)$" "$TMP/out"
expect_grep '^Worker threads, each with its own ring, 1 to 64 \(default 1\)\.$' "$top_srcdir/man/iostorm-replay.1"
expect_status 2 "$IOSTORM" replay "$TMP/t.csv" --null --workers 65
expect_eq "$(head -1 "$TMP/err")" "iostorm replay: bad --workers '65' (1..64)" "--workers 65"
for cmd in sweep precondition; do
	expect_status 0 "$IOSTORM" $cmd --help
	expect_grep '^      --size SIZE       size of a created file, or of the null target$' "$TMP/out"
	expect_grep '^                        \(default 1G\)$' "$TMP/out"
done
expect_status 2 "$IOSTORM" replay "$TMP/t.csv" --null --iodepth 65537
expect_status 2 "$IOSTORM" replay "$TMP/t.csv" --null --loop 1000001
# scales and rates whose times would not fit in 64 bits: refused (a
# conversion out of range is undefined; --speed 1e-300 ran in no time)
for o in "--speed 1e-7" "--speed 2e6" "--rate 1e-7" "--rate 2e12" "--timing closed --think-scale 2e6" \
	 "--timing closed --think-scale -1" "--speed nan" "--rate inf"; do
	expect_status 2 "$IOSTORM" replay "$TMP/t.csv" --null $o
	name=${o% *}
	expect_eq "$(head -1 "$TMP/err")" "iostorm replay: bad ${name##* } '${o##* }'" "replay $o"
done
expect_status 0 "$IOSTORM" replay "$TMP/t.csv" --null --virtual-time --speed 1e-6 --quiet --json "$TMP/s.json"
expect_grep '^    "elapsed_ns": 2000000000,$' "$TMP/s.json"

# used: still run
for o in "--rate 100 --timing original" "--timing original --rate 100" "--speed 2" \
	 "--timing closed --speed 2" "--timing closed --think-scale 0.5" \
	 "--null-latency 10us --virtual-time"; do
	expect_status 0 "$IOSTORM" replay "$TMP/t.csv" --null $o --quiet --json "$TMP/ok.json"
done

# --duration ends every worker, also one that the trace gives nothing (one
# device, two workers): it waited for the decoder, the decoder for the
# other worker's queue, and a looped replay (sweep's and precondition's
# points repeat the trace) never ended
command -v timeout >/dev/null || skip "no timeout(1)"
expect_status 0 timeout 60 "$IOSTORM" replay "$TMP/t.csv" --null -w 2 --timing afap --loop 1000000 \
	--duration 200ms --quiet --json "$TMP/d.json"
expect_grep '"interrupted": false' "$TMP/d.json"
# ... and the decoder stops reading once the run stopped: it read on until
# the worker's queue was full (65536 records: 21845 rewinds of the 3-record
# CSV, over 60 s under clang's ASan), so the records read exceeded the I/Os
# done by exactly a queue; now by what was queued at the stop.  The IST of
# t.csv is replayed here: each of its rewinds loads the chunk again, so the
# decoder is what limits this run and little is queued at the stop
# (hundreds); the CSV, kept in memory, is rewound for nothing and keeps the
# queue full, which says nothing of when the decoder stopped.
"$IOSTORM" convert "$TMP/t.csv" "$TMP/t.ist" || fail "convert t.csv"
expect_status 0 timeout 60 "$IOSTORM" replay "$TMP/t.ist" --null -w 2 --timing afap --loop 1000000 \
	--duration 200ms --quiet --json "$TMP/d.json"
extra=$(awk '/^  "totals": \{/ { t = 1 } t && /"records":/ { r = $2 + 0 }
	t && /"ios":/ { print r - $2; exit }' "$TMP/d.json")
[ -n "$extra" ] && [ "$extra" -lt 32768 ] ||
	fail "records read past the I/Os done at the stop: '$extra' (a full queue is 65536)"
ok
expect_status 0 timeout 60 "$IOSTORM" replay "$TMP/t.csv" --null -w 3 --loop 1000000 --duration 200ms \
	--quiet --json "$TMP/d.json"
expect_status 0 timeout 60 "$IOSTORM" sweep "$TMP/t.csv" --null --threads 4 --qd 4 --rates 50 \
	--point 100ms --quiet -o "$TMP/sw.json"
# (a workload of 50 ms: the 3 records of t.csv, 2 us long, were looped
# and their CSV rewound 50000 times a round, over 60 s under ASan here)
awk 'BEGIN { print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"
	for (i = 0; i < 1000; i++) printf "%d,0,%s,%d,4096,1000,%d,%d,\n", i * 50000,
		(i % 3) ? "read" : "write", (i % 256) * 4096, i % 2 + 1, i + 1 }' >"$TMP/pcw.csv"
expect_status 4 timeout 60 "$IOSTORM" precondition --null --size 64M --workload "$TMP/pcw.csv" \
	--passes 0 --round 100ms --max-rounds 2 --quiet -o "$TMP/pc.json"
# a small CSV is kept in memory from its pre-scan, so a looped replay
# rewinds it for nothing: the 3 records of t.csv looped over 100 ms rounds
# (50000 rewinds a round; 60 s under ASan, each a new reader, before)
expect_status 4 timeout 60 "$IOSTORM" precondition --null --size 64M --workload "$TMP/t.csv" \
	--passes 0 --round 100ms --max-rounds 2 --quiet -o "$TMP/pc.json"
expect_status 0 "$IOSTORM" replay "$TMP/t.csv" --null --timing afap --loop 7 --quiet --json "$TMP/l.json"
expect_grep '^    "records": 21,$' "$TMP/l.json"
# one above the 65536 records kept: streamed, and rewound through a new reader
awk 'BEGIN { print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"
	for (i = 0; i < 65537; i++) printf "%d,0,%s,%d,512,0,1,%d,\n", i,
		(i % 2) ? "read" : "write", (i % 1024) * 512, i + 1 }' >"$TMP/big.csv"
expect_status 0 "$IOSTORM" replay "$TMP/big.csv" --null --timing afap --loop 2 --quiet --json "$TMP/l.json"
expect_grep '^    "records": 131074,$' "$TMP/l.json"
expect_grep '^    "bytes": 67109888,$' "$TMP/l.json"
# a bad line past the records kept is still named by its line
echo '70000,0,reed,0,512,0,1,1,' >>"$TMP/big.csv"
expect_status 1 "$IOSTORM" replay "$TMP/big.csv" --null --timing afap --quiet
expect_grep "line 65539" "$TMP/err"
# --data dedupe:PCT to 0.01 % (33.3 was rounded to 33, and reported so);
# finer is a usage error naming the option, in replay, sweep, precondition
expect_status 0 "$IOSTORM" replay "$TMP/t.csv" --null --data dedupe:33.3 --quiet --json "$TMP/d.json"
expect_grep '"data": "dedupe:33.3",' "$TMP/d.json"
expect_status 2 "$IOSTORM" replay "$TMP/t.csv" --null --data dedupe:33.333
expect_eq "$(head -1 "$TMP/err")" \
	"iostorm replay: bad --data 'dedupe:33.333' (PCT from 0 to 100, in steps of 0.01)" "dedupe:33.333"
expect_status 2 "$IOSTORM" replay "$TMP/t.csv" --null --data compress:2.555
expect_eq "$(head -1 "$TMP/err")" \
	"iostorm replay: bad --data 'compress:2.555' (RATIO from 1 to 1000, in steps of 0.01)" "compress:2.555"
for cmd in sweep precondition; do
	expect_status 2 "$IOSTORM" $cmd "$TMP/t.csv" --null --data dedupe:12.345 -o "$TMP/x.json"
	expect_eq "$(head -1 "$TMP/err")" \
		"iostorm $cmd: --data: bad pattern 'dedupe:12.345' (PCT from 0 to 100, in steps of 0.01)" "$cmd"
done
done_ok
