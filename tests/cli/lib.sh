# SPDX-License-Identifier: MIT
# lib.sh - helpers for the shell tests of the iostorm binary.
# Sourced by tests/cli/*.sh; they run under automake's test driver with
# IOSTORM, top_srcdir, top_builddir and SHARED_DIR in the environment.
set -u
: "${IOSTORM:?IOSTORM not set (run through make check)}"
: "${top_srcdir:?}"
DATA="$top_srcdir/tests/data"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/iostorm-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# A test killed by a signal (make check interrupted, a timeout) runs its
# EXIT trap too, so that its cleanup (a test's own `trap cleanup EXIT`:
# loop and zram devices, mounts, processes) is not skipped: the shell
# leaves no EXIT trap behind on a signal it does not trap.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
nchecks=0
skipped=""

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
ok() { nchecks=$((nchecks + 1)); }
# skip_part REASON : a part of the test cannot run here (a device, a tool
# or a permission is missing); the rest goes on, and done_ok ends the test
# as SKIP (77) naming what did not run, never as a pass that left it out
skip_part() {
	echo "SKIP (part): $*" >&2
	skipped="$skipped${skipped:+; }$*"
}

need_shared() {
	[ -d "$SHARED_DIR/realdata" ] || skip "no shared realdata at $SHARED_DIR"
}
need_root() { [ "$(id -u)" -eq 0 ] || skip "needs root"; }
# need_uring : replay on a file or a device needs io_uring (a kernel
# without it, io_uring_disabled, a seccomp filter: SKIP, not a failure)
need_uring() {
	probe="$top_builddir/tests/cli/uring_probe"
	[ -x "$probe" ] || fail "no $probe (built by make check)"
	"$probe" >"$TMP/uring" 2>&1
	case $? in
	0) ;;
	77) skip "no io_uring here: $(cat "$TMP/uring")" ;;
	*) cat "$TMP/uring" >&2; fail "$probe failed" ;;
	esac
}

# expect_status N CMD... : runs CMD, saves stdout/stderr in $TMP/out, $TMP/err
expect_status() {
	want=$1; shift
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "--- stderr:" >&2; cat "$TMP/err" >&2
		fail "'$*' exited $got, expected $want"
	fi
	ok
}

# expect_err_line REGEX : stderr is exactly one line and matches REGEX
expect_err_line() {
	n=$(wc -l <"$TMP/err")
	[ "$n" -eq 1 ] || { cat "$TMP/err" >&2; fail "expected one error line, got $n"; }
	grep -Eq -- "$1" "$TMP/err" || { cat "$TMP/err" >&2; fail "error line does not match /$1/"; }
	ok
}

# expect_grep REGEX FILE
expect_grep() {
	grep -Eq -- "$1" "$2" || { echo "--- $2:" >&2; head -50 "$2" >&2; fail "/$1/ not found in $2"; }
	ok
}

# expect_eq GOT WANT WHAT
expect_eq() {
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
	ok
}

# export_records IN.ist OUT.csv : export -f csv, then OUT.csv keeps the
# header row and the records only, OUT.csv.full all of it: export writes
# the trace's metadata and device table first ('# meta:' and '# device:'
# lines, as convert does), which the tests counting and comparing records
# leave out (lines start with '#' in that preamble only: a record starts
# with its time)
export_records() {
	expect_status 0 "$IOSTORM" export -q -f csv "$1" -o "$2.full"
	grep -q '^t_ns,' "$2.full" || fail "export -f csv $1: no header row"
	sed '/^#/d' "$2.full" >"$2" || fail "$2: cannot write"
}

# wait_running PID : waits (up to 20 s) until the replay PID runs its
# workers (a second thread), so that its signal handlers are in place: a
# fixed sleep lost the race on a loaded machine
wait_running() {
	i=0
	while [ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -lt 2 ]; do
		kill -0 "$1" 2>/dev/null || fail "process $1 ended before it ran"
		i=$((i + 1))
		[ "$i" -lt 400 ] || fail "process $1: no worker after 20 s"
		sleep 0.05
	done
}

# done_ok : at the end of every test; fails a test that checked nothing,
# and ends one that left a part out (skip_part) as SKIP
done_ok() {
	[ "$nchecks" -gt 0 ] || fail "test made no check"
	if [ -n "$skipped" ]; then
		echo "$nchecks checks passed; not run here: $skipped"
		exit 77
	fi
	echo "$nchecks checks passed"
	exit 0
}
