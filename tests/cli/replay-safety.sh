#!/bin/sh
# SPDX-License-Identifier: MIT
# replay-safety.sh - iostorm replay on block devices (loop, zram; root):
# --allow-write, filesystem signatures, mounted devices, the device's end.
. "$top_srcdir/tests/cli/lib.sh"
need_uring # replays on files or devices
need_root
command -v losetup >/dev/null || skip "no losetup"
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"

LOOPS=""
MNT=""
ZRAM=""
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	for l in $LOOPS; do losetup -d "$l" 2>/dev/null; done
	if [ -n "$ZRAM" ]; then
		echo 1 >"/sys/block/zram$ZRAM/reset" 2>/dev/null
		echo "$ZRAM" >/sys/class/zram-control/hot_remove 2>/dev/null
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT

# newloop VAR FILE SIZE : attaches a loop device (no subshell: LOOPS kept)
newloop() {
	[ -f "$TMP/$2" ] || truncate -s "$3" "$TMP/$2"
	losetup -f "$TMP/$2" || skip "no loop device"
	l=$(losetup -j "$TMP/$2" | cut -d: -f1 | head -1)
	[ -b "$l" ] || skip "no loop device"
	LOOPS="$LOOPS $l"
	eval "$1=$l"
}

HDR="t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"
awk -v hdr="$HDR" 'BEGIN { print hdr; for (i = 0; i < 64; i++)
	printf "%d,0,%s,%d,4096,0,0,0,\n", i * 10000, i % 2 ? "read" : "write", i * 4096 }' >"$TMP/rw.csv"
awk -v hdr="$HDR" 'BEGIN { print hdr; for (i = 0; i < 64; i++)
	printf "%d,0,read,%d,4096,0,0,0,\n", i * 10000, i * 4096 }' >"$TMP/ro.csv"

# 1. writes to a block device need --allow-write.
newloop L1 blank.img 8M
expect_status 1 "$IOSTORM" replay "$TMP/rw.csv" --target "$L1"
expect_err_line "$L1: refused: the trace has 32 writes; writing to a block device needs --allow-write"
expect_status 0 "$IOSTORM" replay "$TMP/rw.csv" --target "$L1" --allow-write --data stamp \
	--json "$TMP/l1.json"
expect_grep '"kind": "block"' "$TMP/l1.json"
expect_grep '"ios": 64,' "$TMP/l1.json"
# write i*4096 (i even) carries seq i at offset i*4096 on the device
n=$(od -A d -t x1 -v -w4096 "$L1" | awk '$2 == "49" && $3 == "53" && $4 == "54" && $5 == "31" { c++ } END { print c + 0 }')
expect_eq "$n" 32 "stamped blocks on the device"
# reads need no permission
expect_status 0 "$IOSTORM" replay "$TMP/ro.csv" --target "$L1"

# 2. the end of the device: strict refuses, wrap stays inside.
awk -v hdr="$HDR" 'BEGIN { print hdr; for (i = 0; i < 16; i++)
	printf "%d,0,read,%d,4096,0,0,0,\n", i * 10000, 8388608 - 8192 + i * 4096 }' >"$TMP/end.csv"
expect_status 1 "$IOSTORM" replay "$TMP/end.csv" --target "$L1"
expect_err_line "$L1: refused: trace device 0 .* beyond the target's 8388608 bytes"
# --create makes and grows files, not devices: not suggested for one (and
# given, it changes nothing)
expect_eq "$(cat "$TMP/err")" "iostorm: $L1: refused: trace device 0 (dev0) reaches byte 8445952, beyond the target's 8388608 bytes; use --remap wrap|scale or a larger target" \
	"strict refusal on a block device"
expect_status 1 "$IOSTORM" replay "$TMP/end.csv" --target "$L1" --create
expect_eq "$(cat "$TMP/err")" "iostorm: $L1: refused: trace device 0 (dev0) reaches byte 8445952, beyond the target's 8388608 bytes; use --remap wrap|scale or a larger target" \
	"strict refusal on a block device with --create"
# a file target: --create is the way
truncate -s 8M "$TMP/small.img"
expect_status 1 "$IOSTORM" replay "$TMP/end.csv" --target "$TMP/small.img"
expect_eq "$(cat "$TMP/err")" "iostorm: $TMP/small.img: refused: trace device 0 (dev0) reaches byte 8445952, beyond the target's 8388608 bytes; use --remap wrap|scale or a larger target (--create makes it)" \
	"strict refusal on a file"
