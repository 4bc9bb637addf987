# SPDX-License-Identifier: MIT
# replay-lib.sh - shared helpers of the replay benchmarks (sourced).
# Needs root (zram, tracefs), fio, python3; run from the build tree or set
# IOSTORM.  Scratch files go to $BENCH_TMP (default /var/tmp/iostorm-bench).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
IOSTORM=${IOSTORM:-$here/../iostorm}
TOOLS=${TOOLS:-$here/../../shared/tools}
[ -d "$TOOLS" ] || TOOLS=/work/shared/tools
BENCH_TMP=${BENCH_TMP:-/var/tmp/iostorm-bench}
RUNS=${RUNS:-3}
mkdir -p "$BENCH_TMP"
[ "$(id -u)" -eq 0 ] || { echo "benchmarks need root (zram, tracefs)" >&2; exit 77; }
command -v fio >/dev/null || { echo "fio missing" >&2; exit 77; }
[ -x "$IOSTORM" ] || { echo "build iostorm first ($IOSTORM)" >&2; exit 1; }

ZRAM=""
# zram_up SIZE : a private zram device (hot_add), in $ZDEV; removed on exit
zram_up() {
	[ -w /sys/class/zram-control/hot_add ] || modprobe zram 2>/dev/null || true
	ZRAM=$(cat /sys/class/zram-control/hot_add)
	echo "$1" >"/sys/block/zram$ZRAM/disksize"
	ZDEV=/dev/zram$ZRAM
	trap zram_down EXIT
}
zram_down() {
	[ -n "$ZRAM" ] || return 0
	echo 1 >"/sys/block/zram$ZRAM/reset" 2>/dev/null || true
	echo "$ZRAM" >/sys/class/zram-control/hot_remove 2>/dev/null || true
	ZRAM=""
}

# gen_poisson IOPS SECONDS SPAN_BYTES OUT.csv : 4 KiB random reads with
# Poisson arrivals (exponential gaps), offsets 4 KiB-aligned in the span,
# each offset used once per 4 KiB slot so that an observer can match them.
gen_poisson() {
	python3 - "$@" <<'PY'
import random, sys
iops, secs, span, out = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rnd = random.Random(12345)
n = int(iops * secs)
slots = span // 4096
t = 0.0
with open(out, 'w') as f:
    f.write("t_ns,dev,op,offset,len,lat_ns,stream,txn,flags\n")
    perm = rnd.sample(range(slots), min(n, slots))
    for i in range(n):
        f.write(f"{int(t)},0,read,{perm[i % len(perm)] * 4096},4096,0,0,0,\n")
        t += rnd.expovariate(iops) * 1e9
PY
}

# fio_iolog CSV DEV OUT : the same schedule as a fio version 3 iolog
# (timestamps in microseconds since the start, as fio writes them).
fio_iolog() {
	awk -F, -v dev="$2" 'NR == 1 { print "fio version 3 iolog"; print "0 " dev " add"; print "0 " dev " open"; next }
		{ t = int($1 / 1000); printf "%d %s %s %s %s\n", t, dev, $3, $4, $5 }
		END { print t " " dev " close" }' "$1" >"$3"
}

# cpu_of OUTFILE CMD... : runs CMD, writes its user+system CPU seconds
# (children included) to OUTFILE.
cpu_of() {
	out=$1; shift
	python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.6f %d\n" % (r.ru_utime + r.ru_stime, r.ru_maxrss))' "$out" "$@"
}

# median of the numbers on stdin
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
