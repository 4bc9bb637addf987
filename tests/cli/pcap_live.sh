#!/bin/sh
# SPDX-License-Identifier: MIT
# pcap_live.sh - `iostorm record --pcap lo` while qemu-io talks to a
# qemu-nbd server on 127.0.0.1: the requests are recorded with latencies;
# an export that appears after the header was written is kept; a killed
# recording keeps its chunks.
# Needs root, qemu-nbd and qemu-io; skips (77) otherwise.
. "$top_srcdir/tests/cli/lib.sh"
need_root
command -v qemu-nbd >/dev/null && command -v qemu-io >/dev/null || skip "no qemu-nbd/qemu-io"
truncate -s 8M "$TMP/exp.img"
# Under load (a 2-core machine, or make -j) the fixed waits were races: the
# first I/O 1.5 s after the recorder's start may come before its capture
# (it is lost), qemu-io 0.5 s after qemu-nbd's start before it listens,
# and the I/O of a slow qemu-io after --duration ended the recording (the
# late device's 3 I/Os lost: "2 I/Os").  Each step now waits for what it
# needs: qemu-nbd --fork returns once it listens, the recorder's packet
# socket carries its port filter (ss), the last request's record is
# written before the recorder is stopped (SIGTERM: a clean stop, no
# --duration), and the polls are bounded by counts, not by a deadline a
# stopped or starved process misses.
NBDS=""
REC=""
trap 'kill $NBDS $REC 2>/dev/null; rm -rf "$TMP"' EXIT
# start_nbd EXPORT ADDR : a qemu-nbd serving exp.img as EXPORT on ADDR:PORT,
# listening when it returns (--fork: the parent exits then)
start_nbd() {
	rm -f "$TMP/nbd.pid"
	qemu-nbd --fork --pid-file "$TMP/nbd.pid" -f raw -x "$1" -b "$2" -p $PORT -t \
		"$TMP/exp.img" 2>"$TMP/nbd.err" || return 1
	NBDS="$NBDS $(cat "$TMP/nbd.pid")"
}
# poll DESC CMD... : CMD succeeds within 2400 tries 50 ms apart (a failure
# after 2 minutes unstopped; a recorder that exited fails at once)
poll() {
	what=$1
	shift
	n=0
	until "$@"; do
		[ -z "$REC" ] || kill -0 $REC 2>/dev/null ||
			{ cat "$TMP/rec.err" >&2; fail "$what: the recorder exited"; }
		n=$((n + 1))
		[ $n -lt 2400 ] || fail "$what: not after 2400 tries"
		sleep 0.05
	done
}
# capturing : the recorder's packet socket has its filter for PORT (libpcap
# sets it after binding the socket, and drops what came before)
capturing() {
	ss -0 -b -p 2>/dev/null | awk -v p="pid=$REC," -v port=" $PORT," \
		'f && /bpf filter/ && index($0, port) { ok = 1 } { f = index($0, p) > 0 } END { exit !ok }'
}
if ss -0 -b >/dev/null 2>&1; then
	wait_capture() { poll "capture on lo" capturing; }
else
	# no packet sockets in ss here: the fixed wait, as before
	wait_capture() { sleep 1.5; }
fi
# start_rec OUT : record --pcap lo on PORT into OUT until stop_rec
start_rec() {
	"$IOSTORM" record --pcap lo --nbd-port $PORT -o "$1" 2>"$TMP/rec.err" &
	REC=$!
	wait_capture
}
# stop_rec : SIGTERM (a clean stop: footer, summary), the status 0
stop_rec() {
	kill -TERM $REC
	wait $REC || { cat "$TMP/rec.err" >&2; fail "record --pcap failed"; }
	REC=""
	ok
}
# A port of its own: another suite running beside this one (or anything
# else) may hold a fixed one; qemu-nbd exits at once when it is taken.
PORT=$((20000 + $$ % 20000))
tries=0
until start_nbd exp 127.0.0.1; do
	tries=$((tries + 1))
	[ $tries -lt 10 ] || { cat "$TMP/nbd.err" >&2; fail "qemu-nbd did not start"; }
	PORT=$((PORT + 7))
