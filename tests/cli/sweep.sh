#!/bin/sh
# SPDX-License-Identifier: MIT
# sweep.sh - iostorm sweep on the null back-end, a small file and a trace:
# grid and curve in the JSON result, report of it, errors.
. "$top_srcdir/tests/cli/lib.sh"
need_uring # replays on files or devices

count() { grep -c "\"$1\"" "$2"; }

# null back-end: 2 x 2 grid, rate curve from a list with "..."
expect_status 0 "$IOSTORM" sweep --pattern 4k-randread --null --threads 1,2 --qd 1,4 \
	--rates 25,50,...,100 --point 50ms -o "$TMP/null.json"
expect_grep '"schema": ?"iostorm-sweep/1"' "$TMP/null.json"
expect_eq "$(count threads "$TMP/null.json")" 10 "threads fields (4 grid, 4 curve, max point, settings)"
expect_eq "$(count pct "$TMP/null.json")" 4 "curve points"
expect_grep '^grid   2T4Q ' "$TMP/out"
expect_grep '^curve  100% \(' "$TMP/out"
expect_grep '^max [0-9]+ IOPS at [12]T[14]Q; result in ' "$TMP/out"

# a small file, created; a mixed pattern writes: allowed on files
expect_status 0 "$IOSTORM" sweep --pattern 4k-randrw --target "$TMP/f.img" --create --size 8M \
	--threads 1,2 --qd 2 --rates 50,100 --point 100ms -o "$TMP/file.json" --quiet
[ ! -s "$TMP/out" ] || fail "--quiet printed"; ok
expect_eq "$(count pct "$TMP/file.json")" 2 "curve points"
expect_grep '"target": ?"[^"]*f.img"' "$TMP/file.json"
if command -v python3 >/dev/null; then
	python3 - "$TMP/file.json" <<'PY' || fail "sweep JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
assert [(p["threads"], p["qd"]) for p in d["grid"]] == [(1, 2), (2, 2)], d["grid"]
assert all(p["iops"] > 0 and p["latency_ns"]["count"] > 0 for p in d["grid"] + d["curve"])
mx = d["max_iops"]
assert abs(d["curve"][0]["target_iops"] - mx / 2) < 1e-6 * mx
assert d["curve"][0]["iops"] < 0.8 * mx, (d["curve"][0]["iops"], mx)
PY
	ok
else
	skip_part "no python3: the content of the sweep JSON"
fi
# the report draws it as latency against IOPS
expect_status 0 "$IOSTORM" report "$TMP/file.json" "$TMP/null.json" -o "$TMP/s.html"
expect_grep '>Mean latency against IOPS<' "$TMP/s.html"
expect_grep '>file 2T \(QD 2..2\)<' "$TMP/s.html"
expect_grep '>null rate curve<' "$TMP/s.html"
if command -v xmllint >/dev/null; then
	xmllint --noout "$TMP/s.html" || fail "report not well-formed"
	ok
else
	skip_part "no xmllint: the report of a sweep is well-formed"
fi

# a trace (canonical CSV), repeated for as long as each point lasts
{
	echo "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"
	i=0
	while [ $i -lt 64 ]; do
		echo "$((i * 1000)),0,read,$(((i * 7919 % 512) * 4096)),4096,0,$((i % 4 + 1)),0,"
		i=$((i + 1))
	done
} >"$TMP/t.csv"
dd if=/dev/zero of="$TMP/g.img" bs=1M count=4 2>/dev/null
expect_status 0 "$IOSTORM" sweep "$TMP/t.csv" --target "$TMP/g.img" --threads 1 --qd 1,8 \
	--rates none --point 100ms -o "$TMP/trace.json"
expect_grep '"path": ?"[^"]*t.csv"' "$TMP/trace.json"
expect_eq "$(count pct "$TMP/trace.json")" 0 "no curve"

# a workload emulator, generated on the fly and scaled onto the target
expect_status 0 "$IOSTORM" sweep --synth sql-90-10 --set region=1G --null --size 64M \
	--threads 1,2 --qd 4 --rates 50 --point 100ms -o "$TMP/synth.json"
expect_grep '"profile": ?"sql-90-10"' "$TMP/synth.json"
expect_grep '"region=1G"' "$TMP/synth.json"
expect_grep '"remap": ?"scale"' "$TMP/synth.json"
expect_eq "$(count pct "$TMP/synth.json")" 1 "curve points"
expect_status 0 "$IOSTORM" sweep --synth "$top_srcdir/traces/profiles/oltp-70-30.ini" \
	--target "$TMP/f.img" --threads 1 --qd 2 --rates none --point 100ms -o "$TMP/ini.json"
printf '[nonsense\n' >"$TMP/bad.ini"
expect_status 1 "$IOSTORM" sweep --synth "$TMP/bad.ini" --null -o "$TMP/x.json"
expect_err_line "bad.ini: line 1"
expect_status 2 "$IOSTORM" sweep --synth nope --null -o "$TMP/x.json"
expect_grep "unknown synth profile 'nope'" "$TMP/err"
expect_status 2 "$IOSTORM" sweep --synth sql --set nope=1 --null -o "$TMP/x.json"
expect_grep "sql has no parameter 'nope'" "$TMP/err"
expect_status 2 "$IOSTORM" sweep --pattern 4k-randread --set a=1 --null -o "$TMP/x.json"
expect_status 2 "$IOSTORM" sweep --synth sql --null --remap bent -o "$TMP/x.json"

# SIGINT: the running point drains, the result says interrupted
"$IOSTORM" sweep --pattern 4k-randread --null --threads 1,2 --qd 1 --rates 50 --point 5s \
	-o "$TMP/int.json" >"$TMP/out" 2>"$TMP/err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
