#!/bin/sh
# SPDX-License-Identifier: MIT
# pgbench-validate.sh - does a closed-loop replay predict what PostgreSQL
# would do on another drive?  PostgreSQL 15 + pgbench on device A (by
# default a loop device on the disk, ext4) is recorded with `iostorm
# record`, annotated with `iostorm annotate` and replayed closed-loop
# (`--timing closed`) on a device C of B's kind, without a filesystem;
# pgbench then runs for real on device B (by default zram, ext4).
# Each run prints real TPS / p99 on A and B and the predicted TPS / p99 on
# B, and the error; the last lines are the medians over the runs.
# C of B's kind (DEVB=throttle, 2026-12-04, cl10; bench/throttle-kind.sh):
# the blkio v1 throttle counts each of C's direct writes and none of its
# flushes (the loop device turns a flush into an fsync of its backing
# file, whose journal commit and disk flush the root's jbd2 issues), and
# each of B's fdatasyncs and none of B's WAL writes (the page cache's
# writeback, charged to the root cgroup under v1): one count a commit on
# either, and at a fixed rate below the limit neither stalls (200/s: p99
# 1.9 ms C, 9.1 ms write + fdatasync), at the limit both do, ~90 ms at
# p99 (the throttle's 100 ms slice on a rotational disk).  A run prints
# the counts ("throttle-charged writes": B's run, C's replay, a second and
# a transaction): the replay's p99 follows its count a second, so its p99
# error follows its TPS error near the limit.  A run prints too the busy
# share of PIN's CPUs during A's and B's runs ("PIN's CPUs busy"; anyone's
# work): near 100% in B, B was held by its CPU, not by its device.
#
# Usage: bench/pgbench-validate.sh [RUNS]     (as root, from the build tree)
# Environment: DEVA, DEVB: the kinds of A and B (and C): disk (a loop
#   device on a file on the disk, in BENCH_TMP), tmpfs (a loop device on a
#   file in a tmpfs the script mounts: the same loop code path, asynchronous
#   completion through the loop worker, no disk), throttle (a loop device
#   on a file on the disk with direct I/O, the disk's writes of the
#   script's processes (postgres, the replay, through the loop worker)
#   limited to THROTTLE IOPS by a blkio cgroup (v1) of the script's once
#   the databases are set up), zram (the I/O done synchronously by the
#   caller); default DEVA=disk DEVB=zram, THROTTLE (300, write IOPS),
#   NOPIN (auto: replay --no-pin when C is a loop device, whose worker
#   thread the pinned replay worker competes with; 1: always; 0: never),
#   CLIENTS (4), SECS (20), SCALE (10), ANNOTATE_OPTS,
#   REPLAY_OPTS (the replay's options besides the timing, sidecar and CPU
#   ones; default --serial-commits --commit-groups on --lock-handover on
#   --txn-latency cycle: group commits formed on the target, for a slower
#   B, and A's median WAL lock handover after each release a commit
#   waited for; with SCHED=0 --lock-handover is dropped, it needs the
#   sidecar.  Quiet sets of 2026-12-05 (session 18, B not recorded):
#   TPS / p99 errors, medians of 3, -N +0.5 / +7.1%, TPC-B +7.2 / +5.0%;
#   without the handover -8.2 / +10.7% and +1.7 / +11.3%), GROUP (auto: annotate
#   --group-commits with A's pgbench transactions per WAL fsync; none), PIN (a prefix for
#   postgres and pgbench, e.g. "taskset -c 1"), BENCH_TMP, KEEP=1 (keep the
#   captures and logs), PGBIN (/usr/lib/postgresql/15/bin), SCHED (1: record
#   --sched and replay --think-sched, the run-queue waits behind other
#   threads taken out of the think times; 0: not), CPUS (with SCHED=1: replay
#   --cpus N, the backends' on-CPU think time on N CPUs, each burst queued
#   on its own (replay's default --cpu-queue burst, 2026-12-04); auto (default): the
#   CPUs of PIN's "taskset -c LIST", none without PIN; "": unlimited),
#   CLIENT (with SCHED=1: record --sched-comm CLIENT, the sleeps of the
#   backends that pgbench ended, with pgbench's CPU time, which replay
#   --cpus puts on the same CPUs; default pgbench; "": not recorded),
#   AREF=1 (run A a second time, not recorded: the recorder's cost),
#   CPU_SCALE (with CPUS: replay --cpu-scale F, a what-if), CPU_QUEUE
#   (with CPUS: replay --cpu-queue burst|gap; default: none given, burst),
#   WAKE (with CPUS: replay --wake-cost WAKE, the recorded wake-ups the
#   replay does not cause taken off the CPU; default auto; "": not),
#   PAIR=1 (with WAKE: replay each capture also without --wake-cost, the
#   previous model, on the same target: "# run N: paired" lines and their
#   medians; PAIR_IOSTORM: the binary of the paired replay and its
#   annotate, e.g. main's; PAIR_OPTS: its replay options instead of
#   REPLAY_OPTS; PAIR_WAKE: its --wake-cost, default none; PAIR_CPUS: its
#   --cpus instead of CPUS, "" for none; PAIR_CPU_QUEUE: its --cpu-queue,
#   e.g. gap, the model before 2026-12-04),
#   ALSO=1 (with PAIR=1: a third replay of each capture on the same
#   target, "# run N: also" lines; ALSO_OPTS, ALSO_WAKE, ALSO_CPUS,
#   ALSO_CPU_QUEUE as PAIR's, defaults REPLAY_OPTS, none, CPUS, none), BTWICE=1 (run B twice: B's own spread beside the error),
#   PGBENCH_OPTS (pgbench's options besides the clients, time and log:
#   e.g. -N, no updates of the branches and tellers, whose row locks
#   the clients otherwise wait for until the holder's commit is durable),
#   CFILL (1, default: C, when on the disk, written full before the
#   runs, as B's WAL files are; 0: sparse, as before 2026-12-04),
#   RECPIN (a prefix for the recorder, e.g. "taskset -c 0"; "other": the
#   CPUs not in PIN's list; default: none), BREC=1 (record B's run too,
#   into runN.b.cap.ist and .sched: B's recorded CPU, for diagnosis only;
#   and the commit sections, a stream's first WAL write to its flush's
#   completion, of B's capture and of the replay on C (its --lat-log,
#   runN.lat.csv): their p25 / p50 in us, "# run N: commit sections";
#   C's shorter than B's below the throttle's limit make the replay's
#   groups smaller and its p99 higher, 2026-12-04, cl16),
#   CFS=1 (C a file on ext4, as B's WAL is: a loop device of B's kind,
#   SIZE + 512M, mkfs.ext4 as B's, holding a file of A's size (the
#   capture's extent) preallocated with fallocate and written once, so
#   that no unwritten extent is converted during the replay; the replay
#   runs on that file, its flushes an fsync of the file (io_uring
#   IORING_OP_FSYNC); with PAIR=1 the paired replay runs on the raw C
#   device instead, its commit sections printed too with BREC=1;
#   CFS_IO: buffered (default: page-cache writes, as PostgreSQL's WAL and
#   data writes, replay --buffered) or direct; 2026-12-04, cl16b).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
IOSTORM=${IOSTORM:-$here/../iostorm}
RUNS=${1:-${RUNS:-3}}
CLIENTS=${CLIENTS:-4}
SECS=${SECS:-20}
SCALE=${SCALE:-10}
ANNOTATE_OPTS=${ANNOTATE_OPTS---flush-owner}
REPLAY_OPTS=${REPLAY_OPTS---serial-commits --commit-groups on --lock-handover on --txn-latency cycle}
PIN=${PIN:-}
GROUP=${GROUP:-auto}
SCHED=${SCHED:-1}
# --lock-handover (if asked for) needs the sidecar (who was asleep at a release)
[ "$SCHED" = 1 ] || REPLAY_OPTS=$(echo "$REPLAY_OPTS" | sed 's/--lock-handover on *//')
CPUS=${CPUS-auto}
CLIENT=${CLIENT-pgbench}
WAKE=${WAKE-auto}
if [ "$CPUS" = auto ]; then # B's CPUs as the user pinned them: taskset -c LIST
	CPUS=$(echo "$PIN" | awk '$1 == "taskset" && $2 == "-c" { n = split($3, a, ",")
		for (i = 1; i <= n; i++) { if (split(a[i], r, "-") == 2) c += r[2] - r[1] + 1; else c++ }
		print c }')
