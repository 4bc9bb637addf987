#!/bin/sh
# SPDX-License-Identifier: MIT
# record_live.sh - `iostorm record` on a loop device (request events) and a
# zram device (bio events): a known O_DIRECT sequence is recorded exactly
# (count, offsets, lengths, ops), with latencies; errors and limits.
# Needs root and tracefs; skips (77) otherwise.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/record_lib.sh"
DIO="$top_builddir/tests/cli/dio_seq"
LOOP= ZRAM=
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	if [ -n "$ZRAM" ]; then
		echo 1 >"/sys/block/zram$ZRAM/reset" 2>/dev/null
		echo "$ZRAM" >/sys/class/zram-control/hot_remove 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
truncate -s 32M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img") || skip "cannot set up a loop device"


# -- loop: request-based (block_rq_issue/complete)
REC_OPTS=""
record_start "$TMP/loop.csv" "$LOOP"
pid=$("$DIO" "$LOOP" $SEQ) || fail "dio_seq failed"
record_stop
expect_eq "$RSTATUS" 0 "recorder exit status"
check_seq "$TMP/loop.csv" "$pid" 0
# the CSV keeps the header's metadata and device table, as convert writes it
expect_grep '^# meta: source=tracefs$' "$TMP/loop.csv"
expect_grep "^# meta: dev\.${LOOP#/dev/}\.event=rq$" "$TMP/loop.csv"
expect_grep "^# device: 0 size=33554432 block_size=512 name=${LOOP#/dev/}$" "$TMP/loop.csv"
expect_eq "$(grep -v '^# ' "$TMP/loop.csv" | head -1)" "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags" "the header row after the preamble"
expect_grep 'complete$' "$TMP/rec.err"
expect_grep ' 0 overrun, 0 missed' "$TMP/rec.err"
[ ! -d "$TRACING/instances/iostorm-record-$RPID" ] || fail "tracefs instance left behind"
ok

# -- the same as IST: metadata names the event kind and the process
record_start "$TMP/loop.ist" "$LOOP"
pid=$("$DIO" "$LOOP" $SEQ) || fail "dio_seq failed"
record_stop
expect_eq "$RSTATUS" 0 "recorder exit status (IST)"
"$IOSTORM" cat "$TMP/loop.ist" >"$TMP/loop-ist.csv" || fail "iostorm cat failed"
check_seq "$TMP/loop-ist.csv" "$pid" 0
"$IOSTORM" info "$TMP/loop.ist" >"$TMP/info" || fail "iostorm info failed"
expect_grep "dev\.${LOOP#/dev/}\.event = rq" "$TMP/info"
expect_grep "stream\.$pid = dio_seq" "$TMP/info"
expect_grep "block size 512" "$TMP/info"

# -- killed: every chunk written before (one a second) stays readable.
# Polled through the reader until the sequence's chunk is on disk (a fixed
# 2.5 s was too short on a loaded machine or a sanitizer build: the test
# failed with nothing recorded), at most 30 s.
record_start "$TMP/killed.ist" "$LOOP"
pid=$("$DIO" "$LOOP" $SEQ) || fail "dio_seq failed"
i=0
until "$IOSTORM" cat -n "$TMP/killed.ist" 2>/dev/null | grep -q ",write,20971520,4096,"; do
	i=$((i + 1))
	[ $i -lt 600 ] || { kill -KILL $RPID; fail "no chunk with the sequence written in 30 s"; }
	sleep 0.05
done
kill -KILL $RPID
wait $RPID 2>/dev/null
"$IOSTORM" cat "$TMP/killed.ist" >"$TMP/killed.csv" 2>/dev/null
check_seq "$TMP/killed.csv" "$pid" 0
# The next recorder removes the instance the killed one left behind.
[ -d "$TRACING/instances/iostorm-record-$RPID" ] || fail "no stale instance to clean"
expect_status 0 "$IOSTORM" record -q -d "$LOOP" --duration 100ms -o "$TMP/after.csv"
[ ! -d "$TRACING/instances/iostorm-record-$RPID" ] || fail "stale instance not removed"
ok

# -- zram: bio-based (block_bio_queue/complete), together with the loop
if [ -w /sys/class/zram-control/hot_add ] || modprobe zram 2>/dev/null; then
	ZRAM=$(cat /sys/class/zram-control/hot_add 2>/dev/null) || ZRAM=
