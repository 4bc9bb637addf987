#!/bin/sh
# SPDX-License-Identifier: MIT
# compare.sh - iostorm compare: exit codes on crafted pairs (regression,
# improvement, noise, incomparable), --json, usage errors.
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/report"
TH="--max-iops-drop 5% --max-p99-rise 10% --max-tps-drop 5%"

# a clear regression: -16% IOPS, +25% latency, significant
expect_status 1 "$IOSTORM" compare "$D/base.json" "$D/regress.json" $TH
expect_grep '^IOPS .*-15\.[0-9]%.*FAIL: limit 5%, significant' "$TMP/out"
expect_grep '^p99 latency .*FAIL: limit 10%, significant' "$TMP/out"
expect_grep '^verdict: REGRESSION \(3 thresholds failed\)' "$TMP/out"
# a clear improvement passes
expect_status 0 "$IOSTORM" compare "$D/base.json" "$D/improve.json" $TH
expect_grep '^IOPS .*\+16\.[0-9]%.*ok \(limit 5%\), significant' "$TMP/out"
expect_grep '^verdict: pass$' "$TMP/out"
# the same drive twice: a 1% limit crossed by noise passes, reported
expect_status 0 "$IOSTORM" compare "$D/noisy-a.json" "$D/noisy-b.json" --max-iops-drop 1
expect_grep '^IOPS .*pass \(noise\): limit 1%, not significant' "$TMP/out"
expect_grep '^verdict: pass \(1 threshold crossed within the noise: not significant\)' "$TMP/out"
# a drop larger than the noise fails even though the noise is large
expect_status 1 "$IOSTORM" compare "$D/noisy-a.json" "$D/regress.json" --max-iops-drop 5
# incomparable: another trace, other settings; the reason is given
expect_status 3 "$IOSTORM" compare "$D/base.json" "$D/other-trace.json" $TH
expect_err_line "not comparable: different trace: 1500000 records vs 900000"
expect_status 3 "$IOSTORM" compare "$D/base.json" "$D/other-qd.json" $TH
expect_err_line "not comparable: different setting iodepth: 32 vs 64"
expect_status 0 "$IOSTORM" compare "$D/base.json" "$D/other-qd.json" $TH --ignore iodepth
expect_status 3 "$IOSTORM" compare "$D/base.json" "$D/afap-long.json"
expect_err_line "interrupted"
# a sweep or preconditioning result is no replay run: bad input, exit 1
# (it was 3, "not comparable", as if two runs differed), nothing on stdout
for f in sweep precond; do
	expect_status 1 "$IOSTORM" compare "$D/base.json" "$D/$f.json"
	expect_err_line "^iostorm: .*/$f.json: a (sweep|preconditioning) result \\(iostorm-$f[a-z]*/1\\), not a replay's: compare takes replay results"
	expect_status 1 "$IOSTORM" compare --json "$D/$f.json" "$D/base.json"
	expect_err_line "/$f.json: a "
	[ ! -s "$TMP/out" ] || fail "compare $f: output for a refused file"
	ok
done
expect_status 1 "$IOSTORM" compare "$D/sweep.json" "$D/sweep.json"
# an empty result file (was "line 1: truncated JSON")
: >"$TMP/empty.json"
expect_status 1 "$IOSTORM" compare "$D/base.json" "$TMP/empty.json"
expect_err_line "^iostorm: $TMP/empty.json: empty file$"

# --json for CI
expect_status 1 "$IOSTORM" compare --json "$D/base.json" "$D/regress.json" $TH
expect_grep '"schema": ?"iostorm-compare/1"' "$TMP/out"
expect_grep '"verdict": ?"regression"' "$TMP/out"
expect_grep '"exit_status": ?1' "$TMP/out"
expect_grep '"figure": ?"lat_p99"' "$TMP/out"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f={x["figure"]: x for x in d["figures"]}; assert f["iops"]["fails"] and f["iops"]["significant"] and f["iops"]["ci_high_pct"] < 0, f["iops"]' \
		"$TMP/out" || fail "compare --json content"
	ok
else
	skip_part "no python3: the content of compare --json"
fi
expect_status 0 "$IOSTORM" compare --json "$D/noisy-a.json" "$D/noisy-b.json" --max-iops-drop 1%
expect_grep '"crossed_within_noise": ?1' "$TMP/out"
expect_grep '"significant": ?false' "$TMP/out"
expect_status 3 "$IOSTORM" compare --json "$D/base.json" "$D/other-qd.json"
expect_grep '"verdict": ?"incomparable"' "$TMP/out"
expect_grep '"different setting iodepth: 32 vs 64"' "$TMP/out"
# a threshold on a figure neither run has is not checked, and says so
expect_status 0 "$IOSTORM" compare "$D/afap-long.json" "$D/afap-long.json" --max-tps-drop 5 \
	--ignore interrupted