fi
# the CPUs of PIN (taskset -c LIST), whose busy time per transaction is
# reported (A_cpu, B_cpu: us per pgbench transaction, steal excluded)
PINCPUS=$(echo "$PIN" | awk '$1 == "taskset" && $2 == "-c" { n = split($3, a, ",")
	for (i = 1; i <= n; i++) { if (split(a[i], r, "-") == 2) for (c = r[1]; c <= r[2]; c++) print c; else print a[i] } }')
# RECPIN=other: the recorder on the CPUs outside PIN's list
RECPIN=${RECPIN:-}
if [ "$RECPIN" = other ]; then
	o=$(seq 0 $(($(nproc) - 1)) | grep -vxF "$PINCPUS" | paste -sd, -)
	RECPIN=${o:+taskset -c $o}
fi
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
BENCH_TMP=${BENCH_TMP:-/var/tmp/iostorm-bench}
SIZE=2G
DEVA=${DEVA:-disk}
DEVB=${DEVB:-zram}
for k in "$DEVA" "$DEVB"; do
	case $k in disk|tmpfs|throttle|zram) ;; *) echo "DEVA, DEVB: disk, tmpfs, throttle or zram, not '$k'" >&2; exit 2 ;; esac
done
THROTTLE=${THROTTLE:-300}
CFILL=${CFILL:-1}
PGBENCH_OPTS=${PGBENCH_OPTS:-}
NOPIN=${NOPIN:-auto}
CFS=${CFS:-0}
CFS_IO=${CFS_IO:-buffered}
case $CFS_IO in buffered|direct) ;; *) echo "CFS_IO: buffered or direct, not '$CFS_IO'" >&2; exit 2 ;; esac
[ "$NOPIN" = auto ] && case $DEVB in zram) NOPIN=0 ;; *) NOPIN=1 ;; esac

