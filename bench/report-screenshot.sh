#!/bin/sh
# SPDX-License-Identifier: MIT
# report-screenshot.sh [OUTDIR] - renders reports and looks at them:
#  1. the fixture runs (two replay runs, a sweep, a preconditioning run) as
#     HTML, screenshot by headless Chromium into OUTDIR/report.png, with its
#     count of colours and share of non-white pixels (a blank page: 1 and 0);
#  2. the cost of a long run: a 36-hour replay result at 1 s intervals
#     (129,600 rows, ~100 MB of JSON): iostorm report's time and peak RSS,
#     against python3's json.load of the same file (the price of merely
#     parsing it), medians of 3 runs, as a ratio.
# Needs chromium and python3; run from the build directory (./iostorm).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
IOSTORM=${IOSTORM:-./iostorm}
OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT"
D="$top/tests/data/report"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)

"$IOSTORM" report "$D/base.json" "$D/regress.json" "$D/sweep.json" "$D/precond.json" \
	--title "iostorm report (fixtures)" -o "$OUT/report.html"
if [ -n "$CHROMIUM" ]; then
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run \
		--user-data-dir="$(mktemp -d)" --screenshot="$OUT/report.png" \
		--window-size=1200,2400 "file://$OUT/report.html" >/dev/null 2>&1
	echo "screenshot $OUT/report.png: $(python3 "$top/tests/cli/pngstat.py" "$OUT/report.png" |
		awk '{printf "%sx%s, %s colours, %.1f%% non-white", $1, $2, $3, $4 / 10}')"
else
	echo "no chromium: no screenshot"
fi

python3 - "$D/base.json" "$OUT/long.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
iv = run["intervals"]
n = 36 * 3600
run["intervals"] = [dict(iv[i % len(iv)], start_ns=i * 1000000000) for i in range(n)]
run["run"]["elapsed_ns"] = n * 1000000000
json.dump(run, open(sys.argv[2], "w"))
PY
echo "long run: $(du -m "$OUT/long.json" | cut -f1) MB of JSON, 129600 intervals"

median3() { sort -n | sed -n 2p; }
t_rep=$(for i in 1 2 3; do
	/usr/bin/time -f "%e %M" "$IOSTORM" report "$OUT/long.json" -o "$OUT/long.html" 2>&1 >/dev/null
done | median3)
t_py=$(for i in 1 2 3; do
	/usr/bin/time -f "%e %M" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' \
		"$OUT/long.json" 2>&1 >/dev/null
done | median3)
set -- $t_rep $t_py
echo "iostorm report: $1 s, $(($2 / 1024)) MB peak RSS, $(du -k "$OUT/long.html" | cut -f1) KB of HTML"
echo "python3 json.load: $3 s, $(($4 / 1024)) MB peak RSS"
awk -v a="$1" -v b="$3" 'BEGIN { printf "time ratio report / json.load: %.2f\n", a / b }'
