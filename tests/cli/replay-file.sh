#!/bin/sh
# SPDX-License-Identifier: MIT
# replay-file.sh - iostorm replay on file targets: every record once at its
# mapped offset (stamped writes read back), remap modes, --create, reports.
. "$top_srcdir/tests/cli/lib.sh"
need_uring # replays on files or devices

HDR="t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"

# gen N STEP_NS : N 4 KiB writes at distinct offsets in a shuffled order
# (offset = ((i * 37) mod N) * 4096), one every STEP_NS
gen() {
	awk -v n="$1" -v step="$2" -v hdr="$HDR" 'BEGIN { print hdr
		for (i = 0; i < n; i++)
			printf "%d,0,write,%d,4096,%d,1,0,\n", i * step, ((i * 37) % n) * 4096, 50000 }'
}

# check_stamps FILE N SIZE : every record i is found, once, at its mapped
# offset; the stamp (magic, seq, offset) of every 512 B sector read back.
# Mapping for wrap: off mod (SIZE - 4096 + 1), aligned down to 512.
check_stamps() {
	od -A d -t x1 -v -w512 "$1" | awk -v n="$2" -v size="$3" '
	function hx(h) { return index("0123456789abcdef", substr(h, 1, 1)) * 16 + index("0123456789abcdef", substr(h, 2, 1)) - 17 }
	function le(a, b,   v, k) { v = 0; for (k = b; k >= a; k--) v = v * 256 + hx($k); return v }
	NF > 20 && $2 == "49" && $3 == "53" && $4 == "54" && $5 == "31" {
		seq = le(6, 13); off = le(14, 21)
		if (off != $1) { print "sector " $1 " stamped with offset " off; bad = 1 }
		if ((off % 4096) == 0) { seen[seq]++; at[seq] = off }
	}
	END {
		for (i = 0; i < n; i++) {
			want = ((i * 37) % n) * 4096
			if (size && want + 4096 > size) { want = want % (size - 4096 + 1); want -= want % 512 }
			if (seen[i] != 1) { print "record " i " found " seen[i] + 0 " times"; bad = 1 }
			else if (at[i] != want) { print "record " i " at " at[i] ", expected " want; bad = 1 }
		}
		exit bad }' || fail "stamps in $1 do not match the trace"
	ok
}

# errors_of JSON : the I/O errors of the whole run (its first "errors":
# the totals); a failed I/O does not change the exit status
errors_of() { sed -n 's/^    "errors": \([0-9]*\),$/\1/p' "$1" | head -1; }

# 1. every record replayed once, at its offset, file created to fit.
gen 300 20000 >"$TMP/w.csv"
expect_status 0 "$IOSTORM" replay "$TMP/w.csv" --target "$TMP/t.img" --create \
	--data stamp --json "$TMP/r.json" --csv-intervals "$TMP/iv.csv" --interval 1ms
expect_eq "$(stat -c %s "$TMP/t.img")" $((300 * 4096)) "created size"
check_stamps "$TMP/t.img" 300 0
expect_grep '"schema": "iostorm-replay/1"' "$TMP/r.json"
expect_grep '"interrupted": false' "$TMP/r.json"
expect_grep '"complete": true' "$TMP/r.json"
expect_grep '"ios": 300,' "$TMP/r.json"
expect_eq "$(errors_of "$TMP/r.json")" 0 "I/O errors"
expect_grep '"recorded_latency_ns": \{' "$TMP/r.json"
expect_grep '^start_ns,length_ns,ios,' "$TMP/iv.csv"
expect_eq "$(awk -F, 'NR > 1 { s += $3 } END { print s }' "$TMP/iv.csv")" 300 "interval rows sum"
expect_grep 'write +300 ' "$TMP/out"
expect_grep 'recorded' "$TMP/out"

# 1b. the same with the worker doing the I/O itself (--inline always):
# every record once, at its offset; reported as a feature and a setting.
rm -f "$TMP/t.img"
expect_status 0 "$IOSTORM" replay "$TMP/w.csv" --target "$TMP/t.img" --create \
	--data stamp --inline always --json "$TMP/ri.json"
check_stamps "$TMP/t.img" 300 0
expect_grep '"inline_io"' "$TMP/ri.json"
expect_grep '"inline": "always"' "$TMP/ri.json"
expect_grep '"ios": 300,' "$TMP/ri.json"
expect_status 2 "$IOSTORM" replay "$TMP/w.csv" --target "$TMP/t.img" --inline sometimes
expect_grep "bad --inline 'sometimes' \\(auto, never, always\\)" "$TMP/err"

