#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/record-kernel.sh - the kernel's share of recording alone: fio's CPU
# time per I/O (psync, one job pinned to the last CPU, random 4 KiB reads
# on a private zram device) with the block bio events off, then on in a
# tracefs instance that nobody reads (overwrite mode), in several settings,
# round after round.  Prints one line per round: "off US" then "SETTING US"
# for each setting.
# A setting is CLOCK:FILTER[:BUFFER_KB[:SUBBUF_KB]], e.g. mono:1 (the
# recorder's: the mono clock, the events filtered to the device), mono:0,
# x86-tsc:1, mono:1:1024, mono:1:16384:4.
# Needs root, fio, zram and tracefs.
# Usage: bench/record-kernel.sh [ROUNDS] [SECONDS] [SETTING...]
set -euo pipefail
ROUNDS=${1:-5}
SECS=${2:-1.5}
shift 2 2>/dev/null || shift $#
[ $# -gt 0 ] || set -- mono:1 mono:0 x86-tsc:1
. "$(dirname "$0")/zram-lib.sh"
zram_bench_start bench/record-kernel.sh
T=/sys/kernel/tracing
ti=$T/instances/iostorm-kernel-$$
cleanup() {
	[ -d "$ti" ] && { echo 0 >"$ti/tracing_on"; rmdir "$ti"; }
	zram_bench_cleanup
}
trap cleanup EXIT
zram_new 256M
mm=$(( 16#$(stat -c %t "$DEV") << 20 | 16#$(stat -c %T "$DEV") ))
cpu=$(( $(nproc) - 1 ))

# us_per_io: one fio run, its CPU time (user + system) per issued I/O
us_per_io() {
	local TIMEFORMAT='%U %S'
	{ time taskset -c $cpu fio --name=r --filename=$DEV --rw=randread --bs=4k \
		--direct=1 --ioengine=psync --numjobs=1 --time_based --runtime="$SECS" \
		--randrepeat=0 --norandommap --output="$tmp/fio.out"; } 2>"$tmp/time"
	n=$(awk '/issued rwts:/ { split($3, t, /[=,]/); print t[2] + t[3] }' "$tmp/fio.out")
	echo "$(tail -1 "$tmp/time") $n" | awk '{ printf "%.3f", 1e6 * ($1 + $2) / $3 }'
}

echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); fio pinned to CPU $cpu, ${SECS}s a run"
for _ in $(seq "$ROUNDS"); do
	line="off $(us_per_io)"
	for s in "$@"; do
		IFS=: read -r clk fil kb sub <<<"$s"
		mkdir "$ti"
		echo "$clk" >"$ti/trace_clock"
		[ -z "${sub:-}" ] || echo "$sub" >"$ti/buffer_subbuf_size_kb"
		[ -z "${kb:-}" ] || echo "$kb" >"$ti/buffer_size_kb"
		for e in block_bio_queue block_bio_complete; do
			[ "$fil" = 0 ] || echo "dev == $mm" >"$ti/events/block/$e/filter"
			echo 1 >"$ti/events/block/$e/enable"
		done
		echo 1 >"$ti/tracing_on"
		line="$line $s $(us_per_io)"
		echo 0 >"$ti/tracing_on"
		rmdir "$ti"
	done
	echo "$line"
	echo "$line" >>"$tmp/lines"
done
# Medians over the rounds, and each setting's extra CPU per I/O against
# events off in the same round (median of the per-round differences).
awk '{ for (i = 1; i < NF; i += 2) { n[i] = $i; v[i, NR] = $(i + 1); d[i, NR] = $(i + 1) - $2 } }
	function med(a, i, k, t, j, m, x) { m = 0
		for (j = 1; j <= NR; j++) t[++m] = a[i, j]
		for (j = 2; j <= m; j++) for (k = j; k > 1 && t[k - 1] > t[k]; k--) { x = t[k]; t[k] = t[k - 1]; t[k - 1] = x }
		return (m % 2) ? t[(m + 1) / 2] : (t[m / 2] + t[m / 2 + 1]) / 2 }
	END { printf "median"; for (i = 1; i < NF; i += 2) printf " %s %.3f", n[i], med(v, i)
		printf "\nextra "; for (i = 3; i < NF; i += 2) printf " %s %+.3f", n[i], med(d, i); print "" }' "$tmp/lines"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
