#!/bin/sh
# SPDX-License-Identifier: MIT
# replay-flush-sync.sh - a replayed flush on a file target is an fdatasync
# (the data made durable, as a device's cache flush), not a full fsync that
# also writes the file's timestamps through its journal: through io_uring
# (--inline never) and inline (--inline always) alike.  Seen from the
# kernel: ext4's ext4_sync_file_enter tracepoint says datasync 1.  Root,
# a loop device, mkfs.ext4 and tracefs instances needed.
. "$top_srcdir/tests/cli/lib.sh"
need_root
need_uring
command -v losetup >/dev/null || skip "no losetup"
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
INST=/sys/kernel/tracing/instances
[ -w "$INST" ] || skip "no tracefs instances"

LOOP=""
MNT=""
T=""
cleanup() {
	if [ -n "$T" ]; then
		echo 0 >"$T/events/ext4/ext4_sync_file_enter/enable" 2>/dev/null
		rmdir "$T" 2>/dev/null
	fi
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
truncate -s 64M "$TMP/fs.img"
mkfs.ext4 -q -F "$TMP/fs.img" >/dev/null 2>&1 || skip "mkfs.ext4 failed"
LOOP=$(losetup -f --show "$TMP/fs.img" 2>/dev/null) || skip "no loop device"
mkdir "$TMP/mnt"
mount "$LOOP" "$TMP/mnt" 2>/dev/null || skip "cannot mount ext4 on $LOOP"
MNT="$TMP/mnt"
T="$INST/iostorm-flush-$$"
mkdir "$T" || skip "cannot make a tracefs instance"
[ -d "$T/events/ext4/ext4_sync_file_enter" ] || skip "no ext4_sync_file_enter event"
dd if=/dev/zero of="$MNT/t.img" bs=1M count=4 status=none || fail "dd"
INO=$(stat -c %i "$MNT/t.img")
# the filter names the file system's device too: other tests running at the
# same time make ext4 file systems of their own, whose files have the same
# inode numbers (the kernel's dev_t: major << 20 | minor)
set -- $(stat -c '%t %T' "$LOOP")
DEV=$(( (0x$1 << 20) | 0x$2 ))

# two writes, each followed by a flush
printf 't_ns,dev,op,offset,len,lat_ns,stream,txn,flags\n' >"$TMP/t.csv"
printf '0,0,write,0,4096,0,0,0,\n1000,0,flush,0,0,0,0,0,\n' >>"$TMP/t.csv"
printf '2000,0,write,8192,4096,0,0,0,\n3000,0,flush,0,0,0,0,0,\n' >>"$TMP/t.csv"
expect_status 0 "$IOSTORM" convert "$TMP/t.csv" "$TMP/t.ist"

for mode in never always; do
	echo "dev == $DEV && ino == $INO" >"$T/events/ext4/ext4_sync_file_enter/filter" ||
		fail "filter"
	echo >"$T/trace"
	echo 1 >"$T/events/ext4/ext4_sync_file_enter/enable"
	expect_status 0 "$IOSTORM" replay "$TMP/t.ist" --target "$MNT/t.img" \
		--buffered --inline $mode --quiet
	echo 0 >"$T/events/ext4/ext4_sync_file_enter/enable"
	grep ext4_sync_file_enter "$T/trace" >"$TMP/sync.$mode"
	n1=$(grep -c 'datasync 1' "$TMP/sync.$mode")
	n0=$(grep -c 'datasync 0' "$TMP/sync.$mode")
	[ "$n1" -eq 2 ] && [ "$n0" -eq 0 ] || {
		cat "$TMP/sync.$mode" >&2
		fail "--inline $mode: $n1 fdatasyncs and $n0 fsyncs of the target, expected 2 and 0"
	}
	ok
done
done_ok
