#!/bin/sh
# SPDX-License-Identifier: MIT
# usage_errors.sh - an unknown option or a missing option value is a usage
# error (exit 2) with one message naming it, then the hint to --help
# (getopt's own "unrecognized option" line came first before, so that each
# usage error printed two messages, the second without the option).
. "$top_srcdir/tests/cli/lib.sh"

for c in import export stats convert cat verify info synth annotate report compare replay sweep precondition demo; do
	expect_status 2 "$IOSTORM" $c --frobnicate x
	expect_eq "$(cat "$TMP/err")" "iostorm $c: unknown option '--frobnicate', or its value is missing
Try 'iostorm $c --help' for more information." "$c --frobnicate"
	expect_status 0 "$IOSTORM" $c --help
	expect_grep "^Usage: iostorm $c" "$TMP/out"
done
# a value missing at the end
expect_status 2 "$IOSTORM" import x.csv -o
expect_eq "$(head -1 "$TMP/err")" "iostorm import: unknown option '-o', or its value is missing" "import -o"
expect_status 2 "$IOSTORM" cat "$DATA/format/small.ist" --from
expect_eq "$(head -1 "$TMP/err")" "iostorm cat: unknown option '--from', or its value is missing" "cat --from"
# record tells the two apart (getopt's ':' mode)
expect_status 2 "$IOSTORM" record --frobnicate x
expect_eq "$(cat "$TMP/err")" "iostorm record: unknown option '--frobnicate'
Try 'iostorm record --help' for more information." "record --frobnicate"
expect_status 2 "$IOSTORM" record -d /dev/null -o
expect_eq "$(head -1 "$TMP/err")" "iostorm record: option '-o' needs a value" "record -o"
expect_status 2 "$IOSTORM" record --sched
expect_eq "$(head -1 "$TMP/err")" "iostorm record: option '--sched' needs a value" "record --sched"
# the range of a value, in its message as in --help and the man page
for v in 4095 5G; do
	expect_status 2 "$IOSTORM" record -d /dev/null -o "$TMP/x.ist" --buffer-size $v
	expect_eq "$(head -1 "$TMP/err")" "iostorm record: bad --buffer-size '$v' (4k to 4G)" "record --buffer-size $v"
done
# -o - is standard output for the other commands: record wrote a file "-"
(cd "$TMP" && exec "$IOSTORM" record --from-pcap "$DATA/capture/iscsi.pcap" -o -) >"$TMP/out" 2>"$TMP/err"
expect_eq "$?" 2 "record -o -"
expect_eq "$(head -1 "$TMP/err")" "iostorm record: -o -: record writes a file (its chunks reach the disk as it records), not standard output" "record -o -"
[ ! -e "$TMP/-" ] || fail "record -o - wrote a file '-'"
expect_status 0 "$IOSTORM" record --help
expect_grep '^      --buffer-size SIZE trace ring buffer per CPU, 4k-4G \(default 16M\)$' "$TMP/out"
# the ranges of the usage errors are those of --help (stats said "bad
# interval", import --help and stats --help gave no range)
expect_status 2 "$IOSTORM" stats --interval 0 "$DATA/format/small.ist"
expect_eq "$(head -1 "$TMP/err")" "iostorm stats: bad --interval '0'" "stats --interval 0"
expect_status 2 "$IOSTORM" stats --top 100001 "$DATA/format/small.ist"
expect_status 0 "$IOSTORM" stats --top 100000 "$DATA/format/small.ist"
expect_status 0 "$IOSTORM" stats --help
expect_grep '^  -n, --top N           streams listed, 0-100000 \(default 10\)$' "$TMP/out"
expect_status 2 "$IOSTORM" import --sort-window 15 "$DATA/import/fio3.iolog" -o "$TMP/x.ist"
expect_eq "$(head -1 "$TMP/err")" "iostorm import: bad --sort-window '15' (16 to 2^30 records)" "import --sort-window 15"
expect_status 0 "$IOSTORM" import --help
expect_grep '^      --sort-window N   records held in memory for sorting, 16 to 2\^30$' "$TMP/out"
# an option that lists and exits takes no operand: one was ignored (synth
# --list tpcc listed every profile, exit 0); before or after the option,
# and a bad option after it is still one
for l in "synth --list" "import --list-formats" "export --list-formats" "compare --list" "sweep --list"; do
	set -- $l
	expect_status 0 "$IOSTORM" $1 $2
	[ -s "$TMP/out" ] || fail "$l: nothing listed"
	for args in "$2 tpcc" "tpcc $2" "$2 tpcc x"; do
		expect_status 2 "$IOSTORM" $1 $args
		expect_eq "$(cat "$TMP/err")" "iostorm $1: unexpected argument 'tpcc' ($2 takes none)
Try 'iostorm $1 --help' for more information." "$1 $args"
		[ ! -s "$TMP/out" ] || fail "$1 $args: listed anyway"
	done
	expect_status 2 "$IOSTORM" $1 $2 --frobnicate
	expect_eq "$(head -1 "$TMP/err")" "iostorm $1: unknown option '--frobnicate', or its value is missing" "$l --frobnicate"
done
# synth --describe takes one profile (it did)
expect_status 2 "$IOSTORM" synth --describe tpcc oltp
expect_eq "$(head -1 "$TMP/err")" "iostorm synth: one PROFILE only" "synth --describe A B"
# --describe writes no trace: an output asked for is refused, nothing written
expect_status 2 "$IOSTORM" synth tpcc --describe -o "$TMP/d.ist"
expect_eq "$(head -1 "$TMP/err")" "iostorm synth: --describe writes no trace: no -o" "synth --describe -o"
[ ! -e "$TMP/d.ist" ] || fail "synth --describe -o wrote $TMP/d.ist"
expect_status 2 "$IOSTORM" synth tpcc --describe --discard
expect_eq "$(head -1 "$TMP/err")" "iostorm synth: --describe writes no trace: no --discard" "synth --describe --discard"
# iostorm --help and --version take nothing either (iostorm help A B is an
# error, help_man.sh)
for o in --help -h --version -V; do
	expect_status 2 "$IOSTORM" $o synth
	expect_eq "$(cat "$TMP/err")" "iostorm: unexpected argument 'synth' ($o takes none)
Try 'iostorm --help' for more information." "iostorm $o synth"
	expect_status 0 "$IOSTORM" $o
done
done_ok
