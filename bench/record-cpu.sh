#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/record-cpu.sh - the recorder's own CPU time per I/O on a fixed
# workload, for A/B comparisons of recorder builds or options: fio io_uring,
# 2 jobs at QD16 rate-limited to RATE IOPS each, random 4 KiB reads and
# writes on a private zram device, recorded with `record -n IOS`; each
# round runs every variant once, in an order that rotates from round to
# round.  Prints per round and variant the recorder's CPU (user + system,
# its whole life including startup) per I/O and fio's CPU per I/O, then
# the medians.
# A variant is "BINARY[:OPTIONS]" (options split on commas), e.g.
#   bench/record-cpu.sh 5 /work/main/iostorm ./iostorm ./iostorm:--buffer-size,4M
# Needs root, fio, zram and tracefs.
# Usage: [RATE=50000] [IOS=400000] bench/record-cpu.sh ROUNDS VARIANT...
set -euo pipefail
ROUNDS=${1:-5}
shift
[ $# -gt 0 ] || set -- ./iostorm
RATE=${RATE:-50000}
IOS=${IOS:-400000}
. "$(dirname "$0")/zram-lib.sh"
zram_bench_start bench/record-cpu.sh
trap zram_bench_cleanup EXIT
zram_new 256M
secs=$(( IOS / (2 * RATE) + 2 ))

# one VARIANT INDEX: records IOS I/Os of a rate-limited fio; appends
# "recorder-us fio-us" per I/O to $tmp/res.INDEX
one() {
	local bin=${1%%:*} opts="" TIMEFORMAT='%U %S'
	[ "$bin" = "$1" ] || opts=${1#*:}
	# --duration: when fio cannot reach RATE, the recorder stops anyway
	# (and the count check says so) instead of waiting forever inside a
	# quiet-run that stops everybody else meanwhile.
	# shellcheck disable=SC2086
	{ time "$bin" record -q -d "$DEV" -o "$tmp/rec.ist" -n "$IOS" \
		--duration "$((secs + 2))" ${opts//,/ } \
		2>"$tmp/rec.err"; } 2>"$tmp/rec.time" &
	rp=$!
	sleep 0.3
	{ time fio --name=r --filename=$DEV --rw=randrw --bs=4k --direct=1 \
		--ioengine=io_uring --numjobs=2 --iodepth=16 --rate_iops="$RATE" \
		--time_based --runtime="$secs" --randrepeat=0 --norandommap \
		--group_reporting --output="$tmp/fio.out"; } 2>"$tmp/fio.time" &
	fp=$!
	wait $rp || { cat "$tmp/rec.err" >&2; kill $fp; exit 1; }
	n=$("$bin" info "$tmp/rec.ist" | awk '/^records:/ { print $2 }')
	kill -INT $fp 2>/dev/null || true
	wait $fp || true
	[ "$n" = "$IOS" ] || { echo "variant $1: recorded $n I/Os, not $IOS (fio below 2 x $RATE IOPS? lower RATE or IOS)" >&2; exit 1; }
	nf=$(awk '/issued rwts:/ { split($3, t, /[=,]/); print t[2] + t[3] }' "$tmp/fio.out")
	r=$(echo "$(tail -1 "$tmp/rec.time") $n" | awk '{ printf "%.3f", 1e6 * ($1 + $2) / $3 }')
	f=$(echo "$(tail -1 "$tmp/fio.time") $nf" | awk '{ printf "%.3f", 1e6 * ($1 + $2) / $3 }')
	echo "$r $f" >>"$tmp/res.$2"
	echo "$r $f"
}

echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); $IOS I/Os at 2 x $RATE IOPS"
nv=$#
vars=("$@")
for r in $(seq "$ROUNDS"); do
	line="round $r:"
	for i in $(seq 0 $((nv - 1))); do
		k=$(( (i + r - 1) % nv ))
		res=$(one "${vars[$k]}" "$k")
		line="$line [$k] $res"
	done
	echo "$line"
done
median() { sort -n | awk '{ a[NR] = $1 } END { printf "%.3f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "# medians: variant, recorder us/io, fio us/io"
for k in $(seq 0 $((nv - 1))); do
	echo "[$k] ${vars[$k]} $(cut -d' ' -f1 "$tmp/res.$k" | median) $(cut -d' ' -f2 "$tmp/res.$k" | median)"
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
