#!/bin/sh
# SPDX-License-Identifier: MIT
# record_spool.sh - `iostorm record --spool`: the trace buffers' pages go
# to a spool beside the output and are decoded with idle CPU time; a known
# O_DIRECT sequence is recorded exactly (loop: request events, zram: bio
# events, 30,000 I/Os), the spool is removed on success; a recorder killed
# by SIGKILL leaves a readable trace and a spool that --recover decodes in
# full; a recording that fails (no space) keeps and names its spool; usage
# errors.  Needs root and tracefs; skips (77) otherwise.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/record_lib.sh"
DIO="$top_builddir/tests/cli/dio_seq"
LOOP= ZRAM= SMALL=
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	if [ -n "$ZRAM" ]; then
		echo 1 >"/sys/block/zram$ZRAM/reset" 2>/dev/null
		echo "$ZRAM" >/sys/class/zram-control/hot_remove 2>/dev/null
	fi
	[ -n "$SMALL" ] && umount "$SMALL" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
truncate -s 32M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img") || skip "cannot set up a loop device"

# no_spool_left : nothing named *.spool-* in $TMP
no_spool_left() {
	set -- "$TMP"/*.spool-*
	[ ! -e "$1" ] || fail "spool left behind: $*"
}

# -- loop, CSV: the spool is OUT.spool-PID-0 while recording, gone after
REC_OPTS="--spool"
record_start "$TMP/loop.csv" "$LOOP"
[ -f "$TMP/loop.csv.spool-$RPID-0/meta" ] || fail "no spool beside the output"
[ -f "$TMP/loop.csv.spool-$RPID-0/cpu0" ] || fail "no CPU file in the spool"
pid=$("$DIO" "$LOOP" $SEQ) || fail "dio_seq failed"
record_stop
expect_eq "$RSTATUS" 0 "recorder exit status (--spool)"
check_seq "$TMP/loop.csv" "$pid" 0
expect_grep ' 0 overrun, 0 missed, 0 without completion, 0 evicted' "$TMP/rec.err"
expect_grep 'complete$' "$TMP/rec.err"
no_spool_left
[ ! -d "$TRACING/instances/iostorm-record-$RPID" ] || fail "tracefs instance left behind"

# -- IST, stopped by SIGTERM: the same, the process named
record_start "$TMP/loop.ist" "$LOOP"
pid=$("$DIO" "$LOOP" $SEQ) || fail "dio_seq failed"
kill -TERM $RPID
wait $RPID
expect_eq "$?" 0 "recorder exit status after SIGTERM (--spool)"
expect_status 0 "$IOSTORM" cat "$TMP/loop.ist"
cp "$TMP/out" "$TMP/loop-ist.csv"
check_seq "$TMP/loop-ist.csv" "$pid" 0
expect_status 0 "$IOSTORM" info "$TMP/loop.ist"
expect_grep "stream\.$pid = dio_seq" "$TMP/out"
expect_grep '^footer: +yes$' "$TMP/out"
no_spool_left

# -- killed: the trace holds what the decoder wrote (polled until the
# sequence's chunk is on disk, at most 30 s), the spool everything spliced:
# --recover decodes it into a complete trace; the spool stays.
record_start "$TMP/killed.ist" "$LOOP"
spool="$TMP/killed.ist.spool-$RPID-0"
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
[ -f "$spool/meta" ] || fail "the killed recorder's spool is gone"
expect_status 0 "$IOSTORM" record --recover "$spool" -o "$TMP/recovered.ist"
expect_grep "^iostorm: recovered [0-9]* I/Os from .*; complete\$" "$TMP/err"
expect_status 0 "$IOSTORM" cat "$TMP/recovered.ist"
cp "$TMP/out" "$TMP/recovered.csv"
check_seq "$TMP/recovered.csv" "$pid" 0
expect_status 0 "$IOSTORM" info "$TMP/recovered.ist"
expect_grep "stream\.$pid = dio_seq" "$TMP/out"
expect_grep "record\.recovered = spool" "$TMP/out"
expect_grep "dev\.${LOOP#/dev/}\.event = rq" "$TMP/out"
[ -f "$spool/meta" ] || fail "--recover removed the spool"
# As CSV too, the same records
expect_status 0 "$IOSTORM" record -q --recover "$spool" -o "$TMP/recovered2.csv"
check_seq "$TMP/recovered2.csv" "$pid" 0
# A slot the killed splicer had not finished: ignored, counted, lossy
cp -r "$spool" "$TMP/cut.spool"
printf 'xxxx' >>"$TMP/cut.spool/cpu0"
expect_status 3 "$IOSTORM" record --recover "$TMP/cut.spool" -o "$TMP/cut.ist"
expect_grep "4 bytes of an unfinished sub-buffer ignored; INCOMPLETE" "$TMP/err"
expect_status 0 "$IOSTORM" record -q --allow-loss --recover "$TMP/cut.spool" -o "$TMP/cut2.ist"
expect_status 0 "$IOSTORM" cat "$TMP/cut2.ist"
cp "$TMP/out" "$TMP/cut2.csv"
check_seq "$TMP/cut2.csv" "$pid" 0
# Zone commands as kernels since 2025 name them: the spool's writes (rwbs
# "WS" and its NUL, issue and completion) made zone resets ("ZR") are
# skipped with their
# completions and counted, not recorded and no loss; made zone appends
# ("ZAS") they are the writes they were.
for z in ZR ZAS; do
	cp -r "$spool" "$TMP/$z.spool"
	for f in "$TMP/$z.spool"/cpu*; do
		Z=$z perl -0777 -pi -e 'my $z = $ENV{Z}; $z .= "\0" x (4 - length $z); $n += s/WS\0\0/$z/g; END { print STDERR $n + 0, "\n" }' "$f" 2>>"$TMP/$z.n"
	done
	n=$(awk '{ s += $1 } END { print s }' "$TMP/$z.n")
	expect_eq "$n" 8 "WS fields patched to $z (4 issues, 4 completions)"
done
expect_status 0 "$IOSTORM" record --recover "$TMP/ZR.spool" -o "$TMP/zr.csv"
expect_grep "^iostorm: recovered 3 I/Os .* 0 without completion, .* 0 completions without issue, .*, 4 zone commands and 0 driver-private requests without data \(not recorded\); complete\$" "$TMP/err"
EXPECT_ALL="$EXPECT"
EXPECT=$(printf '%s\n' "$EXPECT_ALL" | grep '^read')
check_seq "$TMP/zr.csv" "$pid" 0
EXPECT="$EXPECT_ALL"
expect_status 0 "$IOSTORM" record --recover "$TMP/ZAS.spool" -o "$TMP/za.csv"
expect_grep "^iostorm: recovered 7 I/Os .*; complete\$" "$TMP/err"
if grep -q "zone commands" "$TMP/err"; then fail "zone appends counted as skipped"; fi
check_seq "$TMP/za.csv" "$pid" 0
rm -rf "$spool" "$TMP/cut.spool" "$TMP/ZR.spool" "$TMP/ZAS.spool"
# The next recorder removes the killed one's tracefs instance.
expect_status 0 "$IOSTORM" record -q --spool -d "$LOOP" --duration 100ms -o "$TMP/after.csv"
[ ! -d "$TRACING/instances/iostorm-record-$RPID" ] || fail "stale instance not removed"
no_spool_left

# -- through sudo: the spool belongs to the invoking user, as the output
SUDO_UID=65534 SUDO_GID=65534 "$IOSTORM" record --spool -d "$LOOP" -o "$TMP/sudo.ist" 2>"$TMP/rec.err" &
RPID=$!
i=0
until [ -f "$TMP/sudo.ist.spool-$RPID-0/meta" ] && [ "$(stat -c %u "$TMP/sudo.ist.spool-$RPID-0/meta")" = 65534 ]; do
	i=$((i + 1)); [ $i -lt 600 ] || { kill -INT $RPID; fail "the spool was not given to SUDO_UID"; }
	sleep 0.05
done
expect_eq "$(stat -c %u:%g "$TMP/sudo.ist.spool-$RPID-0")" 65534:65534 "owner of the spool"
expect_eq "$(stat -c %u:%g "$TMP/sudo.ist.spool-$RPID-0/cpu0")" 65534:65534 "owner of a spool file"
kill -INT $RPID
wait $RPID
expect_eq "$?" 0 "recorder exit status (sudo, --spool)"
expect_eq "$(stat -c %u:%g "$TMP/sudo.ist")" 65534:65534 "owner of the output"
no_spool_left

# -- --recover errors: one line each, exit 1, no output left
expect_status 1 "$IOSTORM" record --recover "$TMP/nonexistent" -o "$TMP/x.ist"
expect_err_line "not a spool"
mkdir "$TMP/bad.spool"
printf 'iostorm-spool 1\nsubbuf 16384\n' >"$TMP/bad.spool/meta"
expect_status 1 "$IOSTORM" record --recover "$TMP/bad.spool" -o "$TMP/x.ist"
expect_err_line "not a spool's meta file"
printf 'something else\n' >"$TMP/bad.spool/meta"
expect_status 1 "$IOSTORM" record --recover "$TMP/bad.spool" -o "$TMP/x.ist"
expect_err_line "not a spool's meta file \\(line 1\\)"
[ ! -e "$TMP/x.ist" ] || fail "output left behind after an error"

# -- usage errors
expect_status 2 "$IOSTORM" record --spool --from-pcap /dev/null -o "$TMP/x.ist"
expect_status 2 "$IOSTORM" record --spool --sched "$TMP/x.sched" -d "$LOOP" -o "$TMP/x.ist"
expect_status 2 "$IOSTORM" record --recover "$TMP/bad.spool" -d "$LOOP" -o "$TMP/x.ist"
expect_status 2 "$IOSTORM" record --recover "$TMP/bad.spool" --duration 1 -o "$TMP/x.ist"
expect_status 2 "$IOSTORM" record --recover "$TMP/bad.spool"

# -- zram: bio events, volume (30,000 I/Os), every one recorded
if [ -w /sys/class/zram-control/hot_add ] || modprobe zram 2>/dev/null; then
	ZRAM=$(cat /sys/class/zram-control/hot_add 2>/dev/null) || ZRAM=
fi
if [ -n "$ZRAM" ] && echo 64M >"/sys/block/zram$ZRAM/disksize"; then
	record_start "$TMP/vol.csv" "/dev/zram$ZRAM"
	dd if=/dev/zero of="/dev/zram$ZRAM" bs=4k count=15000 oflag=direct 2>/dev/null &
	pidw=$!
	wait $pidw || fail "dd write on zram failed"
	dd if="/dev/zram$ZRAM" of=/dev/null bs=4k count=15000 iflag=direct 2>/dev/null &
	pidr=$!
	wait $pidr || fail "dd read on zram failed"
	record_stop
	expect_eq "$RSTATUS" 0 "recorder exit status (volume, --spool)"
	expect_grep ' 0 overrun, 0 missed, 0 without completion, 0 evicted' "$TMP/rec.err"
	n=$(awk -F, -v p=$pidw 'NR > 1 && $7 == p && $3 == "write" && $5 == 4096' "$TMP/vol.csv" | wc -l)
	expect_eq "$n" 15000 "4 KiB writes recorded"
	n=$(awk -F, -v p=$pidr 'NR > 1 && $7 == p && $3 == "read" && $5 == 4096' "$TMP/vol.csv" | wc -l)
	expect_eq "$n" 15000 "4 KiB reads recorded"
	# offsets: the writes went 0, 4096, ... in order
	n=$(awk -F, -v p=$pidw 'NR > 1 && $7 == p && $3 == "write" { if ($4 != k * 4096) bad++; k++ } END { print bad + 0 }' "$TMP/vol.csv")
	expect_eq "$n" 0 "write offsets out of sequence"
	no_spool_left

	# -- no space for the spool: the recording fails, the spool is kept
	# and named, and what it holds decodes
	SMALL="$TMP/small"
	mkdir "$SMALL"
	if mount -t tmpfs -o size=1m none "$SMALL" 2>/dev/null; then
		REC_OPTS="--spool"
		record_start "$SMALL/full.ist" "/dev/zram$ZRAM"
		dd if=/dev/zero of="/dev/zram$ZRAM" bs=4k count=15000 oflag=direct 2>/dev/null
		i=0
		while kill -0 $RPID 2>/dev/null; do
			i=$((i + 1)); [ $i -lt 600 ] || { kill -INT $RPID; fail "the recorder did not fail on a full spool"; }
			dd if=/dev/zero of="/dev/zram$ZRAM" bs=4k count=1000 oflag=direct 2>/dev/null
			sleep 0.05
		done
		wait $RPID
		expect_eq "$?" 1 "exit status with no space for the spool"
		expect_grep "No space left on device" "$TMP/rec.err"
		expect_grep "spool kept: $SMALL/full.ist.spool-$RPID-0 \\(iostorm record --recover" "$TMP/rec.err"
		[ -f "$SMALL/full.ist.spool-$RPID-0/meta" ] || fail "the failed recording's spool is gone"
		"$IOSTORM" record --allow-loss --recover "$SMALL/full.ist.spool-$RPID-0" -o "$TMP/full.csv" 2>"$TMP/full.err"
		expect_eq "$?" 0 "--recover of the full spool"
		n=$(awk -F, 'NR > 1 && $3 == "write"' "$TMP/full.csv" | wc -l)
		[ "$n" -gt 1000 ] || fail "only $n writes recovered from the full spool"
		ok
		umount "$SMALL"
		SMALL=
	else
		skip_part "no tmpfs mount: a spool without space"
	fi
else
	skip_part "no zram device: the bio-based (zram) part"
fi
done_ok