expect_err_line "warning: neither run has TPS-eq: its threshold is not checked"
expect_status 3 "$IOSTORM" compare "$D/afap-long.json" "$D/afap-long.json" --max-tps-drop 5
# generic thresholds
expect_status 1 "$IOSTORM" compare "$D/base.json" "$D/regress.json" --max-rise lat_mean=20
expect_status 0 "$IOSTORM" compare "$D/base.json" "$D/regress.json" --max-rise lat_mean=30
expect_status 0 "$IOSTORM" compare --list
expect_grep '^lat_p99 ' "$TMP/out"

# bad input and usage errors
printf '{"schema": "iostorm-replay/1"}' >"$TMP/bad.json"
expect_status 1 "$IOSTORM" compare "$D/base.json" "$TMP/bad.json"
expect_err_line "bad.json: run.elapsed_ns: missing"
# a negative or non-numeric figure is bad input: a negative IOPS was a
# -100% change "not significant", and the gate passed
if command -v python3 >/dev/null; then
	for e in "d['totals']['iops'] = -5|totals.iops: -5 is negative" \
		 "d['totals']['iops'] = 'fast'|totals.iops: not a number" \
		 "d['totals']['latency_ns']['p99'] = -1|totals.latency_ns.p99: -1 is negative" \
		 "d['run']['elapsed_ns'] = -3|run.elapsed_ns: -3 is negative"; do
		python3 -c "import json, sys
d = json.load(open(sys.argv[1])); ${e%%|*}; json.dump(d, open(sys.argv[2], 'w'))" \
			"$D/base.json" "$TMP/neg.json" || fail "python3"
		expect_status 1 "$IOSTORM" compare "$D/base.json" "$TMP/neg.json" --max-iops-drop 5%
		expect_err_line "^iostorm: $TMP/neg.json: ${e#*|}$"
		expect_status 1 "$IOSTORM" report "$TMP/neg.json" -o "$TMP/neg.html"
		expect_err_line "^iostorm: $TMP/neg.json: ${e#*|}$"
	done
else
	skip_part "no python3: negative and non-numeric figures"
fi
expect_status 2 "$IOSTORM" compare "$D/base.json"
expect_status 2 "$IOSTORM" compare "$D/base.json" "$D/base.json" "$D/base.json"
expect_status 2 "$IOSTORM" compare "$D/base.json" "$D/regress.json" --max-iops-drop x
expect_status 2 "$IOSTORM" compare "$D/base.json" "$D/regress.json" --max-rise iops=5
expect_grep "use --max-drop" "$TMP/err"
expect_status 2 "$IOSTORM" compare "$D/base.json" "$D/regress.json" --max-drop nope=5
expect_status 2 "$IOSTORM" compare "$D/base.json" "$D/regress.json" --confidence 40
expect_status 0 "$IOSTORM" compare --help
expect_grep '^  --confidence PCT       confidence of the intervals, 50 to below 100$' "$TMP/out"
# a drop threshold of 100% or more can never fail (the regression passed)
for v in 100 150%; do
	expect_status 2 "$IOSTORM" compare "$D/base.json" "$D/regress.json" --max-iops-drop $v
	expect_eq "$(head -1 "$TMP/err")" "iostorm compare: --max-iops-drop: '$v': a drop is below 100% (a figure cannot fall by more than all of it)" "--max-iops-drop $v"
done
expect_status 2 "$IOSTORM" compare "$D/base.json" "$D/regress.json" --max-drop tps=100
expect_status 0 "$IOSTORM" compare "$D/base.json" "$D/improve.json" --max-p99-rise 150%
expect_status 2 "$IOSTORM" compare "$D/base.json" "$D/regress.json" --max-p99-rise 1e7
expect_eq "$(head -1 "$TMP/err")" "iostorm compare: --max-p99-rise: '1e7' is not a percentage (0 to 1000000)" "--max-p99-rise 1e7"
# a misspelt --ignore key ignored nothing, silently
expect_status 2 "$IOSTORM" compare "$D/base.json" "$D/other-qd.json" --ignore io_depth
expect_eq "$(head -1 "$TMP/err")" "iostorm compare: --ignore: 'io_depth' is none of timing, speed, rate_iops, iodepth, workers, partition, from_ns, to_ns, loops, duration_ns, backend, direct, remap, data, read_only, sqpoll, iopoll, think_scale, txn_per, trace, interrupted" "compare --ignore io_depth"
expect_status 0 "$IOSTORM" compare "$D/base.json" "$D/base.json" --max-iops-drop 0
expect_grep '^verdict: pass$' "$TMP/out"
done_ok
