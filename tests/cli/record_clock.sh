#!/bin/sh
# SPDX-License-Identifier: MIT
# record_clock.sh - `iostorm record --trace-clock`: local (sched_clock) only
# where the kernel holds sched_clock stable, as its scheduler's debug file
# says (IOSTORM_TEST_SCHED_DEBUG names a made-up one here); auto, the
# default, falls back to mono, and mono with --spool; the metadata's
# record.trace_clock names the clock taken; the default takes local here
# with debugfs not mounted (mounted privately, left unmounted); the local
# clock's times are moved to CLOCK_MONOTONIC (the same sequence recorded by
# a mono recorder at the same time has the same latencies and gaps; an
# offset 10 s off puts every record before the start); usage errors.
# Needs root, tracefs and a loop device; skips (77) otherwise; the live
# local part needs debugfs and a stable sched_clock.
# It runs in a mount namespace of its own where it can (root, unshare):
# debugfs, mounted here when it is not, is then this run's alone, which
# another run's unmount at its end (a concurrent make check in another
# tree) cannot pull away in the middle, and which nothing outlives.
if [ -z "${IOSTORM_TEST_MNTNS:-}" ] && [ "$(id -u)" -eq 0 ] &&
   unshare -m --propagation private true 2>/dev/null; then
	IOSTORM_TEST_MNTNS=1
	export IOSTORM_TEST_MNTNS
	exec unshare -m --propagation private "$0" "$@"