expect_eq "$?" 0 "exit status after SIGINT"
expect_grep '"interrupted": ?true' "$TMP/int.json"
expect_eq "$(count threads "$TMP/int.json")" 3 "threads fields (1 grid point, max point, settings)"
expect_grep '\(interrupted\)' "$TMP/out"

# errors
expect_status 1 "$IOSTORM" sweep "$TMP/missing.csv" --target "$TMP/g.img" --threads 1 --qd 1 \
	--rates none --point 50ms -o "$TMP/x.json"
expect_err_line "missing.csv"
[ ! -e "$TMP/x.json" ] || fail "output left after a failure"; ok
expect_status 1 "$IOSTORM" sweep --pattern 4k-randread --target "$TMP/nofile.img" -o "$TMP/x.json"
expect_err_line "nofile.img: No such file"
expect_status 2 "$IOSTORM" sweep --pattern 4k-randread -o "$TMP/x.json"
expect_status 2 "$IOSTORM" sweep --pattern 4k-randread --null
expect_status 2 "$IOSTORM" sweep "$TMP/t.csv" --pattern 4k-randread --null -o "$TMP/x.json"
expect_status 2 "$IOSTORM" sweep --pattern nope --null -o "$TMP/x.json"
expect_status 2 "$IOSTORM" sweep --pattern 4k-randread --null --threads 0 -o "$TMP/x.json"
expect_status 2 "$IOSTORM" sweep --pattern 4k-randread --null --rates 10,...,50 -o "$TMP/x.json"
expect_status 2 "$IOSTORM" sweep --pattern 4k-randread --null --point 1ms -o "$TMP/x.json"
# a value given twice is a usage error (--qd 1,4,4 measured 4 twice and
# wrote both points)
for l in "--qd 1,4,4" "--threads 2,1,2" "--rates 10,20,...,50,30"; do
	expect_status 2 "$IOSTORM" sweep --pattern 4k-randread --null $l --point 10ms -o "$TMP/x.json"
	expect_eq "$(head -1 "$TMP/err")" "iostorm sweep: ${l%% *}: $(echo "$l" | sed 's/.*[,]//') given twice (each point is measured once)" "sweep $l"
	[ ! -e "$TMP/x.json" ] || fail "sweep $l: result written"
done
# --region is the pattern's, --seed a profile's or pattern's: with another
# workload they were accepted and did nothing
printf 't_ns,dev,op,offset,len,lat_ns,stream,txn,flags\n0,0,read,0,4096,0,1,0,\n' >"$TMP/one.csv"
expect_status 2 "$IOSTORM" sweep "$TMP/one.csv" --null --region 1M --point 10ms -o "$TMP/x.json"
expect_eq "$(head -1 "$TMP/err")" "iostorm sweep: --region needs --pattern (a trace keeps its offsets, --remap fits them)" "sweep TRACE --region"
expect_status 2 "$IOSTORM" sweep --synth sql --null --region 1M --point 10ms -o "$TMP/x.json"
expect_eq "$(head -1 "$TMP/err")" "iostorm sweep: --region needs --pattern (a profile has its own: iostorm synth --describe)" "sweep --synth --region"
expect_status 2 "$IOSTORM" sweep "$TMP/one.csv" --null --seed 7 --point 10ms -o "$TMP/x.json"
expect_eq "$(head -1 "$TMP/err")" "iostorm sweep: --seed needs --synth or --pattern (a trace replays as recorded)" "sweep TRACE --seed"
[ ! -e "$TMP/x.json" ] || fail "sweep: result written after a usage error"
ok
# counts are whole numbers (1.5 threads ran 1 and the result said 1.5);
# an empty item is no item (1,,2 was taken as 1,2)
expect_status 2 "$IOSTORM" sweep --pattern 4k-randread --null --threads 1.5 -o "$TMP/x.json"
expect_eq "$(head -1 "$TMP/err")" "iostorm sweep: --threads: bad list '1.5' (whole numbers 1..64)" "sweep --threads 1.5"
expect_status 2 "$IOSTORM" sweep --pattern 4k-randread --null --qd 2,2.5 -o "$TMP/x.json"
expect_eq "$(head -1 "$TMP/err")" "iostorm sweep: --qd: bad list '2,2.5' (whole numbers 1..65536)" "sweep --qd 2,2.5"
for l in 1,,2 1, ,1; do
	expect_status 2 "$IOSTORM" sweep --pattern 4k-randread --null --threads "$l" -o "$TMP/x.json"
	expect_status 2 "$IOSTORM" sweep --pattern 4k-randread --null --rates "$l" -o "$TMP/x.json"
done
[ ! -e "$TMP/x.json" ] || fail "sweep wrote a result after a usage error"; ok
# the result over the trace, or into a missing directory: refused first
cp "$TMP/t.csv" "$TMP/keep.csv"
expect_status 1 "$IOSTORM" sweep "$TMP/keep.csv" --null --threads 1 --qd 1 --rates none \
	--point 20ms -o "$TMP/keep.csv"
expect_err_line "^iostorm: $TMP/keep.csv: is also an input \(it would be replaced\)$"
cmp -s "$TMP/t.csv" "$TMP/keep.csv" || fail "sweep replaced its trace"; ok
expect_status 1 "$IOSTORM" sweep --pattern 4k-randread --null --threads 1 --qd 1 --rates none \
	--point 20ms -o "$TMP/nodir/s.json"
expect_err_line "^iostorm: $TMP/nodir/s.json: cannot write the result there: No such file or directory$"
[ ! -s "$TMP/out" ] || fail "sweep ran before the result check"; ok
expect_status 0 "$IOSTORM" sweep --list
expect_grep '^4k-randwrite ' "$TMP/out"
expect_status 0 "$IOSTORM" sweep --help
done_ok
