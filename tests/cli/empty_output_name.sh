#!/bin/sh
# SPDX-License-Identifier: MIT
# empty_output_name.sh - an empty output file name ('' from an unset shell
# variable) is refused before any work, in one line: replay --json '' ran
# the whole replay, printed its report and only then failed with
# "iostorm: : No such file or directory" (the same for --csv-intervals,
# demo --json, sweep -o, precondition -o; synth, import, export, annotate
# and report did all their work first).
. "$top_srcdir/tests/cli/lib.sh"

T="$top_srcdir/traces/tpcc.ist"
MSG="iostorm: '': an empty output file name"

# empty CMD ARGS... : exit 1, the one line, nothing on stdout
empty() {
	expect_status 1 "$IOSTORM" "$@"
	expect_eq "$(cat "$TMP/err")" "$MSG" "$*"
	[ ! -s "$TMP/out" ] || { cat "$TMP/out" >&2; fail "$*: work done before the refusal"; }
	ok
}
empty replay "$T" --null --timing afap --json ''
empty replay "$T" --null --timing afap --csv-intervals ''
empty demo --duration 100ms --timing afap --dir "$TMP" --json ''
[ -z "$(ls "$TMP" | grep iostorm-demo)" ] || fail "demo made its directory"
empty sweep --null --pattern 4k-randread --point 10ms --threads 1 --qd 1 --rates none -o ''
empty precondition --null --passes 0 --round 10ms --max-rounds 1 -o ''
empty synth tpcc -d 100ms -o ''
empty export -f csv "$T" -o ''
empty annotate "$T" -o ''
empty convert "$T" ''
empty report "$DATA/report/base.json" -o ''
empty import "$DATA/import/fio3.iolog" -o ''
done_ok
