#!/bin/bash
# SPDX-License-Identifier: MIT
# throttle-kind.sh - what the blkio (cgroup v1) write-IOPS throttle counts,
# and how long it stalls, for the replay target C of pgbench-validate.sh
# (a loop device with direct I/O on a file on the disk, no filesystem)
# against B's kind of I/O (buffered writes and fdatasync through ext4 on
# such a loop device, as PostgreSQL's WAL).  Each case runs in a cgroup of
# its own limited to LIMIT write IOPS on the disk and prints the writes the
# throttle counted (blkio.throttle.io_serviced) and the latencies:
#   raw-w, raw-wf   iostorm replay on the loop device: 8 KiB sequential
#                   writes at RATE a second (--timing original), and each
#                   followed 200 us later by a flush
#   fsd-*, fsb-*    the same on a 16 MiB file in ext4 on a second such
#                   loop device, O_DIRECT and --buffered (flush: fsync)
#   py-fdatasync    pwrite + fdatasync at RATE a second on that file
# then, SAT=1, the same at saturation: one write+flush pair at a time, as
# fast as the throttle lets it (--timing afap -q 1; python in a loop).
# Usage: bench/throttle-kind.sh   (as root, from the build tree)
# Environment: RATE (200), SECS (10), LIMIT (300), SAT (1), BENCH_TMP.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
IOSTORM=${IOSTORM:-$here/../iostorm}
RATE=${RATE:-200} SECS=${SECS:-10} LIMIT=${LIMIT:-300} SAT=${SAT:-1}
BENCH_TMP=${BENCH_TMP:-/var/tmp/iostorm-bench}
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 77; }
[ -f /sys/fs/cgroup/blkio/blkio.throttle.write_iops_device ] || { echo "no cgroup v1 blkio" >&2; exit 77; }
X=$BENCH_TMP/thrkind.$$ CG=/sys/fs/cgroup/blkio/iostorm-thrkind.$$ L1="" L2=""
mkdir -p "$X/m" "$CG"
cleanup() {
	umount "$X/m" 2>/dev/null || true
	for l in $L1 $L2; do losetup -d "$l" 2>/dev/null || true; done
	rmdir "$CG" 2>/dev/null || echo "cgroup $CG not removed" >&2
	rm -rf "$X"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
DISK=$(stat -c '%Hd:%Ld' "$X")
[ -e "/sys/dev/block/$DISK/partition" ] && DISK=$(cat "/sys/dev/block/$DISK/../dev")
for f in c d; do dd if=/dev/zero of="$X/$f.img" bs=4M count=128 oflag=direct status=none; done
L1=$(losetup -f --show --direct-io=on "$X/c.img")
L2=$(losetup -f --show --direct-io=on "$X/d.img")
for l in $L1 $L2; do echo none >"/sys/block/${l#/dev/}/queue/scheduler" 2>/dev/null || true; done
mkfs.ext4 -q -F "$L2" >/dev/null
mount "$L2" "$X/m"
dd if=/dev/zero of="$X/m/wal" bs=1M count=16 conv=fsync status=none
echo "$DISK $LIMIT" >"$CG/blkio.throttle.write_iops_device"
charged() { awk -v d="$DISK" '$1 == d && $2 == "Write" { n = $3 } END { print n + 0 }' "$CG/blkio.throttle.io_serviced"; }
# trace RATE SECS MODE: 8 KiB writes (w), each with a flush 200 us after (wf)
trace() {
	awk -v r="$1" -v s="$2" -v m="$3" 'BEGIN { print "# device: 0 size=16777216 block_size=512 name=c"
		print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"
		for (i = 0; i < r * s; i++) { t = int(i * 1e9 / r)
			printf "%.0f,0,write,%d,8192,0,1,%d,sync\n", t, (i * 8192) % 16777216, i
			if (m == "wf") printf "%.0f,0,flush,0,0,0,1,%d,preflush\n", t + 200000, i } }'
}
# lat LATLOG: percentiles of each op's latency, and the write rate
lat() {
	awk -F, '$1 ~ /^[0-9]+$/ { print $2, $7, $6 }' "$1" | sort -k1,1 -k2,2n | awk '
		{ v[$1, ++n[$1]] = $2; if (!t0 || $3 < t0) t0 = $3; if ($3 > t1) t1 = $3 }
		END { for (op in n) { k = n[op]
			printf "  %-5s n=%d p50 %.2f p90 %.2f p99 %.2f max %.2f ms\n", op, k, v[op, int(k * .5) + 1] / 1e6,
				v[op, int(k * .9) + 1] / 1e6, v[op, int(k * .99) + 1] / 1e6, v[op, k] / 1e6 }
		      if (t1 > t0) printf "  %.1f writes a second\n", n["write"] / ((t1 - t0) / 1e9) }'
}
# run NAME CMD...: CMD in the cgroup; the writes it was counted
run() {
	n=$1; shift
	sync; sleep 1
	c0=$(charged)
	sh -c 'echo $$ >"$0/cgroup.procs"; exec "$@"' "$CG" "$@" >"$X/$n.out" 2>&1 ||
		{ echo "$n: failed:"; cat "$X/$n.out"; }
	echo "$n: $(($(charged) - c0)) writes counted by the throttle"
}
# py.py RATE SECS FILE: pwrite + fdatasync of 8 KiB, RATE a second (0: as
# fast as it goes, 3000 times)
cat >"$X/py.py" <<'PY'
import os, sys, time
r, s, f = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
n = int(r * s) if r else 3000
fd = os.open(f, os.O_WRONLY); b = b"x" * 8192; L = []; t0 = time.monotonic()
for i in range(n):
    if r:
        d = t0 + i / r - time.monotonic()
        if d > 0: time.sleep(d)
    a = time.monotonic(); os.pwrite(fd, b, (i * 8192) % (16 << 20)); os.fdatasync(fd); L.append(time.monotonic() - a)
