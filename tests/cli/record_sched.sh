#!/bin/sh
# SPDX-License-Identifier: MIT
# record_sched.sh - `iostorm record --sched FILE`: the streams' run-queue
# waits behind other threads go to a sidecar (header, STREAM START END
# lines of recorded streams, in the trace's time), named in the trace's
# metadata; with "c" (on a CPU) and "r" (runnable) lines of the same form;
# its tracefs instance is removed; bad --sched use is refused.
# --sched-comm: the sleeps a client's thread ended, with its CPU time.
# Where the kernel charges interrupts to the thread they interrupted (no
# CONFIG_IRQ_TIME_ACCOUNTING) and has the irq events, the header says
# "irq" and the summary how much interrupt time was taken out; the
# tracing's measured cost per context switch, when above 0, is "switch"
# and a "# switch-cost-ns N" comment.
# A CPU hog pinned with the I/O helper makes the helper wait behind it.
# Needs root and tracefs; skips (77) otherwise.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/record_lib.sh"
[ -d "$TRACING/events/sched/sched_switch" ] || skip "no sched_switch event"
LOOP= HOG=
cleanup() {
	[ -n "$HOG" ] && kill "$HOG" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
truncate -s 16M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img") || skip "cannot set up a loop device"
PIN=""
command -v taskset >/dev/null && PIN="taskset -c 0"
SEQ=""
for i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do SEQ="$SEQ w:$((i * 4096)):4096 r:$((i * 4096)):4096"; done

REC_OPTS="--sched $TMP/s.sched" record_start "$TMP/s.ist" "$LOOP"
$PIN sh -c 'while :; do :; done' &
HOG=$!
for k in 1 2 3 4 5; do
	$PIN "$top_builddir/tests/cli/dio_seq" "$LOOP" $SEQ >>"$TMP/pids" || fail "dio_seq failed"
done
kill "$HOG"; HOG=
record_stop
expect_eq "$RSTATUS" 0 "recorder exit status"
expect_grep '^iostorm: .*s\.sched: [0-9]+ run-queue waits(, [0-9]+ kernel threads? not followed)?(, tracing cost [0-9]+\.[0-9]{2} us a switch out)?(, [0-9]+\.[0-9]{3} s of interrupts out of the CPU time)? from [0-9]+ scheduler events, 0 overrun$' "$TMP/rec.err"
[ ! -d "$TRACING/instances/iostorm-sched-$RPID" ] || fail "sched instance left behind"
ok
expect_status 0 "$IOSTORM" info "$TMP/s.ist"
expect_grep "record\.sched = .*s\.sched" "$TMP/out"
# version 3 with the runtime the kernel charged ("c" lines' 4th field)
# where the kernel has sched_stat_runtime, else version 1
IRQ=""
if [ -d "$TRACING/events/irq/softirq_entry" ] && [ -d "$TRACING/events/irq/irq_handler_entry" ] &&
   ! { zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null; } |
	grep -qx 'CONFIG_IRQ_TIME_ACCOUNTING=y'; then
	IRQ=" irq"
fi
if [ -d "$TRACING/events/sched/sched_stat_runtime" ]; then
	RT=1
	head -n 1 "$TMP/s.sched" | grep -qxE "# iostorm-sched 3 runq cpu runtime$IRQ( switch)?" ||
		fail "no version 3 sidecar header"
	if head -n 1 "$TMP/s.sched" | grep -q ' switch$'; then
		expect_grep '^# switch-cost-ns [1-9][0-9]*: ' "$TMP/s.sched"
		expect_grep ', tracing cost [0-9]+\.[0-9]{2} us a switch out' "$TMP/rec.err"
	else
		! grep -q 'switch-cost' "$TMP/s.sched" || fail "switch cost without the header word"
	fi
	if [ -n "$IRQ" ]; then
		expect_grep ', [0-9]+\.[0-9]{3} s of interrupts out of the CPU time from' "$TMP/rec.err"
		expect_grep '^# less the interrupts it took \(irq\)$' "$TMP/s.sched"
	else
		! grep -q 'interrupts out' "$TMP/rec.err" || fail "interrupts out without irq"
	fi
else
	RT=0
	head -n 1 "$TMP/s.sched" | grep -qx '# iostorm-sched 1 runq cpu' || fail "no sidecar header"
fi
ok
# every line: a recorded stream, 0 <= start <= end within the recording
"$IOSTORM" export "$TMP/s.ist" --format csv -o "$TMP/s.csv" >/dev/null || fail "export"
awk -F, '/^[0-9]/ { print $7 }' "$TMP/s.csv" | sort -u >"$TMP/streams"
awk -v rt="$RT" 'FNR == NR { s[$1] = 1; next }
     /^#/ { next }
     $1 == "c" && rt { if (NF != 5 || $5 > $4 - $3) { print "bad runtime: " $0; bad = 1 }
		       run += $5; wall += $4 - $3; NF = 4 }
     $1 == "c" || $1 == "r" { k[$1]++; $1 = ""; $0 = $0 }
     NF != 3 || !($1 in s) || $2 > $3 || $3 > 60e9 { print "bad: " $0; bad = 1 }
     END { if (!k["c"] || !k["r"]) { print "no c or r lines"; bad = 1 } }
     END { if (rt && !(run > 0)) { print "no runtime charged"; bad = 1 } }
     END { if (rt) printf "runtime %.0f of %.0f ns on a CPU\n", run, wall }
     END { exit bad }' "$TMP/streams" "$TMP/s.sched" || fail "bad sidecar lines"
ok
n=$(grep -c '^[0-9]' "$TMP/s.sched")
echo "sidecar: $n waits of $(wc -l <"$TMP/streams") streams"
# the sidecar replays with its trace
expect_status 0 "$IOSTORM" replay "$TMP/s.ist" --null --virtual-time --timing closed \
	--think-sched "$TMP/s.sched" --quiet
expect_status 0 "$IOSTORM" replay "$TMP/s.ist" --null --virtual-time --timing closed \
	--think-sched "$TMP/s.sched" --cpus 1 --quiet

# --sched-comm: a client (a shell named iosclient, writing a pipe) wakes
# the stream (dd, writing each 4 KiB it reads to the device): "w" lines,
# version 2.  (A thread is known by its name at a context switch: a
# short-lived process that exits right after its exec may go unseen.  When
# dd is late under load the pipe already holds the next block and dd does
# not sleep: at least 5 of the 20 blocks must end a sleep, not all.)
cp "$(command -v sh)" "$TMP/iosclient" || fail "cannot copy sh"
# (A bigger buffer: the sidecar follows every context switch of the
# machine, and other tests of a parallel make check made 540,590 in this
# part's 1.5 s, 95,417 of them overrun with the default 16 MiB a CPU.)
REC_OPTS="--sched $TMP/c.sched --sched-comm iosclient --buffer-size 128M" record_start "$TMP/c.ist" "$LOOP"
"$TMP/iosclient" -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	printf "%4096s" ""; sleep 0.05; done' |
	dd of="$LOOP" bs=4096 iflag=fullblock oflag=direct conv=fsync 2>/dev/null || fail "dd failed"
record_stop
expect_eq "$RSTATUS" 0 "recorder exit status"
expect_grep '^iostorm: .*c\.sched: [0-9]+ run-queue waits, [0-9]+ sleeps ended by a client(, [0-9]+ kernel threads? not followed)?(, tracing cost [0-9]+\.[0-9]{2} us a switch out)?(, [0-9]+\.[0-9]{3} s of interrupts out of the CPU time)? from [0-9]+ scheduler events, 0 overrun$' "$TMP/rec.err"
if [ "$RT" = 1 ]; then
	head -n 1 "$TMP/c.sched" | grep -qxE "# iostorm-sched 3 runq cpu client runtime$IRQ( switch)?" ||
		fail "no version 3 header"
else
	head -n 1 "$TMP/c.sched" | grep -qx '# iostorm-sched 2 runq cpu client' ||
		fail "no version 2 header"
fi
expect_grep '^# clients: iosclient$' "$TMP/c.sched"
"$IOSTORM" export "$TMP/c.ist" --format csv -o "$TMP/c.csv" >/dev/null || fail "export"
awk -F, '/^[0-9]/ { print $7 }' "$TMP/c.csv" | sort -u >"$TMP/cstreams"
awk 'FNR == NR { s[$1] = 1; next }
     $1 != "w" { next }
     NF != 5 || !($2 in s) || $3 > $4 || $4 > 60e9 || $5 > 60e9 { print "bad: " $0; bad = 1 }
     { n++ }
     END { if (n < 5) { print n " w lines"; bad = 1 } exit bad }' "$TMP/cstreams" "$TMP/c.sched" ||
	fail "bad client lines"
ok
# kernel threads that issued I/O (the flush of conv=fsync) are not followed
"$IOSTORM" info "$TMP/c.ist" >"$TMP/c.info" || fail "info"
for k in $(sed -n 's/^ *stream\.\([0-9]*\) = \(kworker\|jbd2\|kblockd\).*/\1/p' "$TMP/c.info"); do
	! grep -qE "^([crw] )?$k " "$TMP/c.sched" || fail "kernel thread $k followed"
	grep -q "kernel thread" "$TMP/rec.err" || fail "kernel thread $k not counted"
done
expect_status 0 "$IOSTORM" replay "$TMP/c.ist" --null --virtual-time --timing closed \
	--think-sched "$TMP/c.sched" --cpus 1 --quiet

# refused
expect_status 2 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --sched-comm iosclient
expect_status 2 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --sched "$TMP/y" \
	--sched-comm 0123456789abcdef
expect_status 2 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --sched "$TMP/y" --sched-comm ""
expect_status 2 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --sched "$TMP/y" \
	--sched-comm a --sched-comm b --sched-comm c --sched-comm d --sched-comm e \
	--sched-comm f --sched-comm g --sched-comm h --sched-comm i
# an empty name as every command refuses one (empty_output_name.sh)
expect_status 1 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --sched ""
expect_err_line "^iostorm: '': an empty output file name$"
expect_status 2 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --sched "$TMP/x.ist"
expect_status 2 "$IOSTORM" record --from-pcap /dev/null -o "$TMP/x.ist" --sched "$TMP/y"
expect_status 2 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --sched
expect_status 1 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --sched "$TMP/no/dir/s.sched" -t 1
expect_err_line "no/dir/s.sched: No such file or directory"
# the output by another name (the sidecar and the trace wrote one file)
expect_status 2 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --sched "$TMP/./x.ist" -t 1
expect_grep "^iostorm record: --sched FILE must not be the output$" "$TMP/err"
# a block device as the sidecar: refused, not overwritten
expect_status 1 "$IOSTORM" record -d "$LOOP" -o "$TMP/x.ist" --sched "$LOOP" -t 1
expect_err_line "^iostorm: $LOOP: refused: a block device \(record writes a file; the device's data would be overwritten\)$"
# a recording that fails (its trace on a full filesystem) leaves no
# sidecar behind: it stayed, a valid header with part of the waits
mkdir "$TMP/full"
if mount -t tmpfs -o size=64k tmpfs "$TMP/full" 2>/dev/null; then
	dd if=/dev/zero of="$TMP/full/fill" bs=4k 2>/dev/null
	REC_OPTS="--sched $TMP/f.sched" record_start "$TMP/full/f.ist" "$LOOP"
	for k in 1 2 3; do
		"$top_builddir/tests/cli/dio_seq" "$LOOP" $SEQ >/dev/null || fail "dio_seq failed"
	done
	record_stop
	umount "$TMP/full"
	expect_eq "$RSTATUS" 1 "recorder exit status on a full filesystem"
	[ ! -e "$TMP/f.sched" ] || fail "sidecar left behind by a failed recording"
	ok
else
	skip_part "no tmpfs mount: a recording on a full filesystem"
fi
done_ok
