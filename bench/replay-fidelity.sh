#!/bin/bash
# SPDX-License-Identifier: MIT
# replay-fidelity.sh - benchmarks 2 and 3: timing fidelity and CPU per I/O.
# Poisson arrivals of 4 KiB random reads at 20k, 100k and 300k IOPS for
# $SECS s, replayed with the original timing on zram by iostorm and by fio
# (read_iolog of the same schedule as a version 3 iolog, io_uring, QD 64).
# Issue times are observed from outside (tracefs block_bio_queue,
# ../shared/tools/issue-times.sh) and compared with the schedule by
# fidelity.py: p50/p99/max |issue error| and duration error.  CPU time
# (user + system, children included) per I/O from getrusage.
# Medians of $RUNS runs per tool and rate.  Before every run, bench/hostgap
# spins 1 s on the CPU the replay worker is pinned to (the highest) and
# reports the share of time the host took away ("host lost"): the noise of
# that moment, beside the figures it affects.
. "$(dirname "$0")/replay-lib.sh"
SECS=${SECS:-5}
RATES=${RATES:-"20000 100000 300000"}
REPLAYERS=${REPLAYERS:-"iostorm fio"}
zram_up 2G
T=$BENCH_TMP/fid
HOSTGAP=${HOSTGAP:-$here/hostgap}
WCPU=$(($(nproc) - 1))
# host_lost : percent of 1 s the host took from a spinning thread on $WCPU
host_lost() {
	if [ -x "$HOSTGAP" ]; then
		"$HOSTGAP" "$WCPU" 1 | sed -n 's/^lost=\([0-9.]*\)%.*/\1/p'
	else
		echo nan
	fi
}
printf "%-8s %-8s %10s %10s %12s %10s %10s %10s\n" rate tool "p50(us)" "p99(us)" "max(us)" "dur(%)" "cpu/io(us)" "host-lost%"
for rate in $RATES; do
	gen_poisson "$rate" "$SECS" 2147483648 "$T.csv"
	"$IOSTORM" convert "$T.csv" "$T.ist"
	fio_iolog "$T.csv" "$ZDEV" "$T.iolog"
	n=$(($(wc -l <"$T.csv") - 1))
	for tool in $REPLAYERS; do
		: >"$T.res"
		for i in $(seq "$RUNS"); do
			lost=$(host_lost)
			if [ $tool = iostorm ]; then
				"$TOOLS/issue-times.sh" "$ZDEV" "$T.obs" -- \
					bash -c "$(declare -f cpu_of); cpu_of '$T.cpu' '$IOSTORM' replay '$T.ist' --target '$ZDEV' --iodepth 64 --quiet --no-progress" >/dev/null 2>&1
			else
				"$TOOLS/issue-times.sh" "$ZDEV" "$T.obs" -- \
					bash -c "$(declare -f cpu_of); cpu_of '$T.cpu' fio --name=replay --ioengine=io_uring --iodepth=64 --direct=1 --read_iolog='$T.iolog' --output=/dev/null" >/dev/null 2>&1
			fi
			f=$(python3 "$TOOLS/fidelity.py" "$T.csv" "$T.obs")
			cpu=$(awk -v n="$n" '{ printf "%.2f", $1 * 1e6 / n }' "$T.cpu")
			echo "$f" | awk -v cpu="$cpu" -v lost="$lost" '{ for (i = 1; i <= NF; i++) { if ($i == "p50") p50 = $(i+1); if ($i == "p99") p99 = $(i+1); if ($i == "max") mx = $(i+1) }
				d = $NF; gsub(/[()%+]/, "", d); print p50, p99, mx, d, cpu, lost }' >>"$T.res"
			echo "  $rate $tool run $i: $f cpu/io ${cpu}us host-lost ${lost}%" >&2
		done
		med() { awk -v c="$1" '{ print $c }' "$T.res" | median; }
		printf "%-8s %-8s %10.1f %10.1f %12.1f %+10.3f %10.2f %10.2f\n" "$rate" "$tool" \
			"$(med 1)" "$(med 2)" "$(med 3)" "$(med 4)" "$(med 5)" "$(med 6)"
	done
done
rm -f "$T".*