# 1c. the spin window: fixed by default and with --spin T (the largest
# window used is T), learned with --spin auto (never below 40 us).
expect_grep '"spin_adaptive": false' "$TMP/r.json"
expect_grep '"wake_margin_max_ns": 40000,' "$TMP/r.json"
expect_grep '"oversleep_max_ns": [0-9]' "$TMP/r.json"
expect_status 0 "$IOSTORM" replay "$TMP/w.csv" --null --spin 100us --json "$TMP/rs.json"
expect_grep '"wake_margin_max_ns": 100000,' "$TMP/rs.json"
expect_status 0 "$IOSTORM" replay "$TMP/w.csv" --null --spin auto --json "$TMP/ra.json"
expect_grep '"spin_adaptive": true' "$TMP/ra.json"
margin=$(sed -n 's/.*"wake_margin_max_ns": \([0-9]*\).*/\1/p' "$TMP/ra.json")
[ "$margin" -ge 40000 ] && [ "$margin" -le 500000 ] || fail "learned spin window $margin ns outside [40 us, 500 us]"
expect_status 2 "$IOSTORM" replay "$TMP/w.csv" --null --spin often
expect_grep "bad --spin 'often'" "$TMP/err"

# 2. strict: a target too small is refused before anything is written.
truncate -s 512K "$TMP/small.img"
expect_status 1 "$IOSTORM" replay "$TMP/w.csv" --target "$TMP/small.img"
expect_err_line "small.img: refused: trace device 0 .* reaches byte 1228800, beyond the target's 524288 bytes"
expect_eq "$(od -A n -v -t x1 "$TMP/small.img" | tr -d ' 0\n' | wc -c)" 0 "nothing written on refusal"

# 3. wrap: offsets modulo the target, never past its end.
expect_status 0 "$IOSTORM" replay "$TMP/w.csv" --target "$TMP/small.img" --remap wrap \
	--data stamp --timing afap --json "$TMP/wrap.json"
expect_eq "$(stat -c %s "$TMP/small.img")" 524288 "wrap keeps the size"
expect_grep '"wrapped": 172,' "$TMP/wrap.json"
# each wrapped offset aligned for O_DIRECT: every I/O done, none failed
expect_grep '"ios": 300,' "$TMP/wrap.json"
expect_eq "$(errors_of "$TMP/wrap.json")" 0 "I/O errors with --remap wrap"
# overlapping wraps: the stamps present must sit at their own offsets
od -A d -t x1 -v -w512 "$TMP/small.img" | awk '
	function hx(h) { return index("0123456789abcdef", substr(h, 1, 1)) * 16 + index("0123456789abcdef", substr(h, 2, 1)) - 17 }
	function le(a, b,   v, k) { v = 0; for (k = b; k >= a; k--) v = v * 256 + hx($k); return v }
	$2 == "49" && $3 == "53" && le(14, 21) != $1 { bad = 1 } END { exit bad }' ||
	fail "wrapped stamp at a wrong offset"
ok

# 4. scale: offsets scaled onto a smaller target, all inside it.
truncate -s 0 "$TMP/small.img"; truncate -s 600K "$TMP/small.img"
expect_status 0 "$IOSTORM" replay "$TMP/w.csv" --target "$TMP/small.img" --remap scale \
	--timing afap --json "$TMP/scale.json"
expect_grep '"scaled": 300,' "$TMP/scale.json"
expect_grep '"skipped_beyond_end": 0,' "$TMP/scale.json"
expect_grep '"ios": 300,' "$TMP/scale.json"
expect_eq "$(errors_of "$TMP/scale.json")" 0 "I/O errors with --remap scale"
expect_eq "$(stat -c %s "$TMP/small.img")" 614400 "scale keeps the size"
# a ratio that lands between blocks (700 KiB of 1200): aligned down
truncate -s 0 "$TMP/small.img"; truncate -s 700K "$TMP/small.img"
expect_status 0 "$IOSTORM" replay "$TMP/w.csv" --target "$TMP/small.img" --remap scale \
	--timing afap --json "$TMP/scale7.json"
expect_grep '"ios": 300,' "$TMP/scale7.json"
expect_eq "$(errors_of "$TMP/scale7.json")" 0 "I/O errors with --remap scale onto 700 KiB"

# 5. --read-only: writes skipped and counted; alignment counted.
awk -v hdr="$HDR" 'BEGIN { print hdr; for (i = 0; i < 40; i++)
	printf "%d,0,%s,%d,%d,0,0,0,\n", i * 1000, i % 2 ? "read" : "write", i * 1000 + 100, 1000 }' >"$TMP/mix.csv"
