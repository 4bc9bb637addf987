#!/bin/bash
# SPDX-License-Identifier: MIT
# closed-engine.sh TRACE [ROUNDS] - what the replay engine loses in a
# closed loop on a real target (bench/README.md, "Closed loop", "What the
# replay engine loses on a real target").  As root: mounts a tmpfs, puts
# a loop device on a file in it (C), and in each round replays TRACE
# closed-loop on C with $BIN_A and then $BIN_B (alternated; default: main's
# binary and this tree's); for each run of a binary with --lat-log, the
# null back-end in virtual time on that run's own latencies (the model's
# prediction for the run).  Prints one line per run: the streams' TPS, the
# model's, the gap, the cycle p99s, the write and flush latency medians,
# the mean lateness, and the machine's steal and idle share during the run.
# Detaches and unmounts on exit.  Run it inside /var/tmp/fx/quiet-run.
#   OPTS: replay options (default: --serial-commits --txn-latency cycle
#   --to 7s); A_OPTS, B_OPTS: added to A's and B's runs.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
TRACE=${1:?usage: closed-engine.sh TRACE [ROUNDS]}
ROUNDS=${2:-3}
BIN_A=${BIN_A:-/work/main/iostorm}
BIN_B=${BIN_B:-$here/../iostorm}
OPTS=${OPTS:---serial-commits --txn-latency cycle --to 7s}
[ "$(id -u)" -eq 0 ] || { echo "needs root (tmpfs, loop device)" >&2; exit 77; }
command -v python3 >/dev/null || { echo "python3 missing" >&2; exit 77; }
W=$(mktemp -d /var/tmp/closed-engine.XXXXXX)
LOOP=""
cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	mountpoint -q "$W/mnt" && umount "$W/mnt"
	rm -rf "$W"
}
trap cleanup EXIT INT TERM
mkdir "$W/mnt"
mount -t tmpfs -o size=3g closed-engine "$W/mnt"
truncate -s 2G "$W/mnt/c.img"
LOOP=$(losetup -f --show "$W/mnt/c.img")

stat_cpu() { awk '/^cpu / { print $9, $5 }' /proc/stat; }
run() { # run BIN TAG EXTRA...
	local bin=$1 tag=$2 ll=""
	shift 2
	"$bin" replay --help | grep -q -- --lat-log && ll="--lat-log $W/$tag.lat.csv"
	s0=$(stat_cpu)
	# shellcheck disable=SC2086
	"$bin" replay "$TRACE" --target "$LOOP" --allow-write --force --timing closed $OPTS \
		--interval 0 --quiet --json "$W/$tag.json" $ll "$@"
	echo "$s0 $(stat_cpu)" >"$W/$tag.cpu"
	if [ -n "$ll" ]; then
		# shellcheck disable=SC2086
		"$bin" replay "$TRACE" --null --null-latency-from "$W/$tag.lat.csv" --virtual-time \
			--timing closed $OPTS --interval 0 --quiet --json "$W/$tag.null.json"
	fi
}
for i in $(seq "$ROUNDS"); do
	# shellcheck disable=SC2086
	run "$BIN_A" "a$i" ${A_OPTS:-}
	# shellcheck disable=SC2086
	run "$BIN_B" "b$i" ${B_OPTS:-}
done
python3 - "$W" "$ROUNDS" <<'PY'
import json, os, statistics, sys
w, rounds = sys.argv[1], int(sys.argv[2])
print("run  TPS(streams)  model   gap     p99 cycle  model   write p50  flush p50  late mean  steal  idle")
for side in "ab":
    tps = []
    for i in range(1, rounds + 1):
        d = json.load(open("%s/%s%d.json" % (w, side, i)))
        t, o, r = d["transactions"], d["ops"], d["run"]
        el = r["elapsed_ns"] / 1e9
        c = list(map(int, open("%s/%s%d.cpu" % (w, side, i)).read().split()))
        m = "-"; g = "-"; mp = "-"
        n = "%s/%s%d.null.json" % (w, side, i)
        if os.path.exists(n):
            e = json.load(open(n))["transactions"]
            m = "%.0f" % e["tps_streams"]
            g = "%+.1f%%" % (100 * (t["tps_streams"] / e["tps_streams"] - 1))
            mp = "%.2f ms" % (e["latency_ns"]["p99"] / 1e6)
        tps.append(t["tps_streams"])
        print("%s%-3d %9.0f  %7s  %7s  %7.2f ms  %8s  %6.1f us  %6.1f us  %6.1f us  %4.0f%%  %4.0f%%" % (
            side, i, t["tps_streams"], m, g, t["latency_ns"]["p99"] / 1e6, mp,
            o["write"]["latency_ns"]["p50"] / 1e3, o["flush"]["latency_ns"]["p50"] / 1e3,
            d["lateness_ns"]["mean"] / 1e3, (c[2] - c[0]) / (el * 2), (c[3] - c[1]) / (el * 2)))
    print("%s median %.0f, range %.0f-%.0f" % (side, statistics.median(tps), min(tps), max(tps)))
PY
