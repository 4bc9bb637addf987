#!/bin/sh
# SPDX-License-Identifier: MIT
# pcap_live.sh - `iostorm record --pcap lo` while qemu-io talks to a
# qemu-nbd server on 127.0.0.1: the requests are recorded with latencies;
# an export that appears after the header was written is kept.
# Needs root, qemu-nbd and qemu-io; skips (77) otherwise.
. "$top_srcdir/tests/cli/lib.sh"
need_root
command -v qemu-nbd >/dev/null && command -v qemu-io >/dev/null || skip "no qemu-nbd/qemu-io"
truncate -s 8M "$TMP/exp.img"
# A port of its own: another suite running beside this one (or anything
# else) may hold a fixed one; qemu-nbd exits at once when it is taken.
PORT=$((20000 + $$ % 20000))
tries=0
while :; do
	qemu-nbd -f raw -x exp -b 127.0.0.1 -p $PORT -t "$TMP/exp.img" 2>"$TMP/nbd.err" &
	NBD=$!
	sleep 0.5
	kill -0 $NBD 2>/dev/null && break
	tries=$((tries + 1))
	[ $tries -lt 10 ] || { cat "$TMP/nbd.err" >&2; fail "qemu-nbd did not start"; }
	PORT=$((PORT + 7))
done
trap 'kill $NBD 2>/dev/null; rm -rf "$TMP"' EXIT
"$IOSTORM" record --pcap lo --nbd-port $PORT --duration 4 -o "$TMP/live.csv" 2>"$TMP/rec.err" &
REC=$!
sleep 1.5
qemu-io -f raw "nbd://127.0.0.1:$PORT/exp" -c 'write 65536 4k' -c 'read 65536 4k' \
	-c 'write -z 1M 64k' >/dev/null || fail "qemu-io failed"
wait $REC || { cat "$TMP/rec.err" >&2; fail "record --pcap failed"; }
ok
expect_grep '^[0-9]+,0,write,65536,4096,[1-9][0-9]*,1,0,' "$TMP/live.csv"
expect_grep '^[0-9]+,0,read,65536,4096,[1-9][0-9]*,1,0,' "$TMP/live.csv"
expect_grep '^[0-9]+,0,write_zeroes,1048576,65536,[1-9]' "$TMP/live.csv"
expect_grep '; complete$' "$TMP/rec.err"

# An export first seen after the header was written (with the first chunk,
# after a second) is kept: its device is in the footer metadata (IST 1.2).
qemu-nbd -f raw -x late -b 127.0.0.2 -p $PORT -t "$TMP/exp.img" &
NBD2=$!
trap 'kill $NBD $NBD2 2>/dev/null; rm -rf "$TMP"' EXIT
"$IOSTORM" record --pcap lo --nbd-port $PORT --duration 5 -o "$TMP/late.ist" 2>"$TMP/rec.err" &
REC=$!
sleep 1.5
qemu-io -f raw "nbd://127.0.0.1:$PORT/exp" -c 'write 4096 4k' >/dev/null || fail "qemu-io failed"
i=0
until [ -s "$TMP/late.ist" ]; do
	i=$((i + 1)); [ $i -lt 60 ] || fail "no chunk written"
	sleep 0.05
done
sleep 1.2
qemu-io -f raw "nbd://127.0.0.2:$PORT/late" -c 'read 8192 4k' -c 'write 12288 8k' >/dev/null ||
	fail "qemu-io on the second server failed"
wait $REC || { cat "$TMP/rec.err" >&2; fail "record --pcap with a late device failed"; }
ok
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
"$IOSTORM" record --pcap lo --nbd-port $PORT -o "$TMP/killed.ist" 2>"$TMP/rec.err" &
REC=$!
sleep 1.5
qemu-io -f raw "nbd://127.0.0.1:$PORT/exp" -c 'write 16384 4k' >/dev/null || fail "qemu-io failed"
i=0
# polled through the reader: the chunk is on disk before the kill
until "$IOSTORM" cat --no-header "$TMP/killed.ist" 2>/dev/null | grep -q ',write,16384,'; do
	i=$((i + 1)); [ $i -lt 60 ] || { kill $REC; fail "no chunk written"; }
	sleep 0.05
done
kill -KILL $REC
wait $REC 2>/dev/null
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
