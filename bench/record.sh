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
#        REC_OPTS="--buffer-size 4M" bench/record.sh ...  (recorder options)
#        MODE=tp bench/record.sh ...  (the kernel's share alone: the block
#            events enabled and filtered to the device in an instance that
#            nobody reads, overwriting; MODE=tp-nofilter without the filter;
#            TRACE_CLOCK=local etc. for another clock than mono)
# Besides IOPS it prints fio's CPU time (user + system, zram's work and the
# tracepoints included) per I/O, alone and recorded, and the CPU cost of the
# recording: fio's extra CPU time per I/O plus the recorder's, over fio's
# alone (what the slowdown is when fio keeps every CPU busy); stabler than
# IOPS on a shared machine.
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

# run_fio ENGINE JOBS DEPTH SECS OUT: fio's summary (normal and JSON) in OUT,
# its CPU seconds ("user system") in OUT.time
run_fio() {
	local TIMEFORMAT='%U %S'
	{ time fio --name=rand --filename=$DEV --rw=randrw --rwmixread=50 --bs=4k \
		--direct=1 --ioengine="$1" --numjobs="$2" --iodepth="$3" \
		--time_based --runtime="$4" --randrepeat=0 --norandommap \
		--group_reporting --output-format=json,normal --output="$5"; } 2>"$5.time"
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

# cpu_per_io OUT: fio's CPU time per issued I/O in microseconds
cpu_per_io() {
	echo "$(tail -1 "$1.time") $(issued "$1")" | awk '{ printf "%.2f", 1e6 * ($1 + $2) / $3 }'
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
# recorded, reccpu (recorder CPU seconds while fio ran, "user+system")
recorded_run() {
	case "${MODE:-record}" in tp|tp-nofilter) tp_run "$1"; return;; esac
	# shellcheck disable=SC2086
	"$IOSTORM" record -d "$DEV" -o "$tmp/rec.ist" ${REC_OPTS:-} 2>"$tmp/rec.err" &
	rp=$!
	inst=/sys/kernel/tracing/instances/iostorm-record-$rp
	for _ in $(seq 500); do
		[ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ] && grep -q . "$inst/set_event" && break
		sleep 0.02
	done
	# shellcheck disable=SC2086
	run_fio $best "$SECS" "$1"
	reccpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f+%.2f", $14 / hz, $15 / hz }' /proc/$rp/stat)
	kill -INT $rp
	status=0
	wait $rp || status=$?
	recorded=$("$IOSTORM" info "$tmp/rec.ist" | awk '/^records:/ { print $2 }')
}

# tp_run OUT: fio while the block events are written into an instance that
# nobody reads (overwrite mode); recorded = events written / 2
tp_run() {
	ti=/sys/kernel/tracing/instances/iostorm-cost-$$
	mkdir "$ti"
	echo "${TRACE_CLOCK:-mono}" >"$ti/trace_clock"
	echo 1 >"$ti/options/overwrite"
	mm=$(( 16#$(stat -c %t "$DEV") << 20 | 16#$(stat -c %T "$DEV") ))
	for e in block_bio_queue block_bio_complete; do
		[ "$MODE" = tp-nofilter ] || echo "dev == $mm" >"$ti/events/block/$e/filter"
		echo 1 >"$ti/events/block/$e/enable"
	done
	echo 1 >"$ti/tracing_on"
	# shellcheck disable=SC2086
	run_fio $best "$SECS" "$1"
	echo 0 >"$ti/tracing_on"
	reccpu=0.00+0.00
	status=0
	recorded=$(cat "$ti"/per_cpu/cpu*/stats | awk '/^entries:|^overrun:/ { n += $2 } END { print n / 2 }')
	printf ' 0 overrun, 0 missed, 0 without completion, 0 evicted\n' >"$tmp/rec.err"
	rmdir "$ti"
}

printf '%-6s %10s %10s %9s %7s %7s %8s %9s %9s %10s %s\n' pair fio-alone fio-rec slowdown \
	us/io-a us/io-r cpu-cost fio-issued recorded rec-cpu loss
: >"$tmp/slow"; : >"$tmp/base"; : >"$tmp/rec"; : >"$tmp/ca"; : >"$tmp/cr"; : >"$tmp/cc"
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
	ca=$(cpu_per_io "$tmp/base.out")
	cr=$(cpu_per_io "$tmp/rec.out")
	n=$(issued "$tmp/rec.out")
	loss=0
	[ "$status" -eq 0 ] || loss="exit$status"
	grep -q ' 0 overrun, 0 missed, 0 without completion, 0 evicted' "$tmp/rec.err" || loss="events"
	[ "$recorded" = "$n" ] || loss="count"
	slow=$(echo "$base $withrec" | awk '{ printf "%.1f", 100 * (1 - $2 / $1) }')
	cc=$(echo "$ca $cr $reccpu $n" | awk '{ split($3, c, "+")
		printf "%.1f", 100 * (($2 + 1e6 * (c[1] + c[2]) / $4) / $1 - 1) }')
	printf '%-6s %10s %10s %8s%% %7s %7s %7s%% %9s %9s %9ss %s\n' "$r $order" "$base" "$withrec" \
		"$slow" "$ca" "$cr" "$cc" "$n" "$recorded" "$reccpu" "$loss"
	echo "$slow" >>"$tmp/slow"; echo "$base" >>"$tmp/base"; echo "$withrec" >>"$tmp/rec"
	echo "$ca" >>"$tmp/ca"; echo "$cr" >>"$tmp/cr"; echo "$cc" >>"$tmp/cc"
	[ "$loss" = 0 ] || { sed 's/^/       /' "$tmp/rec.err"; }
done
# median FILE FORMAT
median() { sort -n "$1" | awk -v f="$2" '{ a[NR] = $1 } END { printf f, (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
printf '%-6s %10s %10s %8s%% %7s %7s %7s%%\n' median "$(median "$tmp/base" %.0f)" "$(median "$tmp/rec" %.0f)" \
	"$(median "$tmp/slow" %.1f)" "$(median "$tmp/ca" %.2f)" "$(median "$tmp/cr" %.2f)" \
	"$(median "$tmp/cc" %.1f)"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
