#!/bin/sh
# SPDX-License-Identifier: MIT
# report-screenshot.sh - a report rendered by headless Chromium (no network,
# no GPU) is not blank: many distinct colours (the charts' palette, text
# anti-aliasing) and a fair share of non-white pixels.  Skips without
# Chromium or python3.
. "$top_srcdir/tests/cli/lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$CHROMIUM" ] || skip "no chromium (apt-get install chromium)"
command -v python3 >/dev/null || skip "no python3"
D="$DATA/report"
expect_status 0 "$IOSTORM" report "$D/base.json" "$D/regress.json" "$D/sweep.json" \
	"$D/precond.json" --title "screenshot test" -o "$TMP/r.html"
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run \
	--user-data-dir="$TMP/profile" --screenshot="$TMP/r.png" --window-size=1200,2400 \
	"file://$TMP/r.html" >"$TMP/chromium.log" 2>&1
[ -s "$TMP/r.png" ] || { tail -5 "$TMP/chromium.log" >&2; fail "no screenshot"; }; ok
# the top 900 rows (title, tables, the first chart): python is slow
# (pngstat's status checked apart: 'set -- $(cmd) || fail' never failed,
# set's own status being 0)
st=$(python3 "$top_srcdir/tests/cli/pngstat.py" "$TMP/r.png" 900) || fail "pngstat r.png"
# shellcheck disable=SC2086
set -- $st
echo "screenshot: ${1}x$2 analysed, $3 colours, $4 permille non-white"
expect_eq "$1x$2" "1200x900" "screenshot size analysed"
[ "$3" -ge 50 ] || fail "only $3 distinct colours: blank rendering?"; ok
[ "$4" -ge 30 ] || fail "only $4 permille non-white pixels"; ok
# with a blank page for contrast, the check fails
printf '<!DOCTYPE html><html><body></body></html>' >"$TMP/blank.html"
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
	--disable-component-update --disable-sync --no-first-run \
	--user-data-dir="$TMP/profile" --screenshot="$TMP/b.png" --window-size=400,300 \
	"file://$TMP/blank.html" >"$TMP/chromium.log" 2>&1
st=$(python3 "$top_srcdir/tests/cli/pngstat.py" "$TMP/b.png") || fail "pngstat b.png"
# shellcheck disable=SC2086
set -- $st
[ "$3" -lt 50 ] && [ "$4" -lt 30 ] || fail "blank page not recognised ($3 colours, $4 permille)"; ok
done_ok
