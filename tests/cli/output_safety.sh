#!/bin/sh
# SPDX-License-Identifier: MIT
# output_safety.sh - the commands that write a file (import, export,
# convert, annotate, synth, report) write a temporary file and rename it
# over the output: they refuse an output that is one of their inputs (the
# input would be lost) or not a regular file (rename would replace a device
# node such as /dev/null with a regular file); a command whose standard
# output cannot be written does not exit 0.
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/import"

expect_status 0 "$IOSTORM" import -q "$D/msr.csv" -o "$TMP/a.ist"
cp "$D/msr.csv" "$TMP/in.csv"
cp "$TMP/a.ist" "$TMP/keep.ist"

# the output is an input
expect_status 1 "$IOSTORM" import "$TMP/in.csv" -o "$TMP/in.csv"
expect_err_line "^iostorm: $TMP/in.csv: is also an input \(it would be replaced\)$"
cmp -s "$D/msr.csv" "$TMP/in.csv" || fail "import replaced its input"
ok
# the same file under another name
ln -s in.csv "$TMP/link.csv"
expect_status 1 "$IOSTORM" import "$TMP/link.csv" -o "$TMP/in.csv"
expect_err_line "^iostorm: $TMP/in.csv: is also an input \(it would be replaced\)$"
expect_status 1 "$IOSTORM" export -f csv "$TMP/a.ist" -o "$TMP/a.ist"
expect_err_line "^iostorm: $TMP/a.ist: is also an input \(it would be replaced\)$"
expect_status 1 "$IOSTORM" convert "$TMP/a.ist" "$TMP/a.ist"
expect_err_line "^iostorm: $TMP/a.ist: is also an input \(it would be replaced\)$"
expect_status 1 "$IOSTORM" annotate -q "$TMP/a.ist" -o "$TMP/a.ist"
expect_err_line "^iostorm: $TMP/a.ist: is also an input \(it would be replaced\)$"
cmp -s "$TMP/a.ist" "$TMP/keep.ist" || fail "an IST input was replaced"
ok
printf '[workload]\nprofile = mix\n' >"$TMP/p.ini"
cp "$TMP/p.ini" "$TMP/p.keep"
expect_status 1 "$IOSTORM" synth "$TMP/p.ini" -o "$TMP/p.ini"
expect_err_line "^iostorm: $TMP/p.ini: is also an input \(it would be replaced\)$"
cmp -s "$TMP/p.ini" "$TMP/p.keep" || fail "synth replaced its profile"
ok

# an output that is not a regular file: a directory, a FIFO, a device node
# (made here, never /dev/null itself: a regression would replace it)
mkdir "$TMP/dir"
mkfifo "$TMP/fifo"
outs="$TMP/dir $TMP/fifo"
if [ "$(id -u)" -eq 0 ] && mknod "$TMP/null" c 1 3 2>/dev/null; then
	outs="$outs $TMP/null"
else
	skip_part "cannot make a device node (root): a device node as the output"
fi
for o in $outs; do
	expect_status 1 "$IOSTORM" import "$D/msr.csv" -o "$o"
	expect_err_line "^iostorm: $o: not a regular file \(the output is written to a temporary file renamed over it\)$"
	expect_status 1 "$IOSTORM" export -f fio "$TMP/a.ist" -o "$o"
	expect_err_line "^iostorm: $o: not a regular file"
	expect_status 1 "$IOSTORM" convert "$TMP/a.ist" "$o"
	expect_err_line "^iostorm: $o: not a regular file"
	expect_status 1 "$IOSTORM" annotate -q "$TMP/a.ist" -o "$o"
	expect_err_line "^iostorm: $o: not a regular file"
	expect_status 1 "$IOSTORM" synth tpcc --duration 1 -o "$o"
	expect_err_line "^iostorm: $o: not a regular file"
done
[ -p "$TMP/fifo" ] || fail "the FIFO was replaced"
[ ! -e "$TMP/null" ] || [ -c "$TMP/null" ] || fail "the device node was replaced"
ls "$TMP" "$TMP/dir" | grep -Eq 'importing|tmp-' && fail "temporary file left behind"
ok

