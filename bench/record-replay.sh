#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/record-replay.sh - the recorder's user-space CPU per I/O on a fixed
# input, for A/B comparisons of recorder code or writer options without the
# live benchmark's noise: dumps the raw sub-buffers of SECONDS of a live
# recording of fio's random 4 KiB I/O on a private zram device (psync, 4
# jobs: the saturation setting of bench/record.sh), then runs them through
# each variant's decoding, matching and IST writing ROUNDS times, the
# variants alternating, and prints the medians (total, and the writer).
# A variant is "BINARY[:OPTIONS]": a build of bench/record_replay (the dump
# is read by the first, so builds must keep its structures) and its replay
# options (--compact: the writer's default effort).  Not measured: the
# kernel's read path and the wake-ups (bench/record.sh measures them live).
# Needs root, fio, zram and tracefs.
# Usage: bench/record-replay.sh [SECONDS] [ROUNDS] [VARIANT...]
#        DUMP=FILE bench/record-replay.sh ...  (replay FILE, no recording)
set -euo pipefail
SECS=${1:-2}
ROUNDS=${2:-8}
shift 2 || shift $#
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$top/bench/record_replay" "$top/bench/record_replay:--compact"
if [ -z "${DUMP:-}" ]; then
	. "$top/bench/zram-lib.sh"
	zram_bench_start bench/record-replay.sh
	trap zram_bench_cleanup EXIT
	zram_new 256M
	DUMP=$tmp/rec.dump
	"${1%%:*}" dump "$DEV" "$DUMP" "$((SECS + 2))" 2>"$tmp/dump.err" &
	dp=$!
	for _ in $(seq 200); do grep -q tracing "$tmp/dump.err" && break; sleep 0.05; done
	fio --name=rand --filename="$DEV" --rw=randrw --rwmixread=50 --bs=4k --direct=1 \
		--ioengine=psync --numjobs=4 --time_based --runtime="$SECS" --randrepeat=0 \
		--norandommap --group_reporting --output="$tmp/fio.out"
	kill -INT $dp
	wait $dp
	echo "# dump: $(awk '/issued rwts:/ { print $3 }' "$tmp/fio.out") I/Os issued by fio, $(du -m "$DUMP" | cut -f1) MB"
else
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
fi
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); ns per I/O (total, of which the writer)"
vars=("$@")
for r in $(seq "$ROUNDS"); do
	line="round $r:"
	for i in "${!vars[@]}"; do
		k=$(( (i + r - 1) % ${#vars[@]} ))
		v=${vars[$k]}
		bin=${v%%:*} opts=""
		[ "$bin" = "$v" ] || opts=${v#*:}
		# shellcheck disable=SC2086
		res=$("$bin" replay "$DUMP" 1 ${opts//,/ } --out "$tmp/out.ist" |
			awk '{ print $7, $15 }')
		echo "$res" >>"$tmp/res.$k"
		line="$line [$k] $res"
	done
	echo "$line"
done
median() { sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "# medians: variant, ns per I/O, of which the writer"
for k in "${!vars[@]}"; do
	echo "[$k] ${vars[$k]} $(cut -d' ' -f1 "$tmp/res.$k" | median) $(cut -d' ' -f2 "$tmp/res.$k" | median)"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
