#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/record.sh - what recording costs: fio's random 4 KiB I/O on zram at
# the highest rate it reaches (io_uring or libaio, several jobs and a queue
# depth: a short calibration picks the fastest of a few settings), alone and
# while `iostorm record` traces the device, in rounds whose order rotates;
# the recorded count must equal fio's issued count with zero loss.  Prints
# one row per round and variant, and the medians.
# Needs root, fio, zram and tracefs.
# Usage: bench/record.sh [ROUNDS] [SECONDS]
#        ENGINE=io_uring JOBS=4 DEPTH=16 bench/record.sh ...  (no calibration)
#        REC_OPTS="--buffer-size 4M" bench/record.sh ...  (recorder options)
#        VARIANTS="record tp" bench/record.sh ...  (several variants, each
#            run once a round beside fio alone; MODE=V is VARIANTS=V):
#          record    `$IOSTORM record` with $REC_OPTS (the default)
#          record2   `$IOSTORM2 record` with $REC_OPTS2 (A/B of two builds
#                    or two option sets in the same rounds)
#          record3   `$IOSTORM3 record` with $REC_OPTS3 (a third)
#          tp        the kernel's share alone: the block events enabled and
#                    filtered to the device in an instance that nobody
#                    reads, overwriting (TRACE_CLOCK=local etc. for another
#                    clock than mono)
#          tp@CLOCK  tp with the instance's trace clock CLOCK (mono, local,
#                    global, x86-tsc, ...: one of the instance's
#                    trace_clock list), e.g. VARIANTS="tp@mono tp@local";
#                    tp-nofilter@CLOCK and tp-nocmd@CLOCK likewise
#          tp-nofilter  the same without the filter
#          tp-nocmd  tp with the top level's record-cmd option off (global:
#                    a measurement of the sched_switch probe's cost only)
#        PAIRS=1 bench/record.sh ...  (each variant against its own run of
#            fio alone, right before or after it, the order alternating
#            from round to round, instead of one run of fio alone a round:
#            twice the runs of fio alone, no drift between the pair's
#            two runs but the one run's)
# Besides IOPS it prints fio's CPU time (user + system, zram's work and the
# tracepoints included) per I/O, alone and recorded, and the CPU cost of the
# recording: fio's extra CPU time per I/O plus the recorder's, over fio's
# alone (what the slowdown is when fio keeps every CPU busy); stabler than
# IOPS on a shared machine.  With both record and record2 it also prints
# the medians of their per-round differences.  "other" is the share of the
# CPUs that something else kept busy while fio ran (alone/recorded): high
# in a round, that round measured a disturbed machine.
set -euo pipefail
RUNS=${1:-5}
SECS=${2:-4}
top=$(cd "$(dirname "$0")/.." && pwd)
IOSTORM=${IOSTORM:-$top/iostorm}
. "$top/bench/zram-lib.sh"
zram_bench_start bench/record.sh
trap zram_bench_cleanup EXIT
zram_new 256M

