#!/bin/sh
# SPDX-License-Identifier: MIT
# precondition.sh - iostorm precondition on the null back-end and a small
# file: fill, rounds, steady-state verdict, JSON curve, report, errors.
. "$top_srcdir/tests/cli/lib.sh"
need_uring # replays on files or devices

# null back-end, fewer rounds than a window: no steady state (exit 4),
# the curve is written all the same
expect_status 4 "$IOSTORM" precondition --null --size 16M --passes 1 --round 20ms \
	--max-rounds 3 --threads 1 --qd 4 -o "$TMP/n.json"
expect_grep '"schema": ?"iostorm-precondition/1"' "$TMP/n.json"
# the head every result has: the tool, the command line, the start (UTC)
expect_grep '"name": ?"iostorm"' "$TMP/n.json"
expect_grep '"version": ?"[0-9]+\.[0-9]+\.[0-9]+"' "$TMP/n.json"
expect_grep '"command": ?"iostorm precondition --null --size 16M --passes 1 --round 20ms --max-rounds 3 --threads 1 --qd 4 -o [^"]*/n\.json"' "$TMP/n.json"
expect_grep '"started": ?"20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]Z"' "$TMP/n.json"
expect_grep '"interrupted": ?false' "$TMP/n.json"
expect_grep '"reached": ?false' "$TMP/n.json"
expect_eq "$(grep -c '"round"' "$TMP/n.json")" 3 "rounds"
expect_grep '^no steady state after 3 rounds' "$TMP/out"
expect_grep '^fill ' "$TMP/out"

# a small file: one fill pass, then 4 KiB random writes until steady
# (0) or 8 rounds (4)
"$IOSTORM" precondition "$TMP/p.img" --create --size 8M --passes 1 --round 100ms \
	--max-rounds 8 --threads 1 --qd 4 -o "$TMP/p.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 4 ] || { cat "$TMP/err" >&2; fail "exit $rc"; }; ok
expect_grep '"passes": ?1' "$TMP/p.json"
expect_grep '"bytes": ?8388608' "$TMP/p.json"
if [ $rc -eq 0 ]; then
	expect_grep '"reached": ?true' "$TMP/p.json"
	expect_grep '^steady state in rounds ' "$TMP/out"
else
	expect_grep '"reached": ?false' "$TMP/p.json"
fi
if command -v python3 >/dev/null; then
	python3 - "$TMP/p.json" $rc <<'PY' || fail "precondition JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["rounds"]
assert 5 <= len(r) <= 8 if sys.argv[2] == "0" else len(r) == 8, len(r)
assert [x["round"] for x in r] == list(range(1, len(r) + 1))
assert all(x["iops"] > 0 for x in r)
ss = d["steady_state"]
w = [x["iops"] for x in r[-5:]]
avg = sum(w) / 5
assert abs(ss["average"] - avg) < 1e-6 * avg
assert abs(ss["excursion"] - (max(w) - min(w)) / avg) < 1e-9
assert ss["reached"] == (ss["excursion"] <= 0.2 and ss["slope_excursion"] <= 0.1)
PY
	ok
else
	skip_part "no python3: the content of the precondition JSON"
fi
expect_status 0 "$IOSTORM" report "$TMP/p.json" -o "$TMP/p.html"
expect_grep '>Preconditioning: IOPS per round<' "$TMP/p.html"
expect_grep '>Preconditioning: latency per round<' "$TMP/p.html"

# a synth profile as the workload
expect_status 4 "$IOSTORM" precondition --null --size 16M --passes 0 --round 20ms \
	--max-rounds 2 --workload sql-80-20 --threads 1 --qd 4 -o "$TMP/s.json"
expect_grep '"workload": ?"sql-80-20"' "$TMP/s.json"
expect_status 2 "$IOSTORM" precondition --null --workload sql --set bogus=1 -o "$TMP/x.json"
expect_status 2 "$IOSTORM" precondition --null --set a=1 -o "$TMP/x.json"

# errors
expect_status 1 "$IOSTORM" precondition "$TMP/none.img" --passes 0 --round 20ms -o "$TMP/x.json"
expect_err_line "none.img: No such file"
[ ! -e "$TMP/x.json" ] || fail "output left after a failure"; ok
expect_status 1 "$IOSTORM" precondition --null --size 64k -o "$TMP/x.json"
expect_err_line "too small"
expect_status 1 "$IOSTORM" precondition --null --passes 0 --workload "$TMP/missing.ist" \
	--round 20ms -o "$TMP/x.json"
expect_err_line "missing.ist"
# a mistyped pattern or profile: said so, not only "No such file"
expect_status 1 "$IOSTORM" precondition --null --passes 0 --workload 4k-randwrit \
	--round 20ms -o "$TMP/x.json"
expect_eq "$(cat "$TMP/err")" "iostorm: 4k-randwrit: No such file or directory, nor a built-in pattern (iostorm sweep --list) or a synth profile (iostorm synth --list)" "--workload 4k-randwrit"
# an existing file with data is not overwritten without --allow-write
# (it was, silently); nor is the result written over TARGET or a trace
head -c 1048576 /dev/urandom >"$TMP/data.db"
sum=$(cksum <"$TMP/data.db")
expect_status 1 "$IOSTORM" precondition "$TMP/data.db" --passes 1 --round 20ms \
	--max-rounds 1 -o "$TMP/x.json"