truncate -s 1M "$TMP/m.img"
expect_status 0 "$IOSTORM" replay "$TMP/mix.csv" --target "$TMP/m.img" --read-only --json "$TMP/ro.json"
expect_grep '"skipped_read_only": 20,' "$TMP/ro.json"
expect_grep '"realigned": 20,' "$TMP/ro.json"
expect_grep '"ios": 20,' "$TMP/ro.json"

# 6. the null back-end needs no target and counts every record.
expect_status 0 "$IOSTORM" replay "$TMP/mix.csv" --null --json "$TMP/null.json"
expect_grep '"backend": "null"' "$TMP/null.json"
expect_grep '"ios": 40,' "$TMP/null.json"

# 6b. a window of an IST trace of 20 chunks (the reader seeks to --from
# through the chunk index), looped: the 100 records of [15.5 ms, 15.6 ms)
# twice, the second pass one mean gap after the first; as from the CSV
awk -v hdr="$HDR" 'BEGIN { print hdr; for (i = 0; i < 20000; i++)
	printf "%d,0,read,%d,4096,0,0,0,\n", i * 1000, i * 4096 }' >"$TMP/seq.csv"
expect_status 0 "$IOSTORM" convert -c 1000 "$TMP/seq.csv" "$TMP/seq.ist"
for src in seq.ist seq.csv; do
	expect_status 0 "$IOSTORM" replay "$TMP/$src" --null --from 15.5ms --to 15.6ms --loop 2 \
		--json "$TMP/win.json" --quiet
	expect_grep '^    "ios": 200,$' "$TMP/win.json"
	expect_grep '^    "schedule_ns": 199000,$' "$TMP/win.json"
	expect_grep '"from_ns": 15500000,' "$TMP/win.json"
done

# 7. device mapping: DEV=PATH, a device without a target is refused.
awk -v hdr="$HDR" 'BEGIN { print hdr; print "0,0,read,0,4096,0,0,0,"; print "10,1,read,4096,4096,0,0,0," }' >"$TMP/two.csv"
expect_status 1 "$IOSTORM" replay "$TMP/two.csv" --target 0="$TMP/m.img"
expect_err_line "trace device 1 \(dev1\) has no --target"
expect_status 0 "$IOSTORM" replay "$TMP/two.csv" --target 0="$TMP/m.img" --target 1="$TMP/t.img" \
	--json "$TMP/two.json"
expect_grep '"ios": 2,' "$TMP/two.json"

# 8. write data patterns: compressible, dedupable, random, zero.
gz_ratio() { echo "$(stat -c %s "$1") $(gzip -c "$1" | wc -c)" | awk '{ printf "%.2f", $1 / $2 }'; }
for spec in random zero compress:4 dedupe:50; do
	rm -f "$TMP/d.img"
	expect_status 0 "$IOSTORM" replay "$TMP/w.csv" --target "$TMP/d.img" --create --data "$spec" --timing afap \
		--json "$TMP/d.json"
	# the result says which data was written (compress:4 as its ratio)
	expect_grep "\"data\": \"$(echo "$spec" | sed 's/^compress:4$/compress:4.00/')\"," "$TMP/d.json"
	r=$(gz_ratio "$TMP/d.img")
	mkdir -p "$TMP/blk" && rm -f "$TMP/blk/"* && (cd "$TMP/blk" && split -b 4096 "$TMP/d.img")
	u=$(for b in "$TMP/blk/"*; do md5sum <"$b"; done | sort -u | wc -l)
	case $spec in
	random) awk -v r="$r" 'BEGIN { exit !(r < 1.05) }' || fail "random data compresses $r:1"; expect_eq "$u" 300 "unique random blocks" ;;
	zero) expect_eq "$u" 1 "unique zero blocks" ;;
	compress:4) awk -v r="$r" 'BEGIN { exit !(r > 3 && r < 5) }' || fail "compress:4 gives $r:1" ;;
	dedupe:50) [ "$u" -ge 120 ] && [ "$u" -le 195 ] || fail "dedupe:50: $u unique blocks of 300" ;;
	esac
	ok
done

# 9. closed loop on the null back-end: transactions and TPS-eq reported;
# a faster device gives more TPS-eq than a slower one.
awk -v hdr="$HDR" 'BEGIN { print hdr; for (i = 0; i < 400; i++)
	printf "%d,0,read,%d,4096,100000,%d,%d,dependent\n", int(i / 4) * 150000 + (i % 4) * 10, i * 4096, i % 4 + 1, int(i / 16) + 1 }' >"$TMP/cl.csv"