fi
if [ -n "$ZRAM" ] && echo 64M >"/sys/block/zram$ZRAM/disksize"; then
	record_start "$TMP/both.csv" "/dev/zram$ZRAM" "$LOOP"
	pidz=$("$DIO" "/dev/zram$ZRAM" $SEQ) || fail "dio_seq on zram failed"
	pidl=$("$DIO" "$LOOP" $SEQ) || fail "dio_seq on loop failed"
	record_stop
	expect_eq "$RSTATUS" 0 "recorder exit status (zram + loop)"
	check_seq "$TMP/both.csv" "$pidz" 0
	check_seq "$TMP/both.csv" "$pidl" 1
	# Nothing of one device leaks into the other.
	n=$(awk -F, -v p="$pidz" 'NR > 1 && $7 == p && $2 != 0' "$TMP/both.csv" | wc -l)
	expect_eq "$n" 0 "zram I/O recorded on the loop device"
	# Volume: 30,000 I/Os (60,000 events, about 50 sub-buffers of 64 KiB,
	# read while the kernel writes them), every one recorded.
	record_start "$TMP/vol.csv" "/dev/zram$ZRAM"
	dd if=/dev/zero of="/dev/zram$ZRAM" bs=4k count=15000 oflag=direct 2>/dev/null &
	pidw=$!
	wait $pidw || fail "dd write on zram failed"
	dd if="/dev/zram$ZRAM" of=/dev/null bs=4k count=15000 iflag=direct 2>/dev/null &
	pidr=$!
	wait $pidr || fail "dd read on zram failed"
	record_stop
	expect_eq "$RSTATUS" 0 "recorder exit status (volume)"
	expect_grep ' 0 overrun, 0 missed, 0 without completion' "$TMP/rec.err"
	n=$(awk -F, -v p=$pidw 'NR > 1 && $7 == p && $3 == "write" && $5 == 4096' "$TMP/vol.csv" | wc -l)
	expect_eq "$n" 15000 "4 KiB writes recorded"
	n=$(awk -F, -v p=$pidr 'NR > 1 && $7 == p && $3 == "read" && $5 == 4096' "$TMP/vol.csv" | wc -l)
	expect_eq "$n" 15000 "4 KiB reads recorded"
else
	skip_part "no zram device: the bio-based (zram) part"
fi

# -- --max-ios stops by itself; --duration too
REC_OPTS="--max-ios 3"
record_start "$TMP/max.csv" "$LOOP"
"$DIO" "$LOOP" $SEQ >/dev/null || fail "dio_seq failed"
i=0
while kill -0 $RPID 2>/dev/null; do
	i=$((i + 1)); [ $i -lt 100 ] || { kill -INT $RPID; fail "--max-ios did not stop"; }
	sleep 0.05
done
wait $RPID
expect_eq "$?" 0 "recorder exit status after --max-ios"
expect_eq "$(grep -vc '^# ' "$TMP/max.csv")" 4 "records with --max-ios 3 (and the header row)"
expect_status 0 "$IOSTORM" record -q -d "$LOOP" --duration 300ms -o "$TMP/dur.csv"
expect_eq "$(grep -v '^# ' "$TMP/dur.csv" | head -1)" "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags" "CSV header"

# -- run through sudo: the output belongs to the invoking user
SUDO_UID=65534 SUDO_GID=65534 "$IOSTORM" record -q -d "$LOOP" --duration 200ms -o "$TMP/sudo.csv" ||
	fail "record as sudo failed"
expect_eq "$(stat -c %u:%g "$TMP/sudo.csv")" 65534:65534 "owner of the output"

# -- errors: one line each
expect_status 1 "$IOSTORM" record -d "$TMP/nonexistent" -o "$TMP/x.csv"
expect_err_line "nonexistent: No such file or directory"
expect_status 1 "$IOSTORM" record -d /dev/null -o "$TMP/x.csv"
expect_err_line "/dev/null: not a block device"
if command -v setpriv >/dev/null; then
	expect_status 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$IOSTORM" record -d "$LOOP" -o "$TMP/x.csv"
	expect_err_line "needs root"
else
	skip_part "no setpriv: record without root"
fi
[ ! -e "$TMP/x.csv" ] || fail "output left behind after an error"
expect_status 2 "$IOSTORM" record -d "$LOOP"
expect_status 2 "$IOSTORM" record -o "$TMP/x.csv"
expect_status 2 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.csv" --duration 0
done_ok