expect_err_line "^iostorm: $TMP/data.db: refused: an existing file of 1048576 bytes; preconditioning overwrites it \(--allow-write permits it\)$"
expect_eq "$(cksum <"$TMP/data.db")" "$sum" "the existing file after a refusal"
[ ! -e "$TMP/x.json" ] || fail "output left after a refusal"; ok
# ... a read-only workload without fill needs no permission
expect_status 4 "$IOSTORM" precondition "$TMP/data.db" --passes 0 --workload 4k-randread \
	--round 20ms --max-rounds 1 --threads 1 --qd 1 --quiet -o "$TMP/x.json"
expect_eq "$(cksum <"$TMP/data.db")" "$sum" "the existing file after a read-only run"
expect_status 1 "$IOSTORM" precondition "$TMP/data.db" --allow-write --passes 1 --round 20ms \
	--max-rounds 1 -o "$TMP/data.db"
expect_err_line "^iostorm: $TMP/data.db: is also an input \(it would be replaced\)$"
# the workload's trace as TARGET: the fill overwrote it first
printf 't_ns,dev,op,offset,len,lat_ns,stream,txn,flags\n0,0,write,0,4096,0,0,0,\n' >"$TMP/w.csv"
"$IOSTORM" convert "$TMP/w.csv" "$TMP/w.ist" || fail "convert"
sum=$(cksum <"$TMP/w.ist")
expect_status 1 "$IOSTORM" precondition "$TMP/w.ist" --allow-write --workload "$TMP/./w.ist" \
	--round 20ms --max-rounds 1 -o "$TMP/x.json"
expect_err_line "^iostorm: $TMP/w.ist: refused: the target is the workload's trace$"
expect_eq "$(cksum <"$TMP/w.ist")" "$sum" "the workload's trace after a refusal"
# a result that cannot be written is found before the run, not after it
expect_status 1 "$IOSTORM" precondition --null --size 16M --passes 1 --round 20ms \
	--max-rounds 1 -o "$TMP/nodir/x.json"
expect_err_line "^iostorm: $TMP/nodir/x.json: cannot write the result there: No such file or directory$"
[ ! -s "$TMP/out" ] || fail "a run started before the output check"; ok
expect_status 2 "$IOSTORM" precondition --null
expect_status 2 "$IOSTORM" precondition -o "$TMP/x.json"
expect_status 2 "$IOSTORM" precondition --null --max-rounds 0 -o "$TMP/x.json"
expect_status 2 "$IOSTORM" precondition --null --round 1ms -o "$TMP/x.json"
# the ranges, in the messages as in --help and the man page (--qd's and
# --region's messages gave none)
expect_status 2 "$IOSTORM" precondition --null --qd 65537 -o "$TMP/x.json"
expect_eq "$(head -1 "$TMP/err")" "iostorm precondition: --qd: bad number '65537' (1..65536)" "--qd 65537"
expect_status 2 "$IOSTORM" precondition --null --region 4095 -o "$TMP/x.json"
expect_eq "$(head -1 "$TMP/err")" "iostorm precondition: --region: bad size '4095' (at least 4k)" "--region 4095"
expect_status 2 "$IOSTORM" sweep --null --pattern 4k-randread --region 4095 -o "$TMP/x.json"
expect_eq "$(head -1 "$TMP/err")" "iostorm sweep: --region: bad size '4095' (at least 4k)" "sweep --region 4095"
expect_status 0 "$IOSTORM" precondition --help
for r in "--passes N        sequential fill passes, 0-100" "--round T         length of a round, at least 10ms" \
	 "--max-rounds N    give up after N rounds, 1-1000" "--threads N       threads of the workload, 1-64" \
	 "--qd N            queue depth per thread, 1-65536" "--region SIZE     bytes of the target used, at least 4k"; do
	grep -qF -- "$r" "$TMP/out" || fail "precondition --help: no '$r'"
done
ok
expect_status 2 "$IOSTORM" precondition "$TMP/p.img" --null -o "$TMP/x.json"
expect_eq "$(head -1 "$TMP/err")" "iostorm precondition: --null and TARGET exclude each other" "TARGET with --null"
expect_status 2 "$IOSTORM" precondition -o "$TMP/x.json"
expect_eq "$(head -1 "$TMP/err")" "iostorm precondition: no TARGET given" "no TARGET"
expect_status 2 "$IOSTORM" precondition --null --size 1k -o "$TMP/x.json"
expect_eq "$(head -1 "$TMP/err")" "iostorm precondition: --size: bad size '1k'" "--size 1k"
expect_status 2 "$IOSTORM" precondition --null --data bogus -o "$TMP/x.json"
expect_eq "$(head -1 "$TMP/err")" "iostorm precondition: --data: bad pattern 'bogus'" "--data bogus"
# the null target's size: --size, else 1 GiB; --region of it
expect_status 4 "$IOSTORM" precondition --null --size 4M --passes 1 --round 20ms --max-rounds 1 \
	--threads 1 --qd 1 --quiet -o "$TMP/n4.json"
expect_grep '"bytes": ?4194304' "$TMP/n4.json"
expect_status 4 "$IOSTORM" precondition --null --size 4M --region 1M --passes 1 --round 20ms \
	--max-rounds 1 --threads 1 --qd 1 --quiet -o "$TMP/n1.json"
expect_grep '"bytes": ?1048576' "$TMP/n1.json"
expect_status 4 "$IOSTORM" precondition --null --passes 0 --round 20ms --max-rounds 1 \
	--threads 1 --qd 1 --quiet -o "$TMP/ng.json"
expect_grep '"region": ?1073741824' "$TMP/ng.json"
expect_status 0 "$IOSTORM" precondition --help
expect_grep 'SNIA PTS' "$TMP/out"
done_ok
