#!/bin/sh
# SPDX-License-Identifier: MIT
# synth.sh - `iostorm synth`: profiles, determinism, errors, outputs.
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/synth"

# --list names every profile; each one describes itself
expect_status 0 "$IOSTORM" synth --list
n=$(wc -l <"$TMP/out")
expect_eq "$n" 17 "profiles listed"
for p in $(cut -d' ' -f1 "$TMP/out"); do
	expect_status 0 "$IOSTORM" synth "$p" --describe
	expect_grep '^PARAMETER +DEFAULT +UNIT +MEANING \[SOURCE\]' "$TMP/out"
done
expect_status 0 "$IOSTORM" synth vdi-boot --describe
expect_grep '^clone +linked .*one of full\|linked' "$TMP/out"

# same seed -> same bytes; another seed -> another trace
expect_status 0 "$IOSTORM" synth sysbench-oltp --duration 1s --seed 7 -o "$TMP/a.ist"
expect_grep "^$TMP/a.ist: [0-9]+ records, sysbench-oltp, seed 7" "$TMP/out"
expect_status 0 "$IOSTORM" synth sysbench-oltp --duration 1s --seed 7 -o "$TMP/b.ist"
cmp "$TMP/a.ist" "$TMP/b.ist" || fail "same seed gave different files"
ok
expect_status 0 "$IOSTORM" synth sysbench-oltp --duration 1s --seed 8 -o "$TMP/c.ist"
cmp -s "$TMP/a.ist" "$TMP/c.ist" && fail "different seeds gave the same file"
ok

# the header says where the trace comes from
expect_status 0 "$IOSTORM" stats --json "$TMP/a.ist"
expect_grep '"source": "synth", "profile": "sysbench-oltp", "parameters": "tables=100,' "$TMP/out"
expect_grep '"seed": "7", "duration_ns": "1000000000", "nominal_latency_ns": "200000"' "$TMP/out"

# canonical CSV output: the same records as the IST file
expect_status 0 "$IOSTORM" synth sysbench-oltp --duration 1s --seed 7 -o "$TMP/a.csv"
expect_status 0 "$IOSTORM" convert "$TMP/a.ist" "$TMP/conv.csv"
grep -v '^#' "$TMP/conv.csv" | grep -v '^t_ns' >"$TMP/cat.csv"
grep -v '^t_ns' "$TMP/a.csv" >"$TMP/gen.csv"
cmp "$TMP/cat.csv" "$TMP/gen.csv" || fail "CSV and IST outputs differ"
ok

# a user INI profile, by path; its parameters as --set
expect_status 0 "$IOSTORM" synth "$D/small.ini" --duration 100ms -o "$TMP/m.ist"
expect_status 0 "$IOSTORM" stats --json "$TMP/m.ist"
expect_grep '"ios_per_txn": 2.0000' "$TMP/out"
expect_status 0 "$IOSTORM" synth mix --set "file=$D/small.ini" --duration 100ms -o "$TMP/m2.ist"
cmp "$TMP/m.ist" "$TMP/m2.ist" || fail "mix FILE and --set file=FILE differ"
ok

# errors: one line, exit 1 for bad input, 2 for usage; no output left
expect_status 1 "$IOSTORM" synth "$D/bad-skew.ini" -o "$TMP/bad.ist"
expect_err_line "^iostorm: $D/bad-skew.ini: line 3: skew must be none, hotspot:IO:SPACE or zipf:THETA\$"
[ ! -e "$TMP/bad.ist" ] || fail "output left after a bad profile"
ok
expect_status 1 "$IOSTORM" synth "$TMP/none.ini" -o "$TMP/bad.ist"
expect_err_line "^iostorm: $TMP/none.ini: No such file or directory\$"
expect_status 1 "$IOSTORM" synth mix -o "$TMP/bad.ist"
expect_err_line '^iostorm: mix: mix needs a profile: --set file=PROFILE.ini$'
expect_status 1 "$IOSTORM" synth tpcc --set db-size=1G -o "$TMP/bad.ist"
expect_err_line '^iostorm: tpcc: db-size too small: at least 51 MiB per warehouse$'
expect_status 2 "$IOSTORM" synth nosuch -o "$TMP/bad.ist"
expect_grep "unknown profile 'nosuch'" "$TMP/err"
expect_status 2 "$IOSTORM" synth tpcc --set colour=red -o "$TMP/bad.ist"
expect_grep "tpcc has no parameter 'colour'" "$TMP/err"
expect_status 2 "$IOSTORM" synth tpcc --set users=0 -o "$TMP/bad.ist"
expect_grep "bad value in 'users=0' \(out of range\)" "$TMP/err"
expect_status 2 "$IOSTORM" synth vdi-boot --set clone=half -o "$TMP/bad.ist"
expect_status 2 "$IOSTORM" synth tpcc
expect_grep "no output" "$TMP/err"
expect_status 2 "$IOSTORM" synth tpcc --duration 0 -o "$TMP/bad.ist"
expect_status 2 "$IOSTORM" synth
# --fast is the IST writer's: with a CSV output it was ignored (convert and
# record refuse it)
expect_status 2 "$IOSTORM" synth tpcc -d 100ms --fast -o "$TMP/bad.csv"
expect_eq "$(head -1 "$TMP/err")" "iostorm synth: --fast applies to an IST output (OUT is CSV)" "synth --fast -o x.csv"
[ ! -e "$TMP/bad.csv" ] || fail "synth --fast -o x.csv: output written"
[ ! -e "$TMP/bad.ist" ] || fail "output left after an error"
ok
expect_status 0 "$IOSTORM" synth --help
expect_grep '^Usage: iostorm synth PROFILE' "$TMP/out"

# the manual agrees with the code: every option of --help is in
# iostorm-synth(1); the parameter tables of iostorm-workloads(7) are what
# --describe says today
for opt in $(grep -Eo -- '--[a-z]+' "$TMP/out" | sort -u); do
	grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" "$top_srcdir/man/iostorm-synth.1" ||
		fail "$opt missing from iostorm-synth.1"
	ok
done
"$top_srcdir/traces/gen-workloads-man.sh" "$IOSTORM" \
	"$top_srcdir/man/iostorm-workloads.7" >"$TMP/w.7"
cmp "$TMP/w.7" "$top_srcdir/man/iostorm-workloads.7" ||
	fail "iostorm-workloads.7 is stale: run traces/gen-workloads-man.sh"
ok
done_ok