[ "$(id -u)" -eq 0 ] || { echo "needs root (loop, zram, tracefs)" >&2; exit 77; }
[ -x "$PGBIN/postgres" ] && command -v pgbench >/dev/null ||
	{ echo "PostgreSQL 15 missing (apt-get install postgresql)" >&2; exit 77; }
[ -x "$IOSTORM" ] || { echo "build iostorm first ($IOSTORM)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 missing" >&2; exit 77; }

W=$BENCH_TMP/pgval.$$
mkdir -p "$W"
chmod 755 "$W"
LOOPS="" ZRAMS="" TMPFS="" CG="" MNT_A=$W/a MNT_B=$W/b MNT_CF=$W/cf

pg() { runuser -u postgres -- $PIN "$PGBIN/$@"; }
stop_pg() { [ -f "$1/data/postmaster.pid" ] && pg pg_ctl -D "$1/data" -m fast -w stop >/dev/null 2>&1 || true; }
zram_del() {
	[ -n "$1" ] || return 0
	echo 1 >"/sys/block/zram$1/reset" 2>/dev/null || true
	echo "$1" >/sys/class/zram-control/hot_remove 2>/dev/null || true
}
# dev_new KIND NAME: a new device of that kind, its path in NEWDEV (not
# in a subshell: the cleanup needs LOOPS, ZRAMS, TMPFS).  A loop
# device gets no I/O scheduler (requests are then issued by the process
# that submitted them, which the recorder takes as the stream).
dev_new() {
	case $1 in
	zram)
		z=$(cat /sys/class/zram-control/hot_add)
		ZRAMS="$ZRAMS $z"
		echo "$SIZE" >"/sys/block/zram$z/disksize"
		NEWDEV=/dev/zram$z ;;
	disk|tmpfs|throttle)
		d=$W dio=""
		[ "$1" = throttle ] && dio=--direct-io=on
		if [ "$1" = tmpfs ]; then
			if [ -z "$TMPFS" ]; then
				mkdir -p "$W/tmpfs"
				mount -t tmpfs -o size=5G,mode=700 iostorm-pgval "$W/tmpfs"
				TMPFS=$W/tmpfs
			fi
			d=$TMPFS
		fi
		truncate -s "$SIZE" "$d/$2.img"
		# C on the disk written full first (before the throttle is
		# set): B's WAL segments are files PostgreSQL zero-filled,
		# so its writes overwrite allocated blocks, one request each
		# on the disk; a sparse C allocates at the replay's first
		# writes, in pieces (a third more requests counted by the
		# throttle, flushes 25% slower)
		if [ "$2" = c ] && [ "$CFILL" = 1 ] && [ "$1" != tmpfs ]; then
			dd if=/dev/zero of="$d/$2.img" bs=4M count=$((${SIZE%G} * 256)) \
				oflag=direct conv=notrunc status=none
		fi
		l=$(losetup -f --show $dio "$d/$2.img")
		LOOPS="$LOOPS $l"
		echo none >"/sys/block/${l#/dev/}/queue/scheduler" 2>/dev/null || true
		NEWDEV=$l ;;
	esac
}
dev_desc() {
	case $1 in
	disk) echo "loop on disk" ;; tmpfs) echo "loop on tmpfs" ;; zram) echo zram ;;
	throttle) echo "loop on disk, direct I/O, the disk's writes limited to $THROTTLE IOPS" ;;
	esac
}
cleanup() {
	stop_pg "$MNT_A"; stop_pg "$MNT_B"
	umount "$MNT_A" 2>/dev/null || true
	umount "$MNT_B" 2>/dev/null || true
	umount "$MNT_CF" 2>/dev/null || true
	for l in $LOOPS; do losetup -d "$l" 2>/dev/null || true; done
	for z in $ZRAMS; do zram_del "$z"; done
	[ -z "$TMPFS" ] || umount "$TMPFS" 2>/dev/null || true
	if [ -n "$CG" ]; then # out of the cgroup, then remove it
		echo $$ >"${CG%/*}/cgroup.procs" 2>/dev/null || true
		rmdir "$CG" 2>/dev/null || echo "cgroup $CG not removed" >&2
	fi
	if [ "${KEEP:-0}" = 1 ]; then echo "kept $W" >&2; else rm -rf "$W"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# throttle: the script and all it starts in a blkio cgroup of its own (the
# limit is set after the setup); the loop worker does a request's I/O on
# the backing file in the cgroup of the request's submitter
if [ "$DEVA" = throttle ] || [ "$DEVB" = throttle ]; then
	[ -f /sys/fs/cgroup/blkio/blkio.throttle.write_iops_device ] ||
		{ echo "throttle: no cgroup v1 blkio throttling" >&2; exit 77; }
	CG=/sys/fs/cgroup/blkio/iostorm-pgval.$$
	mkdir "$CG"
	echo $$ >"$CG/cgroup.procs"
	# the whole disk under BENCH_TMP (throttling takes a disk, not a partition)
	DISK=$(stat -c '%Hd:%Ld' "$W")
	[ -e "/sys/dev/block/$DISK/partition" ] && DISK=$(cat "/sys/dev/block/$DISK/../dev")
fi

# A, B and C (the replay target, of B's kind, no filesystem); ext4 on A and B.
dev_new "$DEVA" a; DEV_A=$NEWDEV
dev_new "$DEVB" b; DEV_B=$NEWDEV
dev_new "$DEVB" c; DEV_C=$NEWDEV
# CFS=1: C's file, on ext4 on a device of B's kind, allocated and written
# once before the throttle is set (the replay's writes then overwrite
# written blocks, as B's WAL writes overwrite zero-filled segments)
CF_FILE=""
if [ "$CFS" = 1 ]; then
	SIZE0=$SIZE SIZE=$((${SIZE%G} * 1024 + 512))M
	dev_new "$DEVB" cf; DEV_CF=$NEWDEV
	SIZE=$SIZE0
	mkfs.ext4 -q -F "$DEV_CF" >/dev/null
	mkdir -p "$MNT_CF"
	mount "$DEV_CF" "$MNT_CF"
	CF_FILE=$MNT_CF/c.img
	fallocate -l "$SIZE" "$CF_FILE"
	dd if=/dev/zero of="$CF_FILE" bs=4M count=$((${SIZE%G} * 256)) \
		oflag=direct conv=notrunc status=none
	sync -f "$CF_FILE"
fi
PORT_A=$((55000 + $$ % 1000)) PORT_B=$((56000 + $$ % 1000))

setup() { # DEV MNT PORT
	mkfs.ext4 -q -F "$1" >/dev/null
	mkdir -p "$2"
	mount "$1" "$2"
	chown postgres: "$2"
	pg initdb -D "$2/data" -A trust >/dev/null
	cat >>"$2/data/postgresql.conf" <<EOF
port = $3
listen_addresses = ''
unix_socket_directories = '$2'
shared_buffers = 256MB
max_wal_size = 4GB
checkpoint_timeout = 30min
EOF
	pg pg_ctl -D "$2/data" -l "$2/log" -w start >/dev/null
	pg pgbench -h "$2" -p "$3" -i -q -s "$SCALE" postgres >/dev/null 2>&1
}

# busy ticks (user, nice, system, irq, softirq) of the CPUs of PIN, or
# (steal) their steal ticks: time the hypervisor gave their vCPUs to others
cpu_ticks() {
	[ -n "$PINCPUS" ] || { echo 0; return; }
	echo "$PINCPUS" | awk -v steal="${1:-}" 'FNR == NR { want["cpu" $1] = 1; next }
		($1 in want) { t += steal ? $9 : $2 + $3 + $4 + $7 + $8 } END { print t + 0 }' - /proc/stat
}

wal_syncs() { pg psql -h "$1" -p "$2" -Atq -c 'select wal_sync from pg_stat_wal' postgres; }

# writes the throttle counted for the script's cgroup on the disk so far
# (blkio.throttle.io_serviced; 0 without a throttle): B's WAL writes
# reach the disk through the page cache's writeback, which cgroup v1
# charges to the root, so B is counted its fdatasyncs' flushes only; C
# each write the replay issues, and not its flushes (2026-12-04, cl10)
charged() {
	[ -n "$CG" ] || { echo 0; return; }
	awk -v d="$DISK" '$1 == d && $2 == "Write" { n = $3 } END { print n + 0 }' "$CG/blkio.throttle.io_serviced"
}

# bench MNT PORT PREFIX [DEV] : one pgbench run, recorded on DEV into
# PREFIX.cap.ist when given; prints "TPS P99_MS WAL_SYNCS_PER_S"
bench() {
	pg psql -h "$1" -p "$2" -q -c checkpoint postgres >/dev/null
	sync
	s0=$(wal_syncs "$1" "$2")
	k0=$(cpu_ticks) st0=$(cpu_ticks steal) q0=$(charged) w0=$(date +%s.%N)
	rm -f "$1"/pgbench_log.*
	rec=""
	if [ $# -gt 3 ]; then
		sched=""
		[ "$SCHED" = 1 ] && sched="--sched $3.cap.sched${CLIENT:+ --sched-comm $CLIENT}"
		$RECPIN "$IOSTORM" record -d "$4" -o "$3.cap.ist" --allow-loss $sched 2>"$3.cap.log" &
		rec=$!
		sleep 1
	fi
	# times: pgbench's own CPU time (the shell's children)
	(cd "$1" && runuser -u postgres -- $PIN sh -c '"$@"; times' sh pgbench -h "$1" -p "$2" \
		-c "$CLIENTS" -j 1 -T "$SECS" -l $PGBENCH_OPTS postgres >"$3.pgbench" 2>&1)
	if [ -n "$rec" ]; then
		sleep 0.5
		kill -INT "$rec"
		wait "$rec" || true
	fi
	k1=$(cpu_ticks) st1=$(cpu_ticks steal) q1=$(charged) w1=$(date +%s.%N)
	s1=$(wal_syncs "$1" "$2")
	echo $((q1 - q0)) >"$3.charged"
	# PIN's CPUs' busy share over the run (anyone's work, steal excluded)
	awk -v a="$k0" -v b="$k1" -v t0="$w0" -v t1="$w1" -v n="$(echo "$PINCPUS" | grep -c .)" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "%.0f\n", (n > 0 && t1 > t0 ? 100 * (b - a) / hz / (t1 - t0) / n : 0) }' >"$3.busy"
	cat "$1"/pgbench_log.* >"$3.txlog"
	tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$3.pgbench" | head -1)
	p99=$(awk '{ print $3 }' "$3.txlog" | sort -n |
	      awk '{ v[NR] = $1 } END { i = int(NR * 0.99); if (i < 1) i = 1; printf "%.3f", v[i] / 1000 }')
	n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$3.pgbench")
	awk -v a="$st0" -v b="$st1" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "steal of PIN'"'"'s CPUs: %.2f s\n", (b - a) / hz }' >>"$3.pgbench"
	grep -E "^[0-9]+m[0-9.]+s [0-9]+m[0-9.]+s$" "$3.pgbench" | tail -n 1 | awk -v n="${n:-0}" '{ t = 0; for (i = 1; i <= 2; i++) {
		split($i, a, "m"); t += a[1] * 60 + a[2] } printf "pgbench CPU %.0f us/txn\n", (n > 0 ? t * 1e6 / n : 0) }' >>"$3.pgbench"
	echo "$tps $p99 $(awk -v a="$s0" -v b="$s1" -v t="$SECS" 'BEGIN { printf "%.1f", (b - a) / t }')" \
		"$(awk -v a="$k0" -v b="$k1" -v n="${n:-0}" -v hz="$(getconf CLK_TCK)" \
			'BEGIN { printf "%.0f", (n > 0 ? (b - a) * 1e6 / hz / n : 0) }')"
}