# standard output that cannot be written: exit 1 and say so
if [ -w /dev/full ] && [ -c /dev/full ]; then
	for cmd in "--help" "help" "help synth" "import --help" "import --list-formats" \
		   "export --help" "stats --help" "synth --list"; do
		# shellcheck disable=SC2086
		"$IOSTORM" $cmd >/dev/full 2>"$TMP/err"
		expect_eq "$?" 1 "iostorm $cmd >/dev/full"
		expect_err_line "^iostorm: standard output: write error: No space left on device$"
	done
	# the same words from every command (cat, info and convert said
	# "iostorm: stdout: No space left on device")
	# (convert --to ist said "iostorm: stdout: No space left on device")
	for cmd in "cat $TMP/a.ist" "info $TMP/a.ist" "info -j $TMP/a.ist" "convert $TMP/a.ist -" \
		   "convert --to ist $TMP/a.ist -"; do
		# shellcheck disable=SC2086
		"$IOSTORM" $cmd >/dev/full 2>"$TMP/err"
		expect_eq "$?" 1 "iostorm $cmd >/dev/full"
		expect_err_line "^iostorm: standard output: write error: No space left on device$"
	done
	"$IOSTORM" stats "$TMP/a.ist" >/dev/full 2>"$TMP/err"
	expect_eq "$?" 1 "iostorm stats >/dev/full"
	expect_err_line "No space left on device$"
	# whatever the exit status: precondition's 4 (no steady state) hid the
	# lost progress lines, compare's 1 (a regression) its lost table
	pc="precondition --null --size 16M --passes 1 --round 20ms --max-rounds 3 --threads 1 --qd 4 -o $TMP/pc.json"
	# shellcheck disable=SC2086
	"$IOSTORM" $pc >/dev/full 2>"$TMP/err"
	expect_eq "$?" 1 "iostorm precondition (no steady state) >/dev/full"
	expect_err_line "^iostorm: standard output: write error: No space left on device$"
	[ -s "$TMP/pc.json" ] || fail "precondition >/dev/full: no result written"
	# shellcheck disable=SC2086
	expect_status 4 "$IOSTORM" $pc --quiet
	# nothing on standard output, nothing lost: 4 stays
	# shellcheck disable=SC2086
	"$IOSTORM" $pc --quiet >/dev/full 2>"$TMP/err"
	expect_eq "$?" 4 "iostorm precondition --quiet >/dev/full"
	[ ! -s "$TMP/err" ] || { cat "$TMP/err" >&2; fail "precondition --quiet >/dev/full: a message"; }
	"$IOSTORM" compare "$DATA/report/base.json" "$DATA/report/regress.json" --max-iops-drop 5% \
		>/dev/full 2>"$TMP/err"
	expect_eq "$?" 1 "iostorm compare (a regression) >/dev/full"
	expect_err_line "^iostorm: standard output: write error: No space left on device$"
	# compare's 3 prints nothing on standard output (the reason goes to
	# standard error): it stays; with --json, the lost result is a failure
	"$IOSTORM" compare "$DATA/report/base.json" "$DATA/report/other-trace.json" >/dev/full 2>"$TMP/err"
	expect_eq "$?" 3 "iostorm compare (not comparable) >/dev/full"
	expect_err_line "are not comparable: different trace"
	"$IOSTORM" compare --json "$DATA/report/base.json" "$DATA/report/other-trace.json" \
		>/dev/full 2>"$TMP/err"
	expect_eq "$?" 1 "iostorm compare --json (not comparable) >/dev/full"
	expect_eq "$(tail -1 "$TMP/err")" "iostorm: standard output: write error: No space left on device" \
		"compare --json >/dev/full"
	# export names the cause (it said "Input/output error" for a full
	# disk), in the words of the others (it said "-: REASON")
	for f in csv fio blkparse; do
		"$IOSTORM" export -q -f $f "$TMP/a.ist" -o - >/dev/full 2>"$TMP/err"
		expect_eq "$?" 1 "iostorm export -f $f -o - >/dev/full"
		expect_err_line "^iostorm: standard output: write error: No space left on device$"
	done
else
	skip_part "no /dev/full: a standard output that cannot be written"
fi
done_ok
