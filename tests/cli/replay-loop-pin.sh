#!/bin/sh
# SPDX-License-Identifier: MIT
# replay-loop-pin.sh - a closed-loop replay on a loop device does not pin
# its worker to a CPU of its own (the loop device's kernel worker does
# each I/O; see plan_cpus), and says so; an open-loop replay on it still
# pins.  Root and a loop device needed.
. "$top_srcdir/tests/cli/lib.sh"
need_root
need_uring
command -v losetup >/dev/null || skip "no losetup"
[ "$(nproc)" -ge 2 ] || skip "one CPU: nothing is pinned"

LOOP=""
MNT=""
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
truncate -s 64M "$TMP/c.img"
LOOP=$(losetup -f --show "$TMP/c.img" 2>/dev/null) || skip "no loop device"
[ -b "$LOOP" ] || skip "no loop device"

expect_status 0 "$IOSTORM" synth sysbench-oltp --duration 200ms -o "$TMP/oltp.ist"
R="--target $LOOP --allow-write --force --remap wrap --interval 0 --quiet"
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" $R --timing closed --json "$TMP/c.json"
expect_grep "workers not pinned: $LOOP: a kernel thread does its I/O" "$TMP/c.json"
grep -q '"cpu_pinning"' "$TMP/c.json" && fail "closed replay on $LOOP pinned its worker"
# the settings say the option and what was done (pin_cpus said true)
expect_grep '"pin": "auto"' "$TMP/c.json"
expect_grep '"pin_cpus": false' "$TMP/c.json"
ok
# --no-pin: no note needed
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" $R --timing closed --no-pin --json "$TMP/n.json"
grep -q "workers not pinned" "$TMP/n.json" && fail "a note with --no-pin"
expect_grep '"pin": "off"' "$TMP/n.json"
expect_grep '"pin_cpus": false' "$TMP/n.json"
ok
# --pin: pinned all the same, no note (there was no way to ask for it)
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" $R --timing closed --pin --json "$TMP/p.json"
expect_grep '"cpu_pinning"' "$TMP/p.json"
expect_grep '"pin": "on"' "$TMP/p.json"
expect_grep '"pin_cpus": true' "$TMP/p.json"
grep -q "workers not pinned" "$TMP/p.json" && fail "a note with --pin"
ok
# open loop: pinned as before
expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" $R --timing afap --json "$TMP/o.json"
expect_grep '"cpu_pinning"' "$TMP/o.json"
# a file on a filesystem on the loop device: the same thread does its
# I/O (it was pinned: only a block device's own name was looked at)
command -v mkfs.ext4 >/dev/null || skip_part "no mkfs.ext4: a file on a loop device not tried"
if command -v mkfs.ext4 >/dev/null; then
	mkfs.ext4 -q -F "$LOOP" >/dev/null 2>&1 || fail "mkfs.ext4 $LOOP"
	mkdir "$TMP/mnt"
	mount "$LOOP" "$TMP/mnt" || fail "mount $LOOP"
	MNT=$TMP/mnt
	R="--target $MNT/f.img --create --size 16M --remap wrap --interval 0 --quiet"
	expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" $R --timing closed --json "$TMP/f.json"
	expect_grep "workers not pinned: $MNT/f.img: a kernel thread does its I/O" "$TMP/f.json"
	grep -q '"cpu_pinning"' "$TMP/f.json" && fail "closed replay on a file on $LOOP pinned its worker"
	# a file elsewhere (the test's directory: not on a loop device here)
	R="--target $TMP/g.img --create --size 16M --remap wrap --interval 0 --quiet"
	if ! df --output=source "$TMP" | grep -q /dev/loop; then
		expect_status 0 "$IOSTORM" replay "$TMP/oltp.ist" $R --timing closed --json "$TMP/g.json"
		grep -q "workers not pinned" "$TMP/g.json" && fail "a file not on a loop device unpinned"
	fi
	umount "$MNT" && MNT=""
	ok
fi
done_ok