# busy: the machine's busy CPU time so far in clock ticks (/proc/stat: user,
# nice, system, irq, softirq and steal: what the hypervisor gave others)
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }
# run_fio ENGINE JOBS DEPTH SECS OUT: fio's summary (normal and JSON) in OUT,
# its CPU seconds ("user system") in OUT.time, the wall time (ns) and the
# machine's busy ticks meanwhile in OUT.busy
run_fio() {
	local TIMEFORMAT='%U %S' b0 w0
	b0=$(busy); w0=$(date +%s%N)
	{ time fio --name=rand --filename=$DEV --rw=randrw --rwmixread=50 --bs=4k \
		--direct=1 --ioengine="$1" --numjobs="$2" --iodepth="$3" \
		--time_based --runtime="$4" --randrepeat=0 --norandommap \
		--group_reporting --output-format=json,normal --output="$5"; } 2>"$5.time"
	echo "$(( $(date +%s%N) - w0 )) $(( $(busy) - b0 ))" >"$5.busy"
}
# other OUT RECCPU: the share (%) of the machine's CPUs that neither fio nor
# the recorder (RECCPU s) used while fio ran but that was busy: processes
# quiet-run does not stop, kernel threads, the hypervisor's steal.  A round
# where it is high measured a disturbed machine.
other() {
	echo "$(cat "$1.busy") $(tail -1 "$1.time") $2 $(getconf CLK_TCK) $(nproc)" |
		awk '{ o = $2 / $6 - $3 - $4 - $5; printf "%.0f", 100 * o / ($7 * $1 / 1e9) }'
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
	# zram is synchronous and has no nowait support: io_uring hands
	# every I/O to an io-wq worker (a context switch or more per I/O),
	# so the synchronous engines, one I/O per job, can be faster.
	for cfg in "io_uring 1 32" "io_uring 2 16" "io_uring 4 16" "io_uring 4 64" \
		"libaio 2 16" "libaio 4 16" "psync 2 1" "psync 4 1" "pvsync2 2 1"; do
		# shellcheck disable=SC2086
		run_fio $cfg 2 "$tmp/cal.out"
		v=$(iops "$tmp/cal.out")
		echo "# calibration: engine/jobs/iodepth $cfg: $v IOPS"
		if [ "$v" -gt "$bestiops" ]; then bestiops=$v; best=$cfg; fi
	done
fi
echo "# fio: --ioengine/--numjobs/--iodepth $best, --runtime=$SECS"

# oncpu PID: the on-CPU time of PID's threads in ns
oncpu() { cat /proc/"$1"/task/*/schedstat | awk '{ n += $1 } END { printf "%.0f", n }'; }

# recorded_run VARIANT OUT: fio while the variant records; sets status,
# recorded, reccpu (the recorder's on-CPU seconds while fio ran, user +
# system)
recorded_run() {
	local bin=$IOSTORM opts=${REC_OPTS:-}
	case "$1" in
	tp|tp-*|tp@*) tp_run "$1" "$2"; return;;
	record2) bin=${IOSTORM2:-$IOSTORM}; opts=${REC_OPTS2:-};;
	record3) bin=${IOSTORM3:-$IOSTORM}; opts=${REC_OPTS3:-};;
	esac
	# shellcheck disable=SC2086
	"$bin" record -d "$DEV" -o "$tmp/rec.ist" $opts 2>"$tmp/rec.err" &
	rp=$!
	inst=/sys/kernel/tracing/instances/iostorm-record-$rp
	for _ in $(seq 500); do
		grep -q . "$inst/set_event" 2>/dev/null && [ "$(cat "$inst/tracing_on" 2>/dev/null)" = 1 ] && break
		sleep 0.02
	done
	# The recorder's start (the ring buffers' allocation: 32 MB of pages
	# cleared on two CPUs) comes before fio's: not counted.  On-CPU time
	# in ns from schedstat (user + system; /proc/PID/stat counts ticks).
	c0=$(oncpu "$rp")
	# shellcheck disable=SC2086
	run_fio $best "$SECS" "$2"
	reccpu=$(echo "$c0 $(oncpu "$rp")" | awk '{ printf "%.3f", ($2 - $1) / 1e9 }')
	kill -INT $rp
	status=0
	# its whole life's CPU (start and stop included: with --spool the
	# decoding after fio) from the shell's children times around the wait
	times >"$tmp/times0"
	wait $rp || status=$?
	times >"$tmp/times1"
	lifecpu=$(cat "$tmp/times0" "$tmp/times1" | awk 'NR % 2 == 0 { split($1, a, /[ms]/); split($2, b, /[ms]/);
		t[NR] = a[1] * 60 + a[2] + b[1] * 60 + b[2] } END { printf "%.3f", t[4] - t[2] }')
	recorded=$("$IOSTORM" info "$tmp/rec.ist" | awk '/^records:/ { print $2 }')
}

# tp_run VARIANT OUT: fio while the block events are written into an
# instance that nobody reads (overwrite mode); recorded = events written / 2.
# tp-nofilter: without the filter; tp-nocmd: the top level's record-cmd
# option off meanwhile (a global setting: measurement only); VARIANT@CLOCK:
# with the trace clock CLOCK (else $TRACE_CLOCK, else mono)
tp_run() {
	local kind=${1%%@*} clock=${TRACE_CLOCK:-mono}
	[ "$kind" = "$1" ] || clock=${1#*@}
	ti=/sys/kernel/tracing/instances/iostorm-cost-$$
	mkdir "$ti"
	if ! tr -d '[]' <"$ti/trace_clock" | tr ' ' '\n' | grep -qx -- "$clock"; then
		echo "record.sh: no trace clock $clock here (have: $(cat "$ti/trace_clock"))" >&2
		rmdir "$ti"
		exit 2
	fi
	echo "$clock" >"$ti/trace_clock"
	echo 1 >"$ti/options/overwrite"
	mm=$(( 16#$(stat -c %t "$DEV") << 20 | 16#$(stat -c %T "$DEV") ))
	for e in block_bio_queue block_bio_complete; do
		[ "$kind" = tp-nofilter ] || echo "dev == $mm" >"$ti/events/block/$e/filter"
		echo 1 >"$ti/events/block/$e/enable"
	done
	cmd=$(cat /sys/kernel/tracing/options/record-cmd)
	[ "$kind" != tp-nocmd ] || echo 0 >/sys/kernel/tracing/options/record-cmd
	echo 1 >"$ti/tracing_on"
	# shellcheck disable=SC2086
	run_fio $best "$SECS" "$2"
	echo 0 >"$ti/tracing_on"
	echo "$cmd" >/sys/kernel/tracing/options/record-cmd
	reccpu=0.000
	lifecpu=0.000
	status=0
	recorded=$(cat "$ti"/per_cpu/cpu*/stats | awk '/^entries:|^overrun:/ { n += $2 } END { print n / 2 }')
	printf ' 0 overrun, 0 missed, 0 without completion, 0 evicted\n' >"$tmp/rec.err"
	rmdir "$ti"
}

