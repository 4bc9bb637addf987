#!/bin/sh
# SPDX-License-Identifier: MIT
# record_late.sh - `iostorm record`: a process that starts issuing I/O after
# the IST header was written is named in the footer metadata (IST 1.2);
# SIGTERM finishes the file cleanly; no tracefs is one clear error.
# Needs root and tracefs; skips (77) otherwise.
. "$top_srcdir/tests/cli/lib.sh"
. "$top_srcdir/tests/cli/record_lib.sh"
LOOP=
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
truncate -s 16M "$TMP/disk.img"
LOOP=$(losetup -f --show "$TMP/disk.img") || skip "cannot set up a loop device"
# Two names for the same I/O helper: comm tells the processes apart.
cp "$top_builddir/tests/cli/dio_seq" "$TMP/early_io"
cp "$top_builddir/tests/cli/dio_seq" "$TMP/late_io"
SEQ="w:0:4096 r:0:4096 w:8192:8192"

record_start "$TMP/late.ist" "$LOOP"
pid1=$("$TMP/early_io" "$LOOP" $SEQ) || fail "early_io failed"
# The recorder writes the header with its first chunk (after 1 s at most).
i=0
until [ -s "$TMP/late.ist" ]; do
	i=$((i + 1)); [ $i -lt 100 ] || { kill $RPID; fail "no chunk written"; }
	sleep 0.05
done
sleep 1.2
pid2=$("$TMP/late_io" "$LOOP" $SEQ) || fail "late_io failed"
kill -TERM $RPID
wait $RPID
expect_eq "$?" 0 "recorder exit status after SIGTERM"
expect_grep '; complete$' "$TMP/rec.err"

# SIGTERM: a complete file, with footer, every I/O of both processes.
expect_status 0 "$IOSTORM" info "$TMP/late.ist"
cp "$TMP/out" "$TMP/info"
expect_grep '^file: .*IST 1\.[2-9]\)$' "$TMP/info"
expect_grep '^footer: +yes$' "$TMP/info"
expect_grep '^records: +6 in ' "$TMP/info"
# The early process is in the header, the late one in the footer.
expect_grep "^  stream\.$pid1 = early_io\$" "$TMP/info"
expect_grep "^  stream\.$pid2 = late_io  \(footer\)\$" "$TMP/info"
expect_status 0 "$IOSTORM" info --json "$TMP/late.ist"
expect_grep "\"stream\\.$pid2\":\"late_io\"" "$TMP/out"
expect_status 0 "$IOSTORM" cat "$TMP/late.ist"
n=$(awk -F, -v p="$pid2" '$7 == p' "$TMP/out" | wc -l)
expect_eq "$n" 3 "records of the late process"
expect_status 0 "$IOSTORM" verify "$TMP/late.ist"

# -- through sudo: the IST output (written in place) belongs to the user
SUDO_UID=65534 SUDO_GID=65534 "$IOSTORM" record -q -d "$LOOP" --duration 300ms -o "$TMP/sudo.ist" ||
	fail "record as sudo failed"
expect_eq "$(stat -c %u:%g "$TMP/sudo.ist")" 65534:65534 "owner of the IST output"
expect_status 0 "$IOSTORM" info "$TMP/sudo.ist"

# -- no tracefs: in a private mount namespace, tracefs unmounted and
# /sys/kernel hidden so that it cannot be mounted again.
if unshare -m true 2>/dev/null; then
	unshare -m sh -c '
		for m in $(awk "\$3 == \"tracefs\" || \$3 == \"debugfs\" { print \$2 }" /proc/self/mounts | sort -r); do
			umount -l "$m" || exit 9
		done
		mount -t tmpfs none /sys/kernel || exit 9
		exec "$0" record -d "$1" -o "$2"' "$IOSTORM" "$LOOP" "$TMP/nt.ist" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ "$st" -ne 9 ]; then
		expect_eq "$st" 1 "exit status without tracefs"
		expect_err_line "tracefs is not mounted"
		[ ! -e "$TMP/nt.ist" ] || fail "output left behind without tracefs"
	else
		skip_part "tracefs could not be hidden in a mount namespace: record without tracefs"
	fi
else
	skip_part "no mount namespace (unshare -m): record without tracefs"
fi
done_ok