# predict CAPTURE PREFIX G A_TXNS [prev] : annotate (--group-commits G when given), replay closed-loop on C; "TPS P99_MS"
# (TPS: the streams' summed transaction rates, transactions.tps_streams;
# P99: of those streams' transactions, transactions.latency_streams_ns)
predict() {
	bin=$IOSTORM ropts=$REPLAY_OPTS wake=$WAKE cpus=$CPUS cq=${CPU_QUEUE:-}
	[ "${5:-}" = prev ] && bin=${PAIR_IOSTORM:-$IOSTORM} ropts=${PAIR_OPTS-$REPLAY_OPTS} \
		wake=${PAIR_WAKE:-} cpus=${PAIR_CPUS-$CPUS} cq=${PAIR_CPU_QUEUE:-}
	[ "${5:-}" = also ] && ropts=${ALSO_OPTS-$REPLAY_OPTS} \
		wake=${ALSO_WAKE:-} cpus=${ALSO_CPUS-$CPUS} cq=${ALSO_CPU_QUEUE:-}
	"$bin" annotate "$1" -o "$2.ann.ist" $ANNOTATE_OPTS ${3:+--group-commits "$3"} >"$2.annotate"
	# CFS=1: the file, or the raw C for the paired replay
	tgt=$DEV_C bufio=""
	if [ -n "$CF_FILE" ] && [ "${5:-}" != prev ]; then
		tgt=$CF_FILE
		[ "$CFS_IO" = buffered ] && bufio=--buffered
	fi
	[ "$tgt" = "$DEV_C" ] && { wipefs -a -q "$DEV_C" 2>/dev/null || true; }
	ts=""
	[ "$SCHED" = 1 ] && ts="--think-sched ${1%.ist}.sched${cpus:+ --cpus $cpus}${cpus:+${CPU_SCALE:+ --cpu-scale $CPU_SCALE}}"
	[ "$SCHED" = 1 ] && [ -n "$cpus" ] && [ -n "$wake" ] && ts="$ts --wake-cost $wake"
	[ "$SCHED" = 1 ] && [ -n "$cpus" ] && [ -n "$cq" ] && ts="$ts --cpu-queue $cq"
	q0=$(charged)
	"$bin" replay "$2.ann.ist" --target "$tgt" --allow-write --force $bufio \
		--timing closed --quiet --json "$2.json" $ropts $ts $([ "$NOPIN" = 1 ] && echo --no-pin) \
		$([ "${BREC:-0}" = 1 ] && echo --lat-log "$2.lat.csv")
	echo $(($(charged) - q0)) >"$2.charged"
	python3 - "$2.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["transactions"]
# the p99 of the clients' streams (those in tps_streams), as pgbench's is
# of its clients': without the WAL writer's 200 ms cycles (cl9)
lat = t.get("latency_streams_ns") or t["latency_ns"]
print("%.1f %.3f" % (t["tps_streams"], lat["p99"] / 1e6))
PY
	# recorded CPU time (streams' "c" lines: the runtime charged when the
	# line has it, sidecar version 3; clients' "w" CPU) per A transaction
	[ "$SCHED" = 1 ] && awk -v n="$4" '$1 == "c" { t += NF >= 5 ? $5 : $4 - $3 } $1 == "w" { t += $5 }
		END { printf "%.0f\n", (n > 0 ? t / 1e3 / n : 0) }' "${1%.ist}.sched" || echo 0
}