expect_status 0 "$IOSTORM" replay "$TMP/end.csv" --target "$TMP/small.img" --create --quiet
expect_status 0 "$IOSTORM" replay "$TMP/end.csv" --target "$L1" --remap wrap --json "$TMP/end.json"
expect_grep '"ios": 16,' "$TMP/end.json"
expect_grep '"errors": 0,' "$TMP/end.json"

# 3. a filesystem signature is refused even with --allow-write.
truncate -s 16M "$TMP/fs.img"
mkfs.ext4 -q -F "$TMP/fs.img" >/dev/null 2>&1 || skip "mkfs.ext4 failed"
newloop L2 fs.img 16M
expect_status 1 "$IOSTORM" replay "$TMP/rw.csv" --target "$L2" --allow-write
expect_err_line "$L2: refused: device carries a ext4 signature; --force to overwrite it"
expect_status 0 "$IOSTORM" replay "$TMP/ro.csv" --target "$L2"
expect_status 0 "$IOSTORM" replay "$TMP/rw.csv" --target "$L2" --read-only
expect_status 0 "$IOSTORM" replay "$TMP/rw.csv" --target "$L2" --allow-write --force

# 4. a mounted device is refused (O_EXCL), even for reads.
mkfs.ext4 -q -F "$L2" >/dev/null 2>&1
MNT="$TMP/mnt"
mkdir "$MNT"
if mount "$L2" "$MNT" 2>/dev/null; then
	expect_status 1 "$IOSTORM" replay "$TMP/ro.csv" --target "$L2"
	expect_err_line "$L2: refused: device is in use"
	umount "$MNT"
else
	skip_part "cannot mount an ext4 loop device: the mounted-device refusal"
fi
MNT=""

# 5. zram (bio-based, no request queue): a scratch device of 32 MiB.
[ -w /sys/class/zram-control/hot_add ] || modprobe zram 2>/dev/null
if [ -w /sys/class/zram-control/hot_add ] && ZRAM=$(cat /sys/class/zram-control/hot_add 2>/dev/null); then
	echo 32M >"/sys/block/zram$ZRAM/disksize" || fail "cannot size zram$ZRAM"
	expect_status 0 "$IOSTORM" replay "$TMP/rw.csv" --target "/dev/zram$ZRAM" --allow-write \
		--timing afap --json "$TMP/z.json"
	expect_grep '"ios": 64,' "$TMP/z.json"
	expect_grep '"logical_block_size": 4096' "$TMP/z.json"
	# a RAM device without REQ_NOWAIT: the worker issues inline by default
	expect_grep '"inline_io"' "$TMP/z.json"
	expect_grep 'issued inline by the worker' "$TMP/z.json"
	# ... but only I/Os due on time: afap goes through io_uring
	expect_grep '"inline_ios": 0,' "$TMP/z.json"
	# original timing, 1 ms apart: the worker waits for each deadline
	awk -F, 'NR == 1 { print; next } { $1 = (NR - 2) * 1000000; print }' OFS=, \
		"$TMP/rw.csv" >"$TMP/rw1ms.csv"
	expect_status 0 "$IOSTORM" replay "$TMP/rw1ms.csv" --target "/dev/zram$ZRAM" --allow-write \
		--json "$TMP/zo.json"
	expect_grep '"ios": 64,' "$TMP/zo.json"
	n=$(sed -n 's/.*"inline_ios": \([0-9]*\),.*/\1/p' "$TMP/zo.json")
	[ "${n:-0}" -ge 1 ] && [ "$n" -le 64 ] || fail "original timing on zram: $n I/Os inline"
	ok
	expect_status 0 "$IOSTORM" replay "$TMP/rw.csv" --target "/dev/zram$ZRAM" --allow-write \
		--timing afap --inline never --json "$TMP/zn.json"
	expect_grep '"ios": 64,' "$TMP/zn.json"
	if grep -q '"inline_io"' "$TMP/zn.json"; then fail "--inline never still inline"; fi; ok
else
	skip_part "no zram device: replay on a bio-based device"
fi
done_ok