done
start_rec "$TMP/live.csv"
qemu-io -f raw "nbd://127.0.0.1:$PORT/exp" -c 'write 65536 4k' -c 'read 65536 4k' \
	-c 'write -z 1M 64k' >/dev/null || fail "qemu-io failed"
# qemu-io's last request, the flush after its writes, is recorded (the CSV
# is flushed every second): every packet before it was taken
poll "the flush in live.csv" grep -qs '^[0-9]*,0,flush,' "$TMP/live.csv"
stop_rec
expect_grep '^[0-9]+,0,write,65536,4096,[1-9][0-9]*,1,0,' "$TMP/live.csv"
expect_grep '^[0-9]+,0,read,65536,4096,[1-9][0-9]*,1,0,' "$TMP/live.csv"
expect_grep '^[0-9]+,0,write_zeroes,1048576,65536,[1-9]' "$TMP/live.csv"
expect_grep '; complete$' "$TMP/rec.err"

# An export first seen after the header was written (with the first chunk,
# after a second) is kept: its device is in the footer metadata (IST 1.2).
start_nbd late 127.0.0.2 || { cat "$TMP/nbd.err" >&2; fail "the second qemu-nbd did not start"; }
start_rec "$TMP/late.ist"
qemu-io -f raw "nbd://127.0.0.1:$PORT/exp" -c 'write 4096 4k' >/dev/null || fail "qemu-io failed"
poll "the first chunk of late.ist" test -s "$TMP/late.ist"
sleep 1.2
qemu-io -f raw "nbd://127.0.0.2:$PORT/late" -c 'read 8192 4k' -c 'write 12288 8k' >/dev/null ||
	fail "qemu-io on the second server failed"
late_flushed() {
	"$IOSTORM" cat --no-header "$TMP/late.ist" 2>/dev/null | grep -q '^[0-9]*,1,flush,'
}
poll "the late device's flush in late.ist" late_flushed
stop_rec
# qemu-io flushes after its writes: 2 writes, 1 read, 2 flushes
expect_grep '^iostorm: 5 I/Os .*; complete$' "$TMP/rec.err"
expect_status 0 "$IOSTORM" info "$TMP/late.ist"
cp "$TMP/out" "$TMP/info"
expect_grep "^  0: nbd:127\\.0\\.0\\.1:$PORT/exp  size 8\\.0 MiB .*B\$" "$TMP/info"
expect_grep "^  1: nbd:127\\.0\\.0\\.2:$PORT/late  size 8\\.0 MiB .*  \\(footer\\)\$" "$TMP/info"
expect_status 0 "$IOSTORM" cat --no-header "$TMP/late.ist"
expect_grep '^[0-9]+,0,write,4096,4096,[1-9]' "$TMP/out"
expect_grep '^[0-9]+,1,read,8192,4096,[1-9]' "$TMP/out"
expect_grep '^[0-9]+,1,write,12288,8192,[1-9]' "$TMP/out"

# Killed: the chunks written every second stay readable.
start_rec "$TMP/killed.ist"
qemu-io -f raw "nbd://127.0.0.1:$PORT/exp" -c 'write 16384 4k' >/dev/null || fail "qemu-io failed"
# polled through the reader: the chunk is on disk before the kill
killed_written() {
	"$IOSTORM" cat --no-header "$TMP/killed.ist" 2>/dev/null | grep -q ',write,16384,'
}
poll "the chunk of killed.ist" killed_written
kill -KILL $REC
wait $REC 2>/dev/null
REC=""
expect_status 0 "$IOSTORM" cat --no-header "$TMP/killed.ist"
expect_grep '^[0-9]+,0,write,16384,4096,[1-9]' "$TMP/out"

# Errors: not root, no such interface
if command -v setpriv >/dev/null; then
	expect_status 1 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$IOSTORM" record --pcap lo --duration 1 -o "$TMP/np.ist"
	expect_err_line "^iostorm: lo: cannot capture: .*needs root or CAP_NET_RAW"
	[ ! -e "$TMP/np.ist" ] || fail "output left behind without permission"
else
	skip_part "no setpriv: capture without root"
fi
expect_status 1 "$IOSTORM" record --pcap no-such-if0 --duration 1 -o "$TMP/x.csv"
expect_err_line "no-such-if0"
done_ok
