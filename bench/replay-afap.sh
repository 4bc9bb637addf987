#!/bin/bash
# SPDX-License-Identifier: MIT
# replay-afap.sh - benchmark 1: as fast as possible, 4 KiB random reads at
# QD 32 on zram: iostorm replay --timing afap vs fio ioengine=io_uring
# (same device, same queue depth, one thread each).  Medians of $RUNS runs.
. "$(dirname "$0")/replay-lib.sh"
SECS=${SECS:-3}
zram_up 1G
# fill the device so that reads do not hit zram's unallocated fast path
fio --name=fill --filename="$ZDEV" --rw=write --bs=1M --direct=1 --ioengine=psync \
	--buffer_compress_percentage=50 --refill_buffers --output=/dev/null
T=$BENCH_TMP/afap
gen_poisson 1000000 4 1073741824 "$T.csv" # 4M random reads over 1 GiB
"$IOSTORM" convert "$T.csv" "$T.ist"
for i in $(seq "$RUNS"); do
	"$IOSTORM" replay "$T.ist" --target "$ZDEV" --timing afap --iodepth 32 \
		--duration "${SECS}s" --json "$T.json" --quiet
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totals"]["iops"])' "$T.json" >>"$T.iostorm"
	fio --name=afap --filename="$ZDEV" --rw=randread --bs=4k --direct=1 --ioengine=io_uring \
		--iodepth=32 --runtime="$SECS" --time_based --norandommap --randrepeat=0 \
		--output-format=json --output="$T.fio.json"
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"])' "$T.fio.json" >>"$T.fio"
done
a=$(median <"$T.iostorm"); b=$(median <"$T.fio")
echo "afap 4KiB randread QD32 zram: iostorm $(printf %.0f "$a") IOPS, fio $(printf %.0f "$b") IOPS, ratio $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')"
echo "  runs iostorm: $(tr '\n' ' ' <"$T.iostorm")"
echo "  runs fio:     $(tr '\n' ' ' <"$T.fio")"
rm -f "$T".*
