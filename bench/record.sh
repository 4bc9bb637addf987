#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/record.sh - what recording costs: fio's random 4 KiB I/O on zram at
# the highest rate it reaches, alone and while `iostorm record` traces the
# device, alternated RUNS times; the recorded count must equal fio's issued
# count with zero loss.  Prints one row per run and the medians.
# Needs root, fio, zram and tracefs.  Usage: bench/record.sh [RUNS] [SECONDS]
set -euo pipefail
RUNS=${1:-5}
SECS=${2:-4}
top=$(cd "$(dirname "$0")/.." && pwd)
IOSTORM=${IOSTORM:-$top/iostorm}
[ "$(id -u)" -eq 0 ] || { echo "bench/record.sh: needs root" >&2; exit 77; }
command -v fio >/dev/null || { echo "bench/record.sh: needs fio" >&2; exit 77; }
[ -d /sys/kernel/tracing/events/block ] || mount -t tracefs nodev /sys/kernel/tracing
[ -e /sys/class/zram-control/hot_add ] || modprobe zram
tmp=$(mktemp -d)
Z=$(cat /sys/class/zram-control/hot_add)
DEV=/dev/zram$Z
cleanup() {
	echo 1 >/sys/block/zram$Z/reset 2>/dev/null || true
	echo "$Z" >/sys/class/zram-control/hot_remove 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
echo 256M >/sys/block/zram$Z/disksize
# Written once, so that reads find data rather than empty pages.
fio --name=fill --filename=$DEV --rw=write --bs=1M --direct=1 --size=256M \
	--output=/dev/null
FIO=(fio --name=rand --filename=$DEV --rw=randrw --rwmixread=50 --bs=4k
	--direct=1 --ioengine=psync --numjobs=1 --time_based --runtime=$SECS
	--randrepeat=0 --norandommap --output-format=json)

ios_of() { grep -o '"total_ios" : [0-9]*' "$1" | awk '{ s += $3 } END { print s }'; }
iops_of() { echo "$1 $SECS" | awk '{ printf "%.0f", $1 / $2 }'; }

printf '%-4s %12s %12s %10s %12s %6s\n' run fio-alone fio-recorded slowdown recorded loss
: >"$tmp/slow"; : >"$tmp/base"; : >"$tmp/rec"
for r in $(seq "$RUNS"); do
	"${FIO[@]}" --output="$tmp/base.json"
	base=$(ios_of "$tmp/base.json")

	"$IOSTORM" record -d "$DEV" -o "$tmp/rec.ist" 2>"$tmp/rec.err" &
	rp=$!
	for i in $(seq 200); do
		inst=/sys/kernel/tracing/instances/iostorm-record-$rp
		[ "$(cat $inst/tracing_on 2>/dev/null)" = 1 ] && grep -q . $inst/set_event && break
		sleep 0.02
	done
	"${FIO[@]}" --output="$tmp/rec.json"
	kill -INT $rp
	status=0
	wait $rp || status=$?
	withrec=$(ios_of "$tmp/rec.json")
	recorded=$("$IOSTORM" info "$tmp/rec.ist" | awk '/^records:/ { print $2 }')
	loss=$([ "$status" -eq 0 ] && echo 0 || echo "exit$status")
	[ "$recorded" = "$withrec" ] || loss="count:$recorded!=$withrec"
	slow=$(echo "$base $withrec" | awk '{ printf "%.1f", 100 * (1 - $2 / $1) }')
	printf '%-4s %12s %12s %9s%% %12s %6s\n' "$r" "$(iops_of "$base")" \
		"$(iops_of "$withrec")" "$slow" "$recorded" "$loss"
	echo "$slow" >>"$tmp/slow"; iops_of "$base" >>"$tmp/base"; echo >>"$tmp/base"
	iops_of "$withrec" >>"$tmp/rec"; echo >>"$tmp/rec"
	tail -1 "$tmp/rec.err" | sed 's/^/     /'
done
median() { grep . "$1" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
printf '%-4s %12s %12s %9s%%\n' median "$(median "$tmp/base")" "$(median "$tmp/rec")" "$(median "$tmp/slow")"
