#!/bin/sh
# SPDX-License-Identifier: MIT
# json_utf8.sh - names that are not UTF-8 (a device name, metadata, a file
# name: bytes as the input had them) in every JSON and XML writer: each
# byte that is no part of well-formed UTF-8 is \ufffd (&#xFFFD; in the
# report), well-formed characters are kept.  They were written as they
# were: stats --json, info --json, replay --json, sweep, compare --json and
# report made files that no JSON (or XML) reader takes.
. "$top_srcdir/tests/cli/lib.sh"
F="$DATA/format/bad-utf8.csv"
NAME='"sd\\ufffd\\ufffdX€\\ufffd\\ufffd\\ufffd"'
B=$(printf '\377')

# valid FILE: UTF-8 throughout (and JSON when python3 is there)
valid() {
	iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 || fail "$1: not UTF-8"
	ok
	case $1 in *.html) return ;; esac
	if command -v python3 >/dev/null; then
		python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$1" ||
			fail "$1: not JSON"
		ok
	fi
}

expect_status 0 "$IOSTORM" stats --json "$F"
cp "$TMP/out" "$TMP/stats.json"
valid "$TMP/stats.json"
# the device name: \xff, \xc3 before 'X' (cut short), a euro sign (kept),
# an encoded surrogate (\xed\xa0\x80: three bytes, three replacements)
expect_grep "\"name\": $NAME" "$TMP/stats.json"
expect_grep '"metadata": \{"host": "caf\\ufffd", "w\\ufffdkey": "ok"\}' "$TMP/stats.json"

expect_status 0 "$IOSTORM" convert "$F" "$TMP/t$B.ist"
expect_status 0 "$IOSTORM" info --json "$TMP/t$B.ist"
cp "$TMP/out" "$TMP/info.json"
valid "$TMP/info.json"
expect_grep "\"name\":$NAME" "$TMP/info.json"
expect_grep '"file":".*/t\\ufffd\.ist"' "$TMP/info.json"

expect_status 0 "$IOSTORM" replay "$TMP/t$B.ist" --null --json "$TMP/r$B.json"
valid "$TMP/r$B.json"
expect_grep "\"name\": $NAME" "$TMP/r$B.json"
expect_grep '"caf\\ufffd"' "$TMP/r$B.json"

expect_status 0 "$IOSTORM" compare "$TMP/r$B.json" "$TMP/r$B.json" --json
cp "$TMP/out" "$TMP/compare.json"
valid "$TMP/compare.json"
expect_grep '"base": ?".*/r\\ufffd\.json"' "$TMP/compare.json"

expect_status 0 "$IOSTORM" sweep "$TMP/t$B.ist" --null --threads 1 --qd 1 --point 200ms --rates none \
	-o "$TMP/sweep.json"
valid "$TMP/sweep.json"
expect_grep 't\\ufffd\.ist' "$TMP/sweep.json"

expect_status 0 "$IOSTORM" report "$TMP/r$B.json" -o "$TMP/r.html"
valid "$TMP/r.html"
expect_grep 'r&#xFFFD;\.json' "$TMP/r.html"
done_ok
