#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/record-profile.sh - where the recording's cost goes: a system-wide
# perf profile (cpu-clock samples with call graphs) while fio's random 4 KiB
# I/O runs on a private zram device (psync, 4 jobs, as record.sh's runs)
# under the variant VARIANT:
#   record     `$IOSTORM record $REC_OPTS` (the default)
#   tp@CLOCK   the block tracepoints alone, filtered to the device, in a
#              tracefs instance nobody reads, with the trace clock CLOCK
#   alone      fio alone
# Prints the samples by command, the recorder's own top symbols, the top
# symbols of all (self), and the inclusive share of the tracing's parts:
# the block events' handlers, the ring buffer's reserve and commit, and the
# trace clocks' functions (mono: ktime_get_mono_fast_ns; local:
# trace_clock_local / sched_clock; global: trace_clock_global; x86-tsc:
# trace_clock_x86_tsc; and the kvm/pv clock or TSC reads under them).
# Needs root, fio, perf, zram and tracefs.  Hold the measurement lock:
#   /var/tmp/fx/quiet-run bench/record-profile.sh [SECONDS] [VARIANT]
set -euo pipefail
SECS=${1:-4}
VARIANT=${2:-record}
top=$(cd "$(dirname "$0")/.." && pwd)
IOSTORM=${IOSTORM:-$top/iostorm}
command -v perf >/dev/null || { echo "record-profile.sh: needs perf" >&2; exit 77; }
. "$top/bench/zram-lib.sh"
zram_bench_start bench/record-profile.sh
ti=
rp=
cleanup() {
	[ -z "$rp" ] || kill -INT "$rp" 2>/dev/null || true
	[ -z "$rp" ] || wait "$rp" 2>/dev/null || true
	[ -z "$ti" ] || { echo 0 >"$ti/tracing_on"; rmdir "$ti"; } 2>/dev/null || true
	zram_bench_cleanup
}
trap cleanup EXIT
zram_new 256M

case "$VARIANT" in
record)
	# shellcheck disable=SC2086
	"$IOSTORM" record -d "$DEV" -o "$tmp/rec.ist" ${REC_OPTS:-} 2>"$tmp/rec.err" &
	rp=$!
	inst=/sys/kernel/tracing/instances/iostorm-record-$rp
	for _ in $(seq 500); do
		grep -q . "$inst/set_event" 2>/dev/null && [ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ] && break
		sleep 0.02
	done
	;;
tp@*)
	ti=/sys/kernel/tracing/instances/iostorm-prof-$$
	mkdir "$ti"
	echo "${VARIANT#tp@}" >"$ti/trace_clock"
	echo 1 >"$ti/options/overwrite"
	mm=$(( 16#$(stat -c %t "$DEV") << 20 | 16#$(stat -c %T "$DEV") ))
	for e in block_bio_queue block_bio_complete; do
		echo "dev == $mm" >"$ti/events/block/$e/filter"
		echo 1 >"$ti/events/block/$e/enable"
	done
	echo 1 >"$ti/tracing_on"
	;;
alone) ;;
*) echo "record-profile.sh: unknown variant $VARIANT" >&2; exit 2;;
esac

echo "# record-profile: $VARIANT, fio psync 4 jobs ${SECS}s, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
fio --name=rand --filename="$DEV" --rw=randrw --rwmixread=50 --bs=4k --direct=1 \
	--ioengine=psync --numjobs=4 --iodepth=1 --time_based --runtime="$((SECS + 1))" \
	--randrepeat=0 --norandommap --group_reporting --output="$tmp/fio.out" &
fp=$!
sleep 0.5
perf record -q -e cpu-clock -F 2999 -a -g -o "$tmp/perf.data" -- sleep "$SECS" 2>/dev/null
wait "$fp"
awk '/issued rwts:/ { print "# fio " $0 }' "$tmp/fio.out"
if [ -n "$rp" ]; then
	kill -INT "$rp"
	wait "$rp" || echo "# recorder exit $?"
	rp=
	sed 's/^/# recorder: /' "$tmp/rec.err" | tail -3
fi

rep() { perf report -i "$tmp/perf.data" --stdio -q "$@" 2>/dev/null; }
echo "## samples by command (self, % of all)"
rep --no-children --sort comm -g none | awk 'NF && $1 ~ /%$/' | head -8 || true
echo "## the recorder's top symbols (self, % of all)"
rep --no-children --comm iostorm --sort sym -g none | awk 'NF && $1 ~ /%$/' | head -15 || true
echo "## top symbols, all commands (self, % of all)"
rep --no-children --sort sym -g none | awk 'NF && $1 ~ /%$/' | head -25 || true
echo "## the tracing's parts (inclusive: children, % of all)"
rep --children --sort sym -g none |
	awk 'NF && $1 ~ /%$/ { sub(/[ \t]+$/, ""); print }' |
	grep -E ' (trace_event_raw_event_block_bio[a-z_]*|perf_trace_block[a-z_]*|trace_event_buffer_(reserve|commit)|trace_buffer_unlock_commit[a-z_]*|ring_buffer_lock_reserve|ring_buffer_unlock_commit|ring_buffer_write|rb_commit|__rb_reserve_next|rb_time_[a-z_]*|trace_clock[a-z_0-9]*|ktime_get_mono_fast_ns|ktime_get_raw_fast_ns|ktime_get_boot_fast_ns|sched_clock[a-z_]*|local_clock[a-z_]*|kvm_clock_[a-z_]*|kvm_sched_clock_read|pvclock_[a-z_]*|native_sched_clock|read_tsc|rdtsc[a-z_]*|filter_match_preds|trace_event_buffer_lock_reserve|tracing_record_cmdline|trace_save_cmd)(\.[a-z0-9.]+)?$' |
	awk 'BEGIN { print "  children  self  symbol" } { print "  " $1 "  " $2 "  " $NF }'  || true
