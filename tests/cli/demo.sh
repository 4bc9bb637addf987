#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh - `iostorm demo`, README's main command: a synthesized OLTP
# trace replayed on a temporary file, the report printed, the trace and
# the target removed (kept with --keep); its timings, an INI profile, its
# JSON result, bad options and a directory that cannot be made.
. "$top_srcdir/tests/cli/lib.sh"
need_uring

# the default profile, 1 s of it, in a directory of ours
mkdir "$TMP/d"
expect_status 0 "$IOSTORM" demo --duration 1s --dir "$TMP/d" --json "$TMP/d.json"
expect_grep "^== iostorm synth sysbench-oltp \\(seed 1, 1s\\) -> $TMP/d/iostorm-demo\\.[A-Za-z0-9]+/sysbench-oltp\\.ist\$" "$TMP/out"
n=$(sed -n 's/^.*sysbench-oltp\.ist: \([0-9]*\) records, sysbench-oltp, seed 1$/\1/p' "$TMP/out")
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "no record count from synth in the demo's output"; ok
expect_grep "^== iostorm replay .*/sysbench-oltp\\.ist --target .*/target\\.img --create --timing original\$" "$TMP/out"
expect_grep '^timing original, iodepth 64, 1 worker, io_uring$' "$TMP/out"
expect_grep "^elapsed [0-9.]+ m?s, $n I/Os, [0-9]+ IOPS, [0-9.]+ MB/s, 0 errors\$" "$TMP/out"
expect_grep '^  latency +min +mean +p50 ' "$TMP/out"
# the replay's result: every record of the trace, complete, no error
expect_grep '"schema": "iostorm-replay/1"' "$TMP/d.json"
expect_grep '"complete": true' "$TMP/d.json"
expect_grep "^    \"ios\": $n,\$" "$TMP/d.json"
expect_grep '"profile": "sysbench-oltp"' "$TMP/d.json"
expect_grep '"parameters": "tables=[^"]*threads=8' "$TMP/d.json"
# nothing left behind
expect_eq "$(ls -A "$TMP/d")" "" "the demo's directory after it"

# --set changes only the key it names: threads=8, the demo's default, stays
# with another key (any --set dropped it: 32 threads, synth's default),
# and a --set threads= replaces it
expect_status 0 "$IOSTORM" demo --duration 100ms --timing afap --dir "$TMP/d" \
	--set tables=4 --json "$TMP/s.json"
expect_grep '"parameters": "tables=4,[^"]*threads=8,' "$TMP/s.json"
expect_status 0 "$IOSTORM" demo --duration 100ms --timing afap --dir "$TMP/d" \
	--set tables=4 --set threads=2 --json "$TMP/s.json"
expect_grep '"parameters": "tables=4,[^"]*threads=2,' "$TMP/s.json"
expect_eq "$(ls -A "$TMP/d")" "" "the demo's directory after --set"

# --keep: the trace and the target stay, and are named
expect_status 0 "$IOSTORM" demo --duration 200ms --dir "$TMP/d" --timing afap --keep
expect_grep '^timing afap, ' "$TMP/out"
kept=$(sed -n 's/^kept \(.*\) and \(.*\)$/\1 \2/p' "$TMP/out")
[ -n "$kept" ] || fail "--keep did not say what it kept"
for f in $kept; do
	[ -s "$f" ] || fail "--keep: $f missing"
done
ok
expect_status 0 "$IOSTORM" info ${kept%% *}
expect_grep '^  profile = sysbench-oltp$' "$TMP/out"
rm -rf "$TMP/d"/iostorm-demo.*

# closed loop: transactions and TPS-eq; $TMPDIR when no --dir
mkdir "$TMP/t"
TMPDIR="$TMP/t" expect_status 0 "$IOSTORM" demo --duration 200ms --timing closed
expect_grep '^timing closed, ' "$TMP/out"
expect_grep '^transactions [1-9][0-9]*, TPS-eq [0-9.]+' "$TMP/out"
expect_eq "$(ls -A "$TMP/t")" "" "\$TMPDIR after the demo"

# an INI profile by its path: the trace named after the file (the whole
# path made a name in directories that did not exist: synth failed)
expect_status 0 "$IOSTORM" demo --profile "$top_srcdir/traces/profiles/oltp-70-30.ini" \
	--duration 100ms --timing afap --dir "$TMP/d"
expect_grep "^== iostorm synth .*/oltp-70-30\\.ini \\(seed 1, 100ms\\) -> $TMP/d/iostorm-demo\\.[A-Za-z0-9]+/oltp-70-30\\.ist\$" "$TMP/out"
expect_grep ' 0 errors$' "$TMP/out"
expect_eq "$(ls -A "$TMP/d")" "" "the demo's directory after an INI profile"

# errors: usage (2), a profile synth does not know (2), a
# directory that cannot be made (1, one line); nothing left behind
expect_status 2 "$IOSTORM" demo --timing sometimes
expect_status 2 "$IOSTORM" demo --duration 0
expect_status 2 "$IOSTORM" demo extra
# --dir '' (an unset variable) made the demo in /tmp
expect_status 2 "$IOSTORM" demo --dir ''
expect_eq "$(head -1 "$TMP/err")" "iostorm demo: --dir: empty" "demo --dir ''"
[ ! -s "$TMP/out" ] || fail "demo --dir '': a step began"
expect_status 2 "$IOSTORM" demo --profile nosuch --dir "$TMP/d"
# the demo's own usage error, before any step (synth's came after the
# demo's first line, with a hint to 'iostorm synth --help')
expect_eq "$(cat "$TMP/err")" "iostorm demo: unknown profile 'nosuch' (see iostorm synth --list)
Try 'iostorm demo --help' for more information." "demo --profile nosuch"
[ ! -s "$TMP/out" ] || fail "demo --profile nosuch: a step began"
expect_eq "$(ls -A "$TMP/d")" "" "the demo's directory after an unknown profile"
expect_status 1 "$IOSTORM" demo --dir "$TMP/none"
expect_err_line "^iostorm: $TMP/none: cannot create a directory: No such file or directory$"
done_ok
