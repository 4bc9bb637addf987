#!/bin/sh
# SPDX-License-Identifier: MIT
# sweep-zram.sh - sweep and precondition on a zram block device of our own
# (hot-added, 64 MiB, removed afterwards): the replay's safety rules
# (--allow-write, signature refusal unless --force), a grid, a curve and
# steady-state rounds on a real block device.
. "$top_srcdir/tests/cli/lib.sh"
need_uring # replays on files or devices
need_root
[ -w /sys/class/zram-control/hot_add ] || modprobe zram 2>/dev/null
[ -w /sys/class/zram-control/hot_add ] || skip "no zram (modprobe zram)"
id=$(cat /sys/class/zram-control/hot_add 2>/dev/null) || skip "cannot add a zram device"
DEV=/dev/zram$id
cleanup() {
	# udev may still be probing the device: retry for a few seconds
	command -v udevadm >/dev/null && udevadm settle 2>/dev/null
	n=0
	while [ -e /sys/block/zram$id ] && [ $n -lt 30 ]; do
		echo 1 >/sys/block/zram$id/reset 2>/dev/null
		echo "$id" >/sys/class/zram-control/hot_remove 2>/dev/null && break
		sleep 0.2
		n=$((n + 1))
	done
	[ -e /sys/block/zram$id ] && echo "WARNING: could not remove zram$id" >&2
	rm -rf "$TMP"
}
trap cleanup EXIT
echo 64M >/sys/block/zram$id/disksize || fail "cannot size $DEV"
i=0
while [ ! -b "$DEV" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -b "$DEV" ] || fail "$DEV did not appear"; ok
# udev probes a new device (holding it open exclusively for a moment)
command -v udevadm >/dev/null && udevadm settle 2>/dev/null
sleep 1

# reads need no permission
expect_status 0 "$IOSTORM" sweep --pattern 4k-randread --target "$DEV" --threads 1,2 --qd 1,8 \
	--rates 50,100 --point 100ms -o "$TMP/r.json"
expect_grep '"target": ?"/dev/zram' "$TMP/r.json"
expect_eq "$(grep -c '"pct"' "$TMP/r.json")" 2 "curve points"
# writes on a block device need --allow-write
expect_status 1 "$IOSTORM" sweep --pattern 4k-randwrite --target "$DEV" --threads 1 --qd 4 \
	--rates none --point 100ms -o "$TMP/w.json"
expect_err_line "allow-write"
[ ! -e "$TMP/w.json" ] || fail "output after a refusal"; ok
expect_status 0 "$IOSTORM" sweep --pattern 4k-randwrite --target "$DEV" --allow-write \
	--threads 1 --qd 4 --rates 50 --point 100ms -o "$TMP/w.json"

# precondition: refused without --allow-write, then fill + rounds
expect_status 1 "$IOSTORM" precondition "$DEV" --passes 1 --round 100ms --max-rounds 6 \
	--threads 1 --qd 8 -o "$TMP/p.json"
# (a source without totals: it said "the trace has 0 writes")
expect_err_line "^iostorm: $DEV: refused: the workload writes; writing to a block device needs --allow-write$"
"$IOSTORM" precondition "$DEV" --allow-write --passes 1 --round 100ms --max-rounds 7 \
	--threads 2 --qd 8 -o "$TMP/p.json" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 4 ] || { cat "$TMP/err" >&2; fail "precondition exit $rc"; }; ok
expect_grep '"bytes": ?67108864' "$TMP/p.json"
expect_grep '"round": ?5' "$TMP/p.json"
expect_status 0 "$IOSTORM" report "$TMP/r.json" "$TMP/p.json" -o "$TMP/z.html"

# a filesystem signature is refused even with --allow-write, unless --force
if command -v mkfs.ext4 >/dev/null; then
	mkfs.ext4 -q -F "$DEV" >/dev/null 2>&1 || fail "mkfs.ext4 $DEV"
	expect_status 1 "$IOSTORM" precondition "$DEV" --allow-write --passes 0 --round 50ms \
		--max-rounds 1 -o "$TMP/e.json"
	expect_err_line "ext4"
	expect_status 4 "$IOSTORM" precondition "$DEV" --allow-write --force --passes 0 \
		--round 50ms --max-rounds 1 --threads 1 --qd 4 -o "$TMP/e.json"
else
	skip_part "no mkfs.ext4: the filesystem signature refusal"
fi
done_ok