# The variants measured against fio alone, each round running fio alone
# and every variant once, in an order that rotates from round to round so
# that a drift in the machine's load favours none.
VARIANTS=${VARIANTS:-${MODE:-record}}
read -r -a vars <<<"alone $VARIANTS"
nv=${#vars[@]}
printf '%-6s %-9s %10s %10s %9s %7s %7s %8s %9s %9s %10s %7s %8s %s\n' round variant fio-alone fio-rec \
	slowdown us/io-a us/io-r cpu-cost fio-issued recorded rec-cpu other rec-life loss
for v in "${vars[@]}"; do
	: >"$tmp/slow.$v"; : >"$tmp/rec.$v"; : >"$tmp/cr.$v"; : >"$tmp/cc.$v"; : >"$tmp/rc.$v"; : >"$tmp/lc.$v"
done
: >"$tmp/base"; : >"$tmp/ca"; : >"$tmp/oth"
# one_variant V: fio under the variant V, its results kept for the round
one_variant() {
	recorded_run "$1" "$tmp/out.$1"
	echo "$status $recorded $reccpu $lifecpu" >"$tmp/st.$1"
	cp "$tmp/rec.err" "$tmp/err.$1"
}
PAIRS=${PAIRS:-0}
for r in $(seq "$RUNS"); do
	if [ "$PAIRS" = 1 ]; then
		# each variant with its own fio alone, alone first in odd
		# rounds, the variants' order rotating
		for i in $(seq 1 $((nv - 1))); do
			v=${vars[$(( (i + r - 2) % (nv - 1) + 1 ))]}
			# shellcheck disable=SC2086
			[ $((r % 2)) = 0 ] || run_fio $best "$SECS" "$tmp/base.out.$v"
			one_variant "$v"
			# shellcheck disable=SC2086
			[ $((r % 2)) = 1 ] || run_fio $best "$SECS" "$tmp/base.out.$v"
		done
	else
		for i in $(seq 0 $((nv - 1))); do
			v=${vars[$(( (i + r - 1) % nv ))]}
			if [ "$v" = alone ]; then
				# shellcheck disable=SC2086
				run_fio $best "$SECS" "$tmp/base.out"
			else
				one_variant "$v"
			fi
		done
	fi
	for v in "${vars[@]:1}"; do
		af=$tmp/base.out
		[ "$PAIRS" != 1 ] || af=$tmp/base.out.$v
		base=$(iops "$af")
		ca=$(cpu_per_io "$af")
		oa=$(other "$af" 0)
		# fio alone's medians: one run a round, or one a pair
		if [ "$PAIRS" = 1 ] || [ "$v" = "${vars[1]}" ]; then
			echo "$base" >>"$tmp/base"; echo "$ca" >>"$tmp/ca"
		fi
		read -r status recorded reccpu lifecpu <"$tmp/st.$v"
		withrec=$(iops "$tmp/out.$v")
		cr=$(cpu_per_io "$tmp/out.$v")
		n=$(issued "$tmp/out.$v")
		loss=0
		[ "$status" -eq 0 ] || loss="exit$status"
		grep -q ' 0 overrun, 0 missed, 0 without completion, 0 evicted' "$tmp/err.$v" || loss="events"
		[ "$recorded" = "$n" ] || loss="count"
		slow=$(echo "$base $withrec" | awk '{ printf "%.1f", 100 * (1 - $2 / $1) }')
		cc=$(echo "$ca $cr $reccpu $n" | awk '{ printf "%.1f", 100 * (($2 + 1e6 * $3 / $4) / $1 - 1) }')
		rc=$(echo "$reccpu $n" | awk '{ printf "%.2f", 1e6 * $1 / $2 }')
		orr=$(other "$tmp/out.$v" "$reccpu")
		lc=$(echo "$lifecpu $n" | awk '{ printf "%.2f", 1e6 * $1 / $2 }')
		printf '%-6s %-9s %10s %10s %8s%% %7s %7s %7s%% %9s %9s %9ss %7s %7ss %s\n' "$r" "$v" "$base" "$withrec" \
			"$slow" "$ca" "$cr" "$cc" "$n" "$recorded" "$reccpu" "$oa/$orr" "$lifecpu" "$loss"
		echo "$oa" >>"$tmp/oth"; echo "$orr" >>"$tmp/oth"
		echo "$slow" >>"$tmp/slow.$v"; echo "$withrec" >>"$tmp/rec.$v"
		echo "$cr" >>"$tmp/cr.$v"; echo "$cc" >>"$tmp/cc.$v"; echo "$rc" >>"$tmp/rc.$v"
		echo "$lc" >>"$tmp/lc.$v"
		[ "$loss" = 0 ] || { sed 's/^/       /' "$tmp/err.$v"; }
	done
done
# median FILE FORMAT
median() { sort -n "$1" | awk -v f="$2" '{ a[NR] = $1 } END { printf f, (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
echo "# medians (rec-cpu: the recorder's CPU per I/O while fio ran, us; rec-life: in its whole life)"
for v in "${vars[@]:1}"; do
	printf '%-6s %-9s %10s %10s %8s%% %7s %7s %7s%% %29s %16s\n' median "$v" "$(median "$tmp/base" %.0f)" \
		"$(median "$tmp/rec.$v" %.0f)" "$(median "$tmp/slow.$v" %.1f)" "$(median "$tmp/ca" %.2f)" \
		"$(median "$tmp/cr.$v" %.2f)" "$(median "$tmp/cc.$v" %.1f)" "$(median "$tmp/rc.$v" %.2f)us" \
		"$(median "$tmp/lc.$v" %.2f)us"
done
# Two recorders in the same rounds: their per-round differences (each
# round's pair ran minutes apart at most, against the same fio alone), a
# finer comparison than the difference of the two medians.  Any other two
# variants (e.g. tp@local and tp@mono, or record and tp): the later one in
# VARIANTS minus the earlier.
pairs="record:record2 record3:record2 record3:record"
for i in $(seq 1 $((nv - 1))); do
	for j in $(seq $((i + 1)) $((nv - 1))); do
		case " record record2 record3 " in
		*" ${vars[i]} "*) case " record record2 record3 " in *" ${vars[j]} "*) continue;; esac;;
		esac
		pairs="$pairs ${vars[j]}:${vars[i]}"
	done
done
for pair in $pairs; do
	a=${pair%%:*}; b=${pair#*:}
	[ -s "$tmp/slow.$a" ] && [ -s "$tmp/slow.$b" ] || continue
	echo "# paired, $a - $b: median of the per-round differences (rounds where $a is lower)"
	for m in slow:slowdown:pts cc:cpu-cost:pts rc:rec-cpu:us lc:rec-life:us; do
		f=${m%%:*}; rest=${m#*:}
		paste "$tmp/$f.$a" "$tmp/$f.$b" | awk '{ print $1 - $2, ($1 < $2) }' >"$tmp/diff"
		awk '{ print $1 }' "$tmp/diff" >"$tmp/d1"
		printf '# %-9s %+8.3f %s (%d of %d)\n' "${rest%%:*}" "$(median "$tmp/d1" %.3f)" "${rest#*:}" \
			"$(awk '{ n += $2 } END { print n }' "$tmp/diff")" "$(wc -l <"$tmp/diff")"
	done
done
echo "# other (alone/recorded, % of the CPUs busy with neither fio nor the recorder): median $(median "$tmp/oth" %.0f)%"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