fi
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/record_lib.sh"
DIO="$top_builddir/tests/cli/dio_seq"
LOOP=
P2=
DEBUGFS=
cleanup() {
	[ -n "$P2" ] && kill "$P2" 2>/dev/null && wait "$P2" 2>/dev/null
	[ -n "$DEBUGFS" ] && umount /sys/kernel/debug 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
truncate -s 32M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img") || skip "cannot set up a loop device"

# -- usage errors (exit 2, one line)
expect_status 2 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --trace-clock tsc
expect_grep "bad --trace-clock 'tsc' \(mono, local or auto\)" "$TMP/err"
expect_status 2 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --trace-clock local --spool
expect_grep "--trace-clock local and --spool do not go together" "$TMP/err"
expect_status 2 "$IOSTORM" record --from-pcap "$TMP/none.pcap" -o "$TMP/x.ist" --trace-clock mono
expect_grep "--trace-clock is for live block recording" "$TMP/err"

# -- a kernel that does not hold sched_clock stable: local refused, auto mono
cat >"$TMP/unstable" <<'EOF'
Sched Debug Version: v0.11, test
ktime                                   : 2914636.109638
sched_clk                               : 2914656.951909
cpu_clk                                 : 2914637.515391
jiffies                                 : 4295620907
sched_clock_stable()                    : 0
EOF
IOSTORM_TEST_SCHED_DEBUG=$TMP/unstable
export IOSTORM_TEST_SCHED_DEBUG
expect_status 1 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --trace-clock local
expect_err_line "--trace-clock local: the kernel does not hold sched_clock stable"
[ ! -e "$TMP/x.ist" ] || fail "an output written by a refused recording"
ok
IOSTORM_TEST_SCHED_DEBUG=$TMP/absent
expect_status 1 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --trace-clock local
expect_err_line "--trace-clock local: cannot read sched_clock's state \($TMP/absent, debugfs\): No such file or directory$"
# times without their six digits: not understood, refused, the file named
# with what it lacks (not "cannot read ...: Invalid argument")
sed 's/^sched_clock_stable().*/sched_clock_stable()                    : 1/; s/2914656\.951909/2914656.95/' \
	"$TMP/unstable" >"$TMP/short"
IOSTORM_TEST_SCHED_DEBUG=$TMP/short
expect_status 1 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --trace-clock local
expect_err_line "--trace-clock local: $TMP/short: no \"ktime\" and \"sched_clk\" times \(ms, six decimals\) in its header$"
[ ! -e "$TMP/x.ist" ] || fail "an output written by a refused recording"
ok

# record_seq OUT WHAT: records the known sequence (dio_seq, its pid in
# pid) into OUT with $REC_OPTS; the recorder exits 0 and OUT holds it
record_seq() {
	record_start "$1" "$LOOP"
	pid=$("$DIO" "$LOOP" $SEQ) || fail "dio_seq failed"
	record_stop
	expect_eq "$RSTATUS" 0 "recorder exit status ($2)"
	check_seq "$1" "$pid" 0
}

IOSTORM_TEST_SCHED_DEBUG=$TMP/unstable
for o in "--trace-clock auto" ""; do
	REC_OPTS=$o
	record_seq "$TMP/auto.csv" "${o:-the default}, unstable"
	expect_grep '^# meta: record.trace_clock=mono$' "$TMP/auto.csv"
	expect_grep '^# meta: trace_clock=mono$' "$TMP/auto.csv"
done
unset IOSTORM_TEST_SCHED_DEBUG
# the default with --spool: mono, stable or not
REC_OPTS="--spool"
record_seq "$TMP/spool.csv" "--spool, the default clock"
expect_grep '^# meta: record.trace_clock=mono$' "$TMP/spool.csv"

# -- the real kernel's word
SD=/sys/kernel/debug/sched/debug
# debugfs not mounted: the default reads the kernel's word through a
# private mount, and leaves none behind
if ! grep -q ' /sys/kernel/debug debugfs ' /proc/self/mounts &&
   mount -t debugfs none /sys/kernel/debug 2>/dev/null; then
	DEBUGFS=1
	want=mono
	grep -q '^sched_clock_stable() *: 1$' "$SD" && want=local
	umount /sys/kernel/debug || fail "cannot unmount debugfs"
	DEBUGFS=
	REC_OPTS=
	record_seq "$TMP/nodebugfs.csv" "the default, debugfs not mounted"
	expect_grep "^# meta: record.trace_clock=$want\$" "$TMP/nodebugfs.csv"
	grep -q ' /sys/kernel/debug debugfs ' /proc/self/mounts &&
		fail "the recorder left debugfs mounted"
	ok
fi
# mounted here if it is not (and unmounted at the end)
if [ ! -r "$SD" ] && mount -t debugfs none /sys/kernel/debug 2>/dev/null; then
	DEBUGFS=1
fi
[ -r "$SD" ] || skip_part "no $SD (debugfs): the live local clock"
if [ -r "$SD" ] && grep -q '^sched_clock_stable() *: 1$' "$SD"; then
	# the default (local here) and mono recording the same sequence at
	# the same time
	"$IOSTORM" record -d "$LOOP" -o "$TMP/mono.csv" --trace-clock mono 2>"$TMP/mono.err" &
	P2=$!
	record_ready "$P2"
	REC_OPTS=
	record_start "$TMP/local.csv" "$LOOP"
	pid=$("$DIO" "$LOOP" $SEQ) || fail "dio_seq failed"
	record_stop
	kill -INT "$P2"
	wait "$P2"
	st2=$?
	P2=
	expect_eq "$RSTATUS" 0 "recorder exit status (local)"
	expect_eq "$st2" 0 "recorder exit status (mono beside it)"
	check_seq "$TMP/local.csv" "$pid" 0
	check_seq "$TMP/mono.csv" "$pid" 0
	expect_grep '^# meta: record.trace_clock=local$' "$TMP/local.csv"
	expect_grep '^# meta: trace_clock=mono$' "$TMP/local.csv"
	expect_grep '^# meta: record.trace_clock=mono$' "$TMP/mono.csv"
	# Each record's latency and its gap to the next agree within 20 us
	# (the two instances' events are written one after the other), all but
	# one: a vCPU taken away between the two writes parts them by as long
	# (a loaded VM here: one latency 24 us apart, the six others within
	# 1 us; the offset read from sched/debug moved by 0.1 us in 2000 reads).
	for f in local mono; do
		awk -F, -v pid="$pid" 'NR > 1 && $7 == pid { if (n++) print $1 - p, $6; else print 0, $6; p = $1 }' \
			"$TMP/$f.csv" >"$TMP/$f.t"
	done
	paste -d' ' "$TMP/local.t" "$TMP/mono.t" >"$TMP/both"
	bad=$(awk '{ d1 = $1 - $3; d2 = $2 - $4; if (d1 < -20000 || d1 > 20000 || d2 < -20000 || d2 > 20000) n++ }
		END { print n + 0 }' "$TMP/both")
	[ "$bad" -le 1 ] || { cat "$TMP/both" >&2; fail "local and mono times disagree ($bad records)"; }
	ok
	# the offset is applied: 10 s more puts every event before the start
	awk '/^sched_clk / { $3 = sprintf("%.6f", $3 + 10000) } { print }' "$SD" | head -8 >"$TMP/off"
	IOSTORM_TEST_SCHED_DEBUG=$TMP/off
	export IOSTORM_TEST_SCHED_DEBUG
	for o in "--trace-clock local" ""; do
		REC_OPTS=$o
		record_seq "$TMP/off.csv" "${o:-the default}, offset 10 s off"
		n=$(awk -F, -v pid="$pid" 'NR > 1 && $7 == pid && $1 != 0' "$TMP/off.csv" | grep -c .)
		expect_eq "$n" 0 "records after the start with the offset 10 s off (${o:-the default})"
	done
	unset IOSTORM_TEST_SCHED_DEBUG
	# and auto takes local here
	REC_OPTS="--trace-clock auto"
	record_seq "$TMP/auto2.csv" "auto, stable"
	expect_grep '^# meta: record.trace_clock=local$' "$TMP/auto2.csv"
	grep -q warning "$TMP/rec.err" && fail "a warning with sched_clock stable: $(cat "$TMP/rec.err")"
	ok
	# sched_clock found unstable by the kernel during the recording (the
	# made-up file rewritten in place: the recorder holds it open): said,
	# and the recording still complete
	head -8 "$SD" >"$TMP/flip"
	IOSTORM_TEST_SCHED_DEBUG=$TMP/flip
	export IOSTORM_TEST_SCHED_DEBUG
	REC_OPTS="--trace-clock local"
	record_start "$TMP/flip.csv" "$LOOP"
	sed 's/^sched_clock_stable().*/sched_clock_stable()                    : 0/' "$TMP/flip" >"$TMP/flip.0"
	cat "$TMP/flip.0" >"$TMP/flip"
	sleep 1.5
	pid=$("$DIO" "$LOOP" $SEQ) || fail "dio_seq failed"
	record_stop
	unset IOSTORM_TEST_SCHED_DEBUG
	expect_eq "$RSTATUS" 0 "recorder exit status (sched_clock found unstable midway)"
	check_seq "$TMP/flip.csv" "$pid" 0
	expect_grep "^iostorm: $TMP/flip.csv: warning: the kernel found sched_clock unstable in [1-9][0-9]* of the once-a-second checks of the local trace clock" \
		"$TMP/rec.err"
elif [ -r "$SD" ]; then
	skip_part "sched_clock not stable here: the live local clock"
fi
done_ok