# sect_pct STREAM_COL ISSUE_COL LAT_COL FLAGS_COL ist|log : the p25 and
# p50 of the commit sections (a stream's first write to the completion of
# its next flush, a commit flush in an annotated capture) in CSV on stdin:
# `iostorm cat` of an annotated capture (t_ns, op 3rd, lat_ns) or a
# replay's --lat-log (issue_ns, op 2nd, latency_ns)
sect_pct() {
	awk -F, -v sc="$1" -v ic="$2" -v lc="$3" -v fc="$4" -v kind="$5" '
		/^#/ || /^[a-z_]/ { next }
		{ op = kind == "ist" ? $3 : $2; s = $sc
		  if (kind == "ist" && $lc == 1) next # annotate'"'"'s inserted commits
		  if (op == "write" && !(s in ws)) ws[s] = $ic
		  if (op == "flush" && (s in ws) && (kind == "log" || $fc ~ /commit/)) {
			printf "%.0f\n", ($ic + $lc - ws[s]) / 1000; delete ws[s] } }' |
	sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%d / %d", v[int(NR * 0.25) + 1], v[int(NR * 0.5) + 1]; else printf "-" }'
}

setup "$DEV_A" "$MNT_A" "$PORT_A"
setup "$DEV_B" "$MNT_B" "$PORT_B"
[ -z "$CG" ] || echo "$DISK $THROTTLE" >"$CG/blkio.throttle.write_iops_device"
echo "# pgbench-validate: $CLIENTS clients, ${SECS}s, scale $SCALE,${PGBENCH_OPTS:+ pgbench $PGBENCH_OPTS,} A=$DEV_A ($(dev_desc "$DEVA")), B=$DEV_B ($(dev_desc "$DEVB")), replay on $([ -n "$CF_FILE" ] && echo "$CF_FILE (ext4 on $DEV_CF, $(dev_desc "$DEVB"), $CFS_IO I/O; paired replay on $DEV_C, no filesystem)" || echo "$DEV_C ($(dev_desc "$DEVB"), no filesystem)")"
echo "# annotate: ${ANNOTATE_OPTS:-(defaults)} (group commits: $GROUP); replay: --timing closed ${REPLAY_OPTS}$([ "$NOPIN" = 1 ] && echo " --no-pin"); C written full: $CFILL; sched: $SCHED; client: ${CLIENT:-none}; cpus: ${CPUS:-unlimited}; wake-cost: ${WAKE:-none}; pin: ${PIN:-none}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# tps: pgbench; p99: ms, from pgbench's transaction log; sync/s: WAL fsyncs per second (pg_stat_wal)"
echo "# pred: commits per second on the replay (transactions.tps_streams) and their cycle p99 (latency_streams_ns); errors vs B's TPS and p99"
echo "# A_cpu, B_cpu: us of busy time of PIN's CPUs per pgbench transaction; rec_cpu: us of recorded CPU time (streams' and clients') per A transaction"
printf '%-4s %9s %8s %8s %9s %8s %8s %9s %8s %8s %8s %6s %6s %6s\n' run A_tps A_p99 A_sync/s B_tps B_p99 B_sync/s pred_tps pred_p99 err_tps err_p99 A_cpu B_cpu rec_cpu
: >"$W/rows"
i=1
while [ "$i" -le "$RUNS" ]; do
	p=$W/run$i
	a=$(bench "$MNT_A" "$PORT_A" "$p" "$DEV_A")
	if [ "${AREF:-0}" = 1 ]; then # A again, not recorded: the recorder's cost
		r=$(bench "$MNT_A" "$PORT_A" "$p.aref")
		echo "# run $i: A not recorded: tps p99 sync/s cpu: $r"
	fi
	if [ "${BREC:-0}" = 1 ]; then # B recorded too (diagnosis: its CPU as recorded)
		b=$(bench "$MNT_B" "$PORT_B" "$p.b" "$DEV_B")
		nb=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$p.b.pgbench")
		awk -v n="${nb:-0}" '$1 == "c" { t += NF >= 5 ? $5 : $4 - $3 } $1 == "w" { t += $5 }
			END { printf "# run '"$i"': B recorded CPU %.0f us/txn\n", (n > 0 ? t / 1e3 / n : 0) }' "$p.b.cap.sched"
	else
		b=$(bench "$MNT_B" "$PORT_B" "$p.b")
	fi
	b2=""
	if [ "${BTWICE:-0}" = 1 ]; then # B again: its own spread
		b2=$(bench "$MNT_B" "$PORT_B" "$p.b2")
		echo "# run $i: B again: tps p99 sync/s cpu: $b2"
	fi
	g=""
	if [ "$GROUP" = auto ]; then # A's transactions per WAL fsync
		g=$(echo "$a" | awk '{ g = $3 > 0 ? $1 / $3 : 1; printf "%.3f", g < 1 ? 1 : g }')
	fi
	na=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$p.pgbench")
	c=$(predict "$p.cap.ist" "$p" "$g" "$na")
	if [ "${PAIR:-0}" = 1 ]; then # the previous model on the same capture
		cp=$(predict "$p.cap.ist" "$p.prev" "$g" "$na" prev)
		echo $a $b $cp $b2 | awk -v i="$i" -v m="$([ -n "$CF_FILE" ] && echo "raw C" || echo "previous model")" '{ e = 100 * ($9 - $5) / $5; ep = 100 * ($10 - $6) / $6
			printf "# run %s: paired: %s pred_tps %.1f (%+.1f%%) p99 %.2f ms (%+.1f%%)", i, m, $9, e, $10, ep
			if (NF >= 15) printf "; B again %.1f TPS (%+.1f%% of B) p99 %.2f ms", $12, 100 * ($12 - $5) / $5, $13
			printf "\n" }'
		echo $a $b $cp $b2 | awk '{ printf "%.1f %.1f %s\n", 100 * ($9 - $5) / $5, 100 * ($10 - $6) / $6,
			(NF >= 15 ? sprintf("%.1f", 100 * ($12 - $5) / $5) : "-") }' >>"$W/paired"
		if [ "${ALSO:-0}" = 1 ]; then # a third model on the same capture
			ca=$(predict "$p.cap.ist" "$p.also" "$g" "$na" also)
			echo $a $b $ca | awk -v i="$i" '{ printf "# run %s: also: pred_tps %.1f (%+.1f%%) p99 %.2f ms (%+.1f%%)\n",
				i, $9, 100 * ($9 - $5) / $5, $10, 100 * ($10 - $6) / $6 }'
		fi
	fi
	if [ "${BREC:-0}" = 1 ]; then # B's commit sections against the replay's on C
		"$IOSTORM" annotate "$p.b.cap.ist" -o "$p.b.ann.ist" --flush-owner -q
		echo "# run $i: commit sections (first WAL write to its flush's end), p25 / p50 us:" \
			"B $("$IOSTORM" cat "$p.b.ann.ist" | sect_pct 7 1 6 9 ist)," \
			"C$([ -n "$CF_FILE" ] && echo " (file)") $(sect_pct 3 5 7 0 log <"$p.lat.csv")$([ -f "$p.prev.lat.csv" ] &&
				echo ", paired C$([ -n "$CF_FILE" ] && echo " (raw)") $(sect_pct 3 5 7 0 log <"$p.prev.lat.csv")")"
	fi
	# PIN's CPUs busy during A's and B's runs (anyone's work: near 100%, B
	# was held by its CPU, not its device, and the replay cannot know it)
	[ -z "$PINCPUS" ] || echo "# run $i: PIN's CPUs busy: A $(cat "$p.busy")%, B $(cat "$p.b.busy")%"
	if [ -n "$CG" ]; then # what the throttle counted: B's run against C's replay
		nb=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$p.b.pgbench")
		python3 - "$p.json" "$(cat "$p.b.charged")" "${nb:-0}" "$SECS" "$(cat "$p.charged")" "$i" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
