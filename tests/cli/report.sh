#!/bin/sh
# SPDX-License-Identifier: MIT
# report.sh - iostorm report: valid HTML and SVG with the expected series
# from the fixture results, labels, errors.
. "$top_srcdir/tests/cli/lib.sh"
command -v xmllint >/dev/null || skip "xmllint (libxml2-utils) missing"
D="$DATA/report"

# HTML: well-formed XML (XHTML syntax), and HTML5 without parse errors by
# the WHATWG algorithm (html5lib, which knows inline SVG; libxml2's HTML 4
# parser does not, and misreports long lines at its buffer boundaries)
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
"$PY" -c 'import html5lib' 2>/dev/null || skip "python3-html5lib missing"
html_ok() {
	xmllint --noout "$1" 2>"$TMP/xml" || { cat "$TMP/xml" >&2; fail "$1: not well-formed"; }
	"$PY" "$top_srcdir/tests/cli/html5check.py" "$1" >"$TMP/h5" 2>&1 ||
		{ cat "$TMP/h5" >&2; fail "$1: HTML5 parse errors"; }
	ok
}

expect_status 0 "$IOSTORM" report "$D/base.json" "$D/regress.json" -o "$TMP/r.html" \
	--title "Firmware A vs B"
html_ok "$TMP/r.html"
expect_grep '<title>Firmware A vs B</title>' "$TMP/r.html"
for t in "IOPS over time" "Throughput over time" "Latency over time \(mean, p99, max\)" \
	 "Latency percentiles" "Timing lateness over time" "TPS-eq over time" "Headline figures"; do
	expect_grep ">$t" "$TMP/r.html"
done
# one series per run in the rate charts, three per run in the latency chart
for s in base regress "base mean" "base p99" "base max" "regress p99" "regress read"; do
	expect_grep "<text[^>]*>$s</text>" "$TMP/r.html"
done
n=$(grep -c '<polyline' "$TMP/r.html")
[ "$n" -ge 20 ] || fail "only $n polylines"; ok
# no script, no external resource
if grep -Eq '<script|src="http|href="http' "$TMP/r.html"; then fail "external or script"; fi; ok
expect_grep 'CPU per I/O' "$TMP/r.html"

# labels and all kinds together
expect_status 0 "$IOSTORM" report -l "fw 1.0" -l "fw 1.1" "$D/base.json" "$D/improve.json" \
	"$D/sweep.json" "$D/precond.json" "$D/afap-long.json" -o "$TMP/all.html"
html_ok "$TMP/all.html"
expect_grep '>fw 1.1 p99<' "$TMP/all.html"
expect_grep '>Mean latency against IOPS<' "$TMP/all.html"
expect_grep '>p99 latency against IOPS<' "$TMP/all.html"
expect_grep '>sweep 16T \(QD 2..16\)<' "$TMP/all.html"
expect_grep '>sweep rate curve<' "$TMP/all.html"
expect_grep '>Preconditioning: IOPS per round<' "$TMP/all.html"
expect_grep '>precond window average<' "$TMP/all.html"
expect_grep '>interrupted<' "$TMP/all.html"
expect_grep '>16T16Q<' "$TMP/all.html"

# SVG alone
expect_status 0 "$IOSTORM" report --format svg "$D/base.json" "$D/sweep.json" -o "$TMP/c.svg"
xmllint --noout "$TMP/c.svg" || fail "SVG not well-formed"; ok
expect_grep '^<svg xmlns="http://www.w3.org/2000/svg"' "$TMP/c.svg"
if grep -q '<table' "$TMP/c.svg"; then fail "tables in the SVG"; fi; ok
expect_eq "$(grep -c '<svg ' "$TMP/c.svg")" 9 "svg elements (document + 8 charts)"

# to stdout
expect_status 0 "$IOSTORM" report "$D/precond.json" -o -
expect_grep '</html>' "$TMP/out"

# bad input: one line naming the file and the line; no output left behind
printf '{\n "schema": "iostorm-replay/1",\n "run": { oops }\n}\n' >"$TMP/bad.json"
expect_status 1 "$IOSTORM" report "$D/base.json" "$TMP/bad.json" -o "$TMP/x.html"
expect_err_line "^iostorm: .*bad.json: line 3: "
[ ! -e "$TMP/x.html" ] || fail "partial output left"; ok
ls "$TMP" | grep -q 'x.html.tmp' && fail "temporary file left"; ok
# a bracket closing an interval wrongly: its line and json-c's reason
# (the interval scan took it, and the rest was called "truncated JSON")
printf '{"schema": "iostorm-replay/1",\n"intervals": [{"length_ns": 1},\n {"x": 1]\n}' \
	>"$TMP/brk.json"
expect_status 1 "$IOSTORM" report "$TMP/brk.json" -o "$TMP/x.html"
expect_err_line "^iostorm: .*brk.json: line 3: bad JSON: "
printf '{"schema": "iostorm-replay/7"}' >"$TMP/v.json"
expect_status 1 "$IOSTORM" report "$TMP/v.json" -o "$TMP/x.html"
expect_err_line "unknown schema 'iostorm-replay/7'"
# a control character inside the file's string (json-c takes a raw newline):
# the refusal quotes it on one line
printf '{"schema": "iostorm-\nreplay/7"}' >"$TMP/nl.json"
expect_status 1 "$IOSTORM" report "$TMP/nl.json" -o "$TMP/x.html"
expect_err_line "unknown schema 'iostorm-\\?replay/7'"
# an empty file: said so, as every command says it (was "line 1: truncated JSON")
: >"$TMP/empty.json"
expect_status 1 "$IOSTORM" report "$D/base.json" "$TMP/empty.json" -o "$TMP/x.html"
expect_err_line "^iostorm: $TMP/empty.json: empty file$"
[ ! -e "$TMP/x.html" ] || fail "output for an empty result"; ok
expect_status 1 "$IOSTORM" report "$TMP/missing.json" -o "$TMP/x.html"
expect_err_line "missing.json: No such file"
expect_status 1 "$IOSTORM" report "$D/base.json" -o "$TMP/nodir/x.html"
expect_err_line "nodir/x.html"

# usage errors
expect_status 2 "$IOSTORM" report "$D/base.json"
expect_status 2 "$IOSTORM" report -o "$TMP/x.html"
expect_status 2 "$IOSTORM" report --format pdf "$D/base.json" -o "$TMP/x.html"
expect_status 2 "$IOSTORM" report -l a -l b "$D/base.json" -o "$TMP/x.html"
# empty: a page titled '', a run without a name in the legends
expect_status 2 "$IOSTORM" report -t '' "$D/base.json" -o "$TMP/x.html"
expect_eq "$(head -1 "$TMP/err")" "iostorm report: --title: empty" "report -t ''"
expect_status 2 "$IOSTORM" report -l '' "$D/base.json" -o "$TMP/x.html"
expect_eq "$(head -1 "$TMP/err")" "iostorm report: --label: empty" "report -l ''"
[ ! -e "$TMP/x.html" ] || fail "report wrote a page after a usage error"
ok
expect_status 0 "$IOSTORM" report --help
expect_grep '^Usage: iostorm report' "$TMP/out"
done_ok
