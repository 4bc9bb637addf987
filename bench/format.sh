#!/bin/bash
# SPDX-License-Identifier: MIT
# format.sh - IST size and speed against the canonical CSV compressed with
# gzip -9 and xz -9, on real traces (../shared/realdata) and a synthetic one.
# Run from a build directory after `make check` (builds bench/ist_speed):
#   bench/format.sh [RUNS]          (RUNS: speed runs per trace, median; 5)
# Env: IOSTORM, IST_SPEED (binaries), SHARED_DIR, SYNTH_RECORDS (1000000).
set -euo pipefail
runs=${1:-5}
IOSTORM=${IOSTORM:-./iostorm}
IST_SPEED=${IST_SPEED:-./bench/ist_speed}
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${SHARED_DIR:-}" ]; then
	# ../shared beside the checkout, or beside the worktrees' folder
	for d in "$top/../shared" "$top/../../shared"; do
		[ -d "$d/realdata" ] && { SHARED_DIR=$d; break; }
	done
fi
SHARED_DIR=${SHARED_DIR:-$top/../shared}
R="$SHARED_DIR/realdata"
N=${SYNTH_RECORDS:-1000000}
W=$(mktemp -d "${TMPDIR:-/tmp}/iostorm-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
[ -x "$IOSTORM" ] && [ -x "$IST_SPEED" ] || { echo "build first (make check): need $IOSTORM and $IST_SPEED" >&2; exit 1; }

# Real traces to canonical CSV (importers live elsewhere; these small
# converters only map the columns; times relative to the first record).
if [ -d "$R" ]; then
python3 - "$R" "$W" <<'PY'
import sys, gzip, bz2
R, W = sys.argv[1] + '/', sys.argv[2] + '/'
H = "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags\n"
def out(name, meta, devs, rows):
    with open(W + name, 'w') as f:
        for k, v in meta: f.write("# meta: %s=%s\n" % (k, v))
        for i, (n, bs) in enumerate(devs):
            f.write("# device: %d size=0 block_size=%d name=%s\n" % (i, bs, n))
        f.write(H)
        for r in rows: f.write("%d,%d,%s,%d,%d,%d,%d,0,\n" % r)
def msr():  # FILETIME (100 ns), host, disk, Read/Write, offset, size, response (100 ns)
    rows = [l.strip().split(',') for l in open(R + 'caffeine-snia/msr-cambridge1-sample.csv')]
    t0 = int(rows[0][0])
    out('msr-cambridge1.csv', [('source', 'msr-cambridge1-sample.csv')], [('hm_0', 512)],
        (((int(r[0]) - t0) * 100, 0, 'write' if r[3] == 'Write' else 'read',
          int(r[4]), int(r[5]), int(r[6]) * 100, 0) for r in rows))
def wsrch():  # arrival ns, dev, lba, sectors, 1=read
    rows = [l.split() for l in open(R + 'mqsim/wsrch-small.trace') if l.strip()]
    nd = max(int(r[1]) for r in rows) + 1
    out('mqsim-wsrch.csv', [('source', 'wsrch-small.trace')], [('dev%d' % i, 512) for i in range(nd)],
        ((int(r[0]), int(r[1]), 'read' if r[4] == '1' else 'write', int(r[2]) * 512,
          int(r[3]) * 512, 0, 0) for r in rows))
def cloud():  # version, time (us), SCSI opcode (hex), size, lbn
    rows = [l.strip().split(',') for l in open(R + 'vscsi-cloudphysics/cloudPhysicsIO.csv')][1:]
    t0 = int(rows[0][1])
    out('cloudphysics.csv', [('source', 'cloudPhysicsIO.csv')], [('vdisk', 512)],
        (((int(r[1]) - t0) * 1000, 0, 'read' if r[2] in ('28', '88', '8', 'a8') else 'write',
          int(r[4]) * 512, int(r[3]), 0, 0) for r in rows))
def systor(fn, name):  # s.ns, response s, R/W, LUN, offset, size
    rows = [l.strip().split(',') for l in gzip.open(R + 'caffeine-snia/' + fn, 'rt')][1:]
    def ns(s):
        a, _, b = s.partition('.'); return int(a) * 10**9 + int(b.ljust(9, '0')[:9])
    t0 = min(ns(r[0]) for r in rows)
    luns = sorted(set(int(r[3]) for r in rows))
    out(name, [('source', fn)], [('lun%d' % l, 512) for l in luns],
        ((ns(r[0]) - t0, luns.index(int(r[3])), 'read' if r[2] == 'R' else 'write',
          int(r[4]), int(r[5]), ns(r[1]), 0) for r in rows))
def tencent():  # unix s, offset (sectors), sectors, 0=read, volume
    rows = [l.strip().split(',') for l in bz2.open(R + 'caffeine-snia/tencent-cbs-cloud_storage-sample.bz2', 'rt') if l.strip()]
    t0 = min(int(r[0]) for r in rows)
    vols = {}
    for r in rows: vols.setdefault(r[4], len(vols))
    out('tencent-cbs.csv', [('source', 'tencent-cbs-cloud_storage-sample')],
        [('vol%s' % v, 512) for v in vols],
        (((int(r[0]) - t0) * 10**9, vols[r[4]], 'read' if r[3] == '0' else 'write',
          int(r[1]) * 512, int(r[2]) * 512, 0, 0) for r in rows))
msr(); wsrch(); cloud(); systor('systor17-traces-sample.csv.gz', 'systor17.csv'); tencent()
PY
else
	echo "note: no $R, real traces skipped" >&2
fi
# A synthetic OLTP-like trace (16 sessions, random 8 KiB data I/O, a
# sequential log with commits, latencies) for volume and speed.
"$IST_SPEED" --synth "$N" "$W/synthetic-oltp.ist"
"$IOSTORM" convert "$W/synthetic-oltp.ist" "$W/synthetic-oltp.csv"
rm "$W/synthetic-oltp.ist"

printf '| trace | records | CSV | gzip -9 | xz -9 | IST | IST/xz | IST/gzip | B/record | encode Mrec/s | decode Mrec/s | decode, 512 a read |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for csv in "$W"/*.csv; do
	name=$(basename "$csv" .csv)
	ist="$W/$name.ist"
	"$IOSTORM" convert "$csv" "$ist"
	"$IOSTORM" convert "$ist" "$W/back.csv"
	cmp -s "$csv" "$W/back.csv" || { echo "$name: CSV -> IST -> CSV differs" >&2; exit 1; }
	c=$(stat -c %s "$csv"); i=$(stat -c %s "$ist")
	g=$(gzip -9 -c "$csv" | wc -c); x=$(xz -9 -T1 -c "$csv" | wc -c)
	recs=$("$IOSTORM" info --json "$ist" | sed 's/.*"records":\([0-9]*\).*/\1/')
	read -r _ _ _ enc _ dec < <("$IST_SPEED" "$ist" "$runs")
	# replay's decoder reads 512 records a call (DECODE_BATCH)
	read -r _ _ _ _ _ dec512 < <("$IST_SPEED" "$ist" "$runs" 512)
	awk -v n="$name" -v r="$recs" -v c="$c" -v g="$g" -v x="$x" -v i="$i" -v e="$enc" -v d="$dec" \
		-v d5="$dec512" \
		'BEGIN { printf "| %s | %d | %d | %d | %d | %d | %.3f | %.3f | %.2f | %.1f | %.1f | %.1f |\n",
			n, r, c, g, x, i, i / x, i / g, i / r, e / 1e6, d / 1e6, d5 / 1e6 }'
done
echo
echo "encode/decode: library only (ist_writer_write to /dev/null, ist_reader_read"
echo "from the page cache), CPU time of one thread, median of $runs runs; decode"
echo "reads 65536 records a call, the last column 512 (as replay's decoder does)."