qb, nb, secs, qc, run = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
nc = j["transactions"]["count"]
el = nc / j["transactions"]["tps"] if j["transactions"].get("tps") else 0
print("# run %s: throttle-charged writes: B %.1f/s, %.2f a transaction; C %.1f/s, %.2f a transaction"
      % (run, qb / secs, qb / max(nb, 1), qc / max(el, 1e-9), qc / max(nc, 1)))
PY
	fi
	set -- $a $b $c
	row=$(awk -v at="$1" -v ap="$2" -v as="$3" -v ac="$4" -v bt="$5" -v bp="$6" -v bs="$7" -v bc="$8" -v ct="$9" -v cp="${10}" -v cc="${11}" -v i="$i" 'BEGIN {
		printf "%-4s %9.1f %8.2f %8.1f %9.1f %8.2f %8.1f %9.1f %8.2f %+7.1f%% %+7.1f%% %6.0f %6.0f %6.0f\n", i, at, ap, as, bt, bp, bs, ct, cp,
			100 * (ct - bt) / bt, 100 * (cp - bp) / bp, ac, bc, cc }')
	echo "$row"
	echo "$row" >>"$W/rows"
	i=$((i + 1))
done
# medians of each column
awk '{ for (c = 2; c <= NF; c++) { v[c, NR] = $c + 0 } n = NR; nf = NF }
	END { printf "%-4s", "med"
	      for (c = 2; c <= nf; c++) {
		for (i = 1; i <= n; i++) a[i] = v[c, i]
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		fmt = c >= 12 ? " %6.0f" : c >= 10 ? " %+7.1f%%" : (c == 2 || c == 5 || c == 8 ? " %9.1f" : (c == 4 || c == 7 ? " %8.1f" : " %8.2f")); printf fmt, m
	      }
	      printf "\n" }' "$W/rows"
if [ -s "$W/paired" ]; then # medians of the paired errors (and of B's second runs)
	awk '{ for (c = 1; c <= 3; c++) v[c, NR] = $c; n = NR }
		END { for (c = 1; c <= 3; c++) {
			k = 0; for (i = 1; i <= n; i++) if (v[c, i] != "-") a[++k] = v[c, i] + 0
			for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			m[c] = !k ? "-" : sprintf("%+.1f%%", k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2) }
		      printf "# med paired: previous model err_tps %s err_p99 %s; B again vs B %s\n", m[1], m[2], m[3] }' "$W/paired"
fi
