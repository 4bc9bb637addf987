#!/bin/sh
# SPDX-License-Identifier: MIT
# clock_xcpu.sh - bench/clock_xcpu: a side that cannot run (a CPU that
# does not exist) ends the program with exit 1 and its message, its
# tracefs instance removed, where the other side spun for ever waiting for
# the token; on two CPUs, a short run reads every mark.  Needs root and
# tracefs; skips (77) otherwise.
. "$top_srcdir/tests/cli/lib.sh"
CX="$top_builddir/bench/clock_xcpu"
INST=/sys/kernel/tracing/instances
[ -x "$CX" ] || fail "no $CX (built by make check)"
need_root
[ -w "$INST" ] || skip "no tracefs instances"
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	[ -n "$pid" ] && rmdir "$INST/clock-xcpu-$pid" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# run_cx ARGS... : clock_xcpu ARGS, at most 30 s; its status in $st, its
# pid in $pid (its instance is clock-xcpu-PID)
run_cx() {
	"$CX" "$@" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	i=0
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1))
		[ "$i" -lt 300 ] || fail "clock_xcpu $*: still running after 30 s"
		sleep 0.1
	done
	wait "$pid"
	st=$?
}

for cpus in "0 100000" "100000 0"; do
	# shellcheck disable=SC2086
	run_cx mono 100 $cpus
	expect_eq "$st" 1 "clock_xcpu mono 100 $cpus: exit status"
	expect_grep "^clock_xcpu: a thread failed \(CPUs $(echo "$cpus" | sed 's/ / and /')\?\)$" "$TMP/err"
	[ ! -e "$INST/clock-xcpu-$pid" ] || fail "clock_xcpu mono 100 $cpus left its instance"
	ok
	pid=
done
if [ "$(nproc)" -ge 2 ]; then
	run_cx mono 200 0 1
	# 3: marks out of causal order (mono's fast read may step back a
	# little across CPUs at a timekeeping update): not this test's concern
	[ "$st" = 0 ] || [ "$st" = 3 ] || { cat "$TMP/err" >&2; fail "clock_xcpu mono 200 0 1 exited $st"; }
	expect_grep "^clock mono: 200 of 200 marks read" "$TMP/out"
	[ ! -e "$INST/clock-xcpu-$pid" ] || fail "clock_xcpu mono 200 0 1 left its instance"
	pid=
else
	skip_part "one CPU: the two-CPU run"
fi
done_ok