expect_status 0 "$IOSTORM" replay "$TMP/cl.csv" --null --timing closed --null-latency 20us --json "$TMP/cf.json"
expect_grep '^transactions 100, TPS-eq ' "$TMP/out"
expect_grep '"timing": "closed"' "$TMP/cf.json"
expect_status 0 "$IOSTORM" replay "$TMP/cl.csv" --null --timing closed --null-latency 2ms --json "$TMP/cs.json"
tps() { awk '/"transactions":/ { t = 1 } t && /"tps":/ { gsub(/[^0-9.]/, "", $2); print $2; exit }' "$1"; }
awk -v f="$(tps "$TMP/cf.json")" -v s="$(tps "$TMP/cs.json")" 'BEGIN { exit !(f > 1.5 * s) }' ||
	fail "closed loop: TPS-eq fast $(tps "$TMP/cf.json") vs slow $(tps "$TMP/cs.json")"
ok
awk -F, -v OFS=, 'NR > 1 { $8 = 0 } { print }' "$TMP/cl.csv" >"$TMP/cl0.csv"
expect_status 0 "$IOSTORM" replay "$TMP/cl0.csv" --null --timing closed --txn-per 2 --json "$TMP/tp.json"
expect_grep '^transactions 200, ' "$TMP/out"

# 10. bad input: one line naming file and line; usage errors exit 2.
printf '%s\n0,0,read,0,4096,0,0,0,\n5,0,bogus,0,1,0,0,0,\n' "$HDR" >"$TMP/bad.csv"
expect_status 1 "$IOSTORM" replay "$TMP/bad.csv" --null
expect_err_line "bad.csv: line 3: "
expect_status 2 "$IOSTORM" replay "$TMP/mix.csv"
expect_status 2 "$IOSTORM" replay "$TMP/mix.csv" --null --remap sideways
expect_status 2 "$IOSTORM" replay "$TMP/mix.csv" --null --iodepth 0
expect_status 1 "$IOSTORM" replay "$TMP/missing.csv" --null
expect_err_line "missing.csv: "
# results written over the trace or a target, or where they cannot be
# written, are refused before the run (--json t.ist replaced the trace)
"$IOSTORM" convert "$TMP/mix.csv" "$TMP/keep.ist" || fail "convert"
sum=$(cksum <"$TMP/keep.ist")
expect_status 1 "$IOSTORM" replay "$TMP/keep.ist" --null --timing afap --json "$TMP/keep.ist"
expect_err_line "^iostorm: $TMP/keep.ist: is also an input \(it would be replaced\)$"
expect_status 1 "$IOSTORM" replay "$TMP/keep.ist" --null --timing afap --csv-intervals "$TMP/keep.ist"
expect_err_line "^iostorm: $TMP/keep.ist: is also an input \(it would be replaced\)$"
expect_eq "$(cksum <"$TMP/keep.ist")" "$sum" "the trace after refused results"
expect_status 1 "$IOSTORM" replay "$TMP/keep.ist" --target "$TMP/new.img" --create --size 1M \
	--timing afap --json "$TMP/new.img"
expect_err_line "^iostorm: $TMP/new.img: is also an input \(it would be replaced\)$"
[ ! -e "$TMP/new.img" ] || fail "target created before a refusal"; ok
expect_status 1 "$IOSTORM" replay "$TMP/keep.ist" --null --timing afap --json "$TMP/nodir/r.json"
expect_err_line "^iostorm: $TMP/nodir/r.json: cannot write the result there: No such file or directory$"
[ ! -s "$TMP/out" ] || fail "replay ran before the result check"; ok
expect_status 2 "$IOSTORM" replay "$TMP/keep.ist" --null --json "$TMP/r.x" --csv-intervals "$TMP/r.x"
# the trace as its own target: its writes overwrote the trace being read
expect_status 1 "$IOSTORM" replay "$TMP/keep.ist" --target "$TMP/./keep.ist" --create --timing afap
expect_err_line "^iostorm: $TMP/./keep.ist: refused: the target is the trace being replayed \(its writes would overwrite it\)$"
expect_eq "$(cksum <"$TMP/keep.ist")" "$sum" "the trace after replaying it onto itself"
expect_status 0 "$IOSTORM" replay --help
expect_grep '^Usage: iostorm replay' "$TMP/out"
done_ok
