#!/bin/sh
# SPDX-License-Identifier: MIT
# synth.sh - generation speed of every `iostorm synth` profile: records per
# CPU-second of the generator alone (--discard), median of RUNS runs, and
# with the IST writer (-o file); the peer is fio's null I/O engine, whose
# IOPS per CPU-second is the cost of fio generating the same kind of
# synthetic I/O.  CPU time, not wall time: the machine is shared.
# Usage: bench/synth.sh [IOSTORM] [RUNS]      (a few minutes)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
IOSTORM=${1:-$here/../iostorm}
RUNS=${2:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# profile and duration giving about 1-3 million records
cases="4k-randread:4s 4k-randwrite:8s 64k-seqread:30s 64k-seqwrite:60s
sql:30s sql-90-10:30s sql-80-20:30s oracle:30s oracle-90-10:30s oracle-80-20:30s
tpcc:300s sysbench-oltp:60s marklogic:60s vdi-boot:600s vdi-login:1800s
vdi-login-monday:900s $here/../traces/profiles/bursty-web.ini:300s"

# fio's null engine: 4 KiB random reads, QD 128, 5 s; IOPS / CPU share
fio_rate=
if command -v fio >/dev/null 2>&1; then
	for i in $(seq "$RUNS"); do
		fio --name=null --ioengine=null --rw=randread --bs=4k --size=1g \
			--iodepth=128 --time_based --runtime=5 \
			--output-format=terse --terse-version=3 >"$tmp/fio" 2>/dev/null
		# terse v3: field 8 read IOPS, 88 usr%, 89 sys%
		awk -F';' '{ cpu = ($88 + $89) / 100; if (cpu > 0) printf "%.0f\n", $8 / cpu }' "$tmp/fio"
	done | median >"$tmp/fio_rate"
	fio_rate=$(cat "$tmp/fio_rate")
	echo "fio $(fio --version) null engine randread 4k QD128: $fio_rate I/Os per CPU-s (median of $RUNS)"
fi

printf '%-18s %10s %16s %16s %8s\n' profile records "records/CPU-s" "with IST/CPU-s" "vs fio"
for c in $cases; do
	prof=${c%:*}
	dur=${c##*:}
	for i in $(seq "$RUNS"); do
		"$IOSTORM" synth "$prof" --duration "$dur" --discard |
			sed 's/.*CPU): [0-9]* records\/s, \([0-9]*\) records\/CPU-s/\1/'
	done | median >"$tmp/gen"
	n=$("$IOSTORM" synth "$prof" --duration "$dur" --discard | awk '{ print $2 }')
	# with the IST writer (deflate): user + system CPU of the whole command
	for i in $(seq "$RUNS"); do
		/usr/bin/time -f '%U %S' -o "$tmp/t" "$IOSTORM" synth "$prof" \
			--duration "$dur" -o "$tmp/out.ist" >/dev/null
		awk -v n="$n" '{ c = $1 + $2; if (c > 0) printf "%.0f\n", n / c; else print 0 }' "$tmp/t"
	done | median >"$tmp/ist"
	ratio=-
	[ -n "$fio_rate" ] && ratio=$(awk -v a="$(cat "$tmp/gen")" -v b="$fio_rate" 'BEGIN { printf "%.1fx", a / b }')
	printf '%-18s %10s %16s %16s %8s\n' "${prof##*/}" "$n" "$(cat "$tmp/gen")" "$(cat "$tmp/ist")" "$ratio"
done
