#!/bin/sh
# SPDX-License-Identifier: MIT
# record_stop.sh - `iostorm record --duration` under a workload that keeps
# running after the stop: the completions of I/Os issued after the stop
# are outside the recording, not losses (they used to be counted as
# completions without issue: 117,814 in a second under fio).  Both the
# live decoder and --spool.  Needs root, tracefs and a loop device; skips
# (77) otherwise.  fio if installed, else a loop of O_DIRECT writes.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/record_lib.sh"
LOOP=
WPID=
cleanup() {
	[ -n "$WPID" ] && kill "$WPID" 2>/dev/null && wait "$WPID" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
truncate -s 64M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img") || skip "cannot set up a loop device"

# One job, one I/O at a time: at the start at most one is in flight, whose
# completion is the only one the recording may see without its issue.
if command -v fio >/dev/null; then
	fio --name=stop --filename="$LOOP" --rw=randwrite --bs=4k --direct=1 \
		--ioengine=psync --iodepth=1 --numjobs=1 --time_based \
		--runtime=120 --size=60M >"$TMP/fio.out" 2>&1 &
	WPID=$!
else
	(while :; do
		"$top_builddir/tests/cli/dio_seq" "$LOOP" w:0:4096 w:8192:4096 \
			w:65536:4096 r:0:4096 >/dev/null || exit 1
	done) &
	WPID=$!
fi
# Running: the loop device's write count grows.
dev=${LOOP#/dev/}
w0=$(awk '{ print $5 }' "/sys/block/$dev/stat")
i=0
while [ "$(awk '{ print $5 }' "/sys/block/$dev/stat")" -lt $((w0 + 100)) ]; do
	i=$((i + 1))
	kill -0 "$WPID" 2>/dev/null || fail "the workload exited"
	[ $i -lt 200 ] || fail "the workload issues no I/O"
	sleep 0.05
done

# check_run NAME STATUS: the summary line of $TMP/NAME.err
check_run() {
	expect_eq "$2" 0 "recorder exit status ($1)"
	line=$(grep '^iostorm: recorded ' "$TMP/$1.err") ||
		{ cat "$TMP/$1.err" >&2; fail "no summary line ($1)"; }
	echo "$1: $line"
	case $line in
	*'; complete') ;;
	*) fail "$1: the recording is not complete: $line" ;;
	esac
	orphans=$(printf '%s\n' "$line" |
		sed -n 's/.* \([0-9][0-9]*\) completions without issue.*/\1/p')
	[ -n "$orphans" ] || fail "$1: no count of completions without issue"
	# The one in flight at the start, at most.
	[ "$orphans" -le 1 ] ||
		fail "$1: $orphans completions without issue (after the stop counted as lost?)"
	after=$(printf '%s\n' "$line" |
		sed -n 's/.* \([0-9][0-9]*\) completions after the stop.*/\1/p')
	[ -n "$after" ] || fail "$1: no count of completions after the stop"
	expect_status 0 "$IOSTORM" verify "$TMP/$1.ist"
	expect_status 0 "$IOSTORM" info "$TMP/$1.ist"
	n=$(sed -n 's/^records: *\([0-9][0-9]*\) .*/\1/p' "$TMP/out")
	[ "${n:-0}" -gt 10 ] || fail "$1: only ${n:-0} records under a running workload"
}

"$IOSTORM" record -d "$LOOP" --duration 1 -o "$TMP/live.ist" 2>"$TMP/live.err"
check_run live $?
"$IOSTORM" record --spool -d "$LOOP" --duration 1 -o "$TMP/spool.ist" 2>"$TMP/spool.err"
check_run spool $?
kill -0 "$WPID" 2>/dev/null || fail "the workload ended during the recordings"
done_ok
