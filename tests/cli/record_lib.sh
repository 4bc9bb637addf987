# SPDX-License-Identifier: MIT
# record_lib.sh - sourced by the tracefs recorder tests after lib.sh:
# root, tracefs block events and losetup or skip (77); record_start and
# record_stop around a background `iostorm record`.
need_root
TRACING=/sys/kernel/tracing
[ -d "$TRACING/events/block" ] || mount -t tracefs nodev "$TRACING" 2>/dev/null
[ -d "$TRACING/events/block" ] || skip "no tracefs block events"
command -v losetup >/dev/null || skip "no losetup"

# record_ready PID : waits until the recorder PID traces: its events
# enabled (done while tracing is off) and then tracing on.  set_event is
# read first: a new instance starts with tracing on, so a "1" read before
# the recorder turned it off, then events found set, would pass before
# the start (before --spool's meta, with I/O not yet traced).
record_ready() {
	inst="$TRACING/instances/iostorm-record-$1"
	i=0
	while ! grep -q . "$inst/set_event" 2>/dev/null || [ "$(cat "$inst/tracing_on" 2>/dev/null)" != 1 ]; do
		i=$((i + 1))
		kill -0 "$1" 2>/dev/null || { cat "$TMP/rec.err" >&2; fail "recorder exited before starting"; }
		# generous: a sanitizer build starts slowly
		[ $i -lt 600 ] || { kill "$1"; cat "$TMP/rec.err" >&2; fail "recorder did not start"; }
		sleep 0.05
	done
}

# record_start OUT DEV... : starts the recorder in the background (pid in
# RPID, stderr in $TMP/rec.err, extra options in REC_OPTS) and waits until
# its tracefs instance traces.
record_start() {
	out=$1; shift
	args=""
	for d in "$@"; do args="$args -d $d"; done
	# shellcheck disable=SC2086
	"$IOSTORM" record $args -o "$out" ${REC_OPTS:-} 2>"$TMP/rec.err" &
	RPID=$!
	record_ready $RPID
}

# record_stop : SIGINT, then the recorder's exit status in RSTATUS
record_stop() {
	kill -INT $RPID
	wait $RPID
	RSTATUS=$?
}

# The known O_DIRECT sequence (tests/cli/dio_seq) of the live tests and
# its records; check_seq CSV PID DEVIDX : the records of PID on DEVIDX are
# EXPECT, each with its completion latency.
SEQ="w:0:4096 w:1048576:8192 r:0:4096 w:4096:65536 r:1048576:8192 r:65536:4096 w:20971520:4096"
EXPECT="write,0,4096
write,1048576,8192
read,0,4096
write,4096,65536
read,1048576,8192
read,65536,4096
write,20971520,4096"
check_seq() {
	awk -F, -v pid="$2" -v dev="$3" 'NR > 1 && $7 == pid && $2 == dev { print $3 "," $4 "," $5 }' "$1" >"$TMP/got"
	printf '%s\n' "$EXPECT" >"$TMP/want"
	cmp -s "$TMP/got" "$TMP/want" || { diff "$TMP/want" "$TMP/got" >&2; fail "recorded sequence differs ($1)"; }
	ok
	n=$(awk -F, -v pid="$2" 'NR > 1 && $7 == pid && $6 == 0' "$1" | wc -l)
	expect_eq "$n" 0 "records without latency"
}
