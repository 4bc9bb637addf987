#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/record.sh - what recording costs: fio's random 4 KiB I/O on zram at
# the highest rate it reaches (io_uring or libaio, several jobs and a queue
# depth: a short calibration picks the fastest of a few settings), alone and
# while `iostorm record` traces the device, in pairs whose order alternates;
# the recorded count must equal fio's issued count with zero loss.  Prints
# one row per pair and the medians.
# Needs root, fio, zram and tracefs.
# Usage: bench/record.sh [RUNS] [SECONDS]
#        ENGINE=io_uring JOBS=4 DEPTH=16 bench/record.sh ...  (no calibration)
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

# run_fio ENGINE JOBS DEPTH SECS OUT: fio's summary (normal and JSON) in OUT
run_fio() {
	fio --name=rand --filename=$DEV --rw=randrw --rwmixread=50 --bs=4k \
		--direct=1 --ioengine="$1" --numjobs="$2" --iodepth="$3" \
		--time_based --runtime="$4" --randrepeat=0 --norandommap \
		--group_reporting --output-format=json,normal --output="$5"
}
# issued OUT: I/Os fio issued ("issued rwts: total=R,W,T,S"); "x" if any
# was dropped or short
issued() {
	awk '/issued rwts:/ {
		split($3, t, /[=,]/); split($4, s, /[=,]/); split($5, d, /[=,]/)
		bad = s[2] + s[3] + s[4] + s[5] + d[2] + d[3] + d[4] + d[5]
		print bad ? "x" : t[2] + t[3] + t[4] + t[5] }' "$1"
}
# iops OUT: issued I/Os per second of fio's run time (the JSON's read runtime)
iops() {
	rt=$(grep -o '"runtime" : [0-9][0-9]*' "$1" | head -1 | awk '{ print $3 }')
	echo "$(issued "$1") $rt" | awk '{ printf "%.0f", $1 / ($2 / 1000) }'
}

echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (a shared machine)"
if [ -n "${ENGINE:-}" ]; then
	best="$ENGINE ${JOBS:-4} ${DEPTH:-16}"
else
	# Calibration: the fastest setting, fio alone.
	bestiops=0
	for cfg in "io_uring 1 32" "io_uring 2 16" "io_uring 4 16" "io_uring 4 64" \
		"libaio 2 16" "libaio 4 16"; do
		# shellcheck disable=SC2086
		run_fio $cfg 2 "$tmp/cal.out"
		v=$(iops "$tmp/cal.out")
		echo "# calibration: engine/jobs/iodepth $cfg: $v IOPS"
		if [ "$v" -gt "$bestiops" ]; then bestiops=$v; best=$cfg; fi
	done
fi
echo "# fio: --ioengine/--numjobs/--iodepth $best, --runtime=$SECS"

# recorded_run OUT: fio while the recorder traces the device; sets status,
# recorded, reccpu (recorder CPU seconds, user + system)
recorded_run() {
	"$IOSTORM" record -d "$DEV" -o "$tmp/rec.ist" 2>"$tmp/rec.err" &
	rp=$!
	inst=/sys/kernel/tracing/instances/iostorm-record-$rp
	for _ in $(seq 500); do
		[ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ] && grep -q . "$inst/set_event" && break
		sleep 0.02
	done
	# shellcheck disable=SC2086
	run_fio $best "$SECS" "$1"
	reccpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' /proc/$rp/stat)
	kill -INT $rp
	status=0
	wait $rp || status=$?
	recorded=$("$IOSTORM" info "$tmp/rec.ist" | awk '/^records:/ { print $2 }')
}

printf '%-6s %12s %12s %9s %10s %10s %8s %s\n' pair fio-alone fio-recorded slowdown \
	fio-issued recorded rec-cpu loss
: >"$tmp/slow"; : >"$tmp/base"; : >"$tmp/rec"
for r in $(seq "$RUNS"); do
	# Odd pairs run fio alone first, even pairs second: drift in the
	# machine's load does not favour one side.
	if [ $((r % 2)) -eq 1 ]; then
		# shellcheck disable=SC2086
		run_fio $best "$SECS" "$tmp/base.out"
		recorded_run "$tmp/rec.out"
		order=AR
	else
		recorded_run "$tmp/rec.out"
		# shellcheck disable=SC2086
		run_fio $best "$SECS" "$tmp/base.out"
		order=RA
	fi
	base=$(iops "$tmp/base.out")
	withrec=$(iops "$tmp/rec.out")
	n=$(issued "$tmp/rec.out")
	loss=0
	[ "$status" -eq 0 ] || loss="exit$status"
	grep -q ' 0 overrun, 0 missed, 0 without completion, 0 evicted' "$tmp/rec.err" || loss="events"
	[ "$recorded" = "$n" ] || loss="count"
	slow=$(echo "$base $withrec" | awk '{ printf "%.1f", 100 * (1 - $2 / $1) }')
	printf '%-6s %12s %12s %8s%% %10s %10s %7ss %s\n' "$r $order" "$base" "$withrec" \
		"$slow" "$n" "$recorded" "$reccpu" "$loss"
	echo "$slow" >>"$tmp/slow"; echo "$base" >>"$tmp/base"; echo "$withrec" >>"$tmp/rec"
	[ "$loss" = 0 ] || { sed 's/^/       /' "$tmp/rec.err"; }
done
# median FILE FORMAT
median() { sort -n "$1" | awk -v f="$2" '{ a[NR] = $1 } END { printf f, (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
printf '%-6s %12s %12s %8s%%\n' median "$(median "$tmp/base" %.0f)" "$(median "$tmp/rec" %.0f)" \
	"$(median "$tmp/slow" %.1f)"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
