#!/bin/bash
# SPDX-License-Identifier: MIT
# replay-rss.sh - benchmark 4: peak RSS replaying a 100-million-record IST
# trace on the null back-end (as fast as possible), beside fio's peak RSS
# for the same number of 4 KiB random reads on its null engine.  The
# trace is generated once into $BENCH_TMP (about 3 MB; a few minutes).
. "$(dirname "$0")/replay-lib.sh"
N=${N:-100000000}
T=$BENCH_TMP/rss-$N.ist
if [ ! -s "$T" ]; then
	awk -v n="$N" 'BEGIN { print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"
		for (i = 0; i < n; i++) printf "%.0f,0,%s,%.0f,4096,0,%d,0,\n", i * 1000, i % 4 ? "read" : "write", (i * 7919 % 262144) * 4096, i % 16 }' |
		"$IOSTORM" convert - "$T"
fi
: >"$BENCH_TMP/rss.iostorm"; : >"$BENCH_TMP/rss.fio"
for i in $(seq "$RUNS"); do
	cpu_of "$BENCH_TMP/rss.out" "$IOSTORM" replay "$T" --null --timing afap --quiet --json "$BENCH_TMP/rss.json"
	awk '{ print $2 / 1024 }' "$BENCH_TMP/rss.out" >>"$BENCH_TMP/rss.iostorm"
	ios=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["ios"])' "$BENCH_TMP/rss.json")
	cpu_of "$BENCH_TMP/rss.out" fio --name=null --ioengine=null --rw=randread --bs=4k --size=1T \
		--number_ios="$N" --norandommap --output=/dev/null
	awk '{ print $2 / 1024 }' "$BENCH_TMP/rss.out" >>"$BENCH_TMP/rss.fio"
done
echo "peak RSS, $N records (null back-end, afap): iostorm $(median <"$BENCH_TMP/rss.iostorm") MiB ($ios I/Os replayed), fio null engine $(median <"$BENCH_TMP/rss.fio") MiB"
echo "  runs iostorm: $(tr '\n' ' ' <"$BENCH_TMP/rss.iostorm") MiB; fio: $(tr '\n' ' ' <"$BENCH_TMP/rss.fio") MiB"
rm -f "$BENCH_TMP"/rss.out "$BENCH_TMP"/rss.json "$BENCH_TMP"/rss.iostorm "$BENCH_TMP"/rss.fio