el = time.monotonic() - t0; L.sort()
print("  write+fdatasync n=%d p50 %.2f p90 %.2f p99 %.2f max %.2f ms\n  %.1f a second" % (n, L[n // 2] * 1e3,
      L[int(n * .9)] * 1e3, L[int(n * .99)] * 1e3, L[-1] * 1e3, n / el))
PY
echo "# throttle-kind: $LIMIT write IOPS on $DISK; $RATE a second for ${SECS}s; load $(cut -d' ' -f1-3 /proc/loadavg)"
for m in w wf; do
	trace "$RATE" "$SECS" $m >"$X/$m.csv"
	run raw-$m "$IOSTORM" replay "$X/$m.csv" --target "$L1" --allow-write --force --no-pin --quiet --lat-log "$X/l"; lat "$X/l"
	run fsd-$m "$IOSTORM" replay "$X/$m.csv" --target "$X/m/wal" --no-pin --quiet --lat-log "$X/l"; lat "$X/l"
	run fsb-$m "$IOSTORM" replay "$X/$m.csv" --target "$X/m/wal" --buffered --no-pin --quiet --lat-log "$X/l"; lat "$X/l"
done
run py-fdatasync python3 "$X/py.py" "$RATE" "$SECS" "$X/m/wal"; cat "$X/py-fdatasync.out"
[ "$SAT" = 1 ] || exit 0
echo "# saturation: one write+flush pair at a time, 3000 pairs"
trace 1000 3 wf >"$X/sat.csv"
run raw-sat "$IOSTORM" replay "$X/sat.csv" --target "$L1" --allow-write --force --timing afap -q 1 --no-pin --quiet --lat-log "$X/l"; lat "$X/l"
run fsb-sat "$IOSTORM" replay "$X/sat.csv" --target "$X/m/wal" --buffered --timing afap -q 1 --no-pin --quiet --lat-log "$X/l"; lat "$X/l"
run py-sat python3 "$X/py.py" 0 0 "$X/m/wal"; cat "$X/py-sat.out"
