#!/bin/sh
# SPDX-License-Identifier: MIT
# empty_input_name.sh - an empty input file name ('' from an unset shell
# variable) is refused before any work in one line that quotes it, exit 1,
# as an empty output file name is (empty_output_name.sh): it was
# "iostorm: : No such file or directory", the name lost between the
# colons (record --from-pcap: ": : No such ..."; record --recover and
# --sched, replay --think-sched: usage errors; import '' would have read
# ./.blktrace.0 when there was one).
. "$top_srcdir/tests/cli/lib.sh"

T="$top_srcdir/traces/tpcc.ist"
J="$DATA/report/base.json"
P="$DATA/capture/iscsi.pcap"

# empty MESSAGE CMD ARGS... : exit 1, the one line, nothing on stdout,
# no output file
empty() {
	msg=$1
	shift
	expect_status 1 "$IOSTORM" "$@"
	expect_eq "$(cat "$TMP/err")" "iostorm: '': $msg" "$*"
	[ ! -s "$TMP/out" ] || { cat "$TMP/out" >&2; fail "$*: work done before the refusal"; }
	[ -z "$(ls "$TMP" | grep -v '^out$\|^err$\|^\.blktrace\.0$')" ] ||
		{ ls "$TMP" >&2; fail "$*: an output left behind"; }
	ok
}
IN="an empty input file name"
empty "$IN" info ''
empty "$IN" cat ''
empty "$IN" verify ''
empty "$IN" stats ''
empty "$IN" export -f csv '' -o "$TMP/x.csv"
empty "$IN" convert '' "$TMP/x.ist"
empty "$IN" annotate '' -o "$TMP/x.ist"
empty "$IN" report -o "$TMP/x.html" "$J" ''
empty "$IN" compare '' "$J"
empty "$IN" compare "$J" ''
empty "$IN" replay '' --null
empty "$IN" replay "$T" --null --timing closed --think-sched ''
empty "$IN" sweep '' --null --size 16M --point 10ms --threads 1 --qd 1 --rates none -o "$TMP/x.json"
empty "an empty --workload (a pattern, a synth profile or a trace file)" \
	precondition --null --size 16M --passes 0 --round 10ms --max-rounds 1 --workload '' -o "$TMP/x.json"
empty "$IN" record --from-pcap '' -o "$TMP/x.ist"
empty "$IN" record --recover '' -o "$TMP/x.ist"
empty "an empty output file name" record --from-pcap "$P" -o ''
empty "an empty output file name" record -d /dev/null --sched '' -o "$TMP/x.ist"
empty "an empty device name" record -d '' -o "$TMP/x.ist"
empty "an empty interface name" record --pcap '' -o "$TMP/x.ist"
# import: the second of two inputs too; '' is not expanded to the
# per-CPU files ".blktrace.N" of a blktrace NAME
empty "$IN" import '' -o "$TMP/x.ist"
empty "$IN" import "$DATA/import/fio3.iolog" '' -o "$TMP/x.ist"
cp "$DATA/import/blk-le.blktrace.0" "$TMP/.blktrace.0" || fail "no blk-le fixture"
(cd "$TMP" && exec "$IOSTORM" import '' -o "$TMP/x.ist") >"$TMP/out" 2>"$TMP/err"
expect_eq "$?" 1 "import '' beside .blktrace.0"
expect_eq "$(cat "$TMP/err")" "iostorm: '': $IN" "import '' beside .blktrace.0"
[ ! -e "$TMP/x.ist" ] || fail "import '' read ./.blktrace.0"
# usage errors stay usage errors (exit 2)
expect_status 2 "$IOSTORM" stats '' ''
expect_status 2 "$IOSTORM" replay "$T" --null --think-sched ''
done_ok
