#!/bin/sh
# SPDX-License-Identifier: MIT
# annotate.sh - `iostorm annotate` on a hand-made OLTP-like trace: the log
# device found, commits marked, transactions numbered, dependencies set;
# bad rules, bad input and no leftover output on failure.
. "$top_srcdir/tests/cli/lib.sh"

# 4 clients; each transaction: a data read on dev 0, a 512 B sync log
# append on dev 1, a flush on dev 1; each I/O issued after the previous
# of its stream completed.
awk 'BEGIN {
	print "t_ns,dev,op,offset,len,lat_ns,stream,txn,flags"
	t = 0; lg = 0
	for (i = 0; i < 100; i++) {
		s = 1 + i % 4
		printf "%d,0,read,%d,8192,200000,%d,0,\n", t, (i * 7919 % 1000) * 8192, s; t += 300000
		printf "%d,1,write,%d,512,50000,%d,0,sync\n", t, lg, s; lg += 512; t += 60000
		printf "%d,1,flush,0,0,30000,%d,0,\n", t, s; t += 40000
	}
}' >"$TMP/t.csv"
expect_status 0 "$IOSTORM" convert "$TMP/t.csv" "$TMP/t.ist"
expect_status 0 "$IOSTORM" annotate "$TMP/t.ist" -o "$TMP/a.ist"
expect_grep '^log device: +1 .*detected, confidence 1\.00' "$TMP/out"
expect_grep '^commit markers: 100$' "$TMP/out"
expect_grep '^transactions: +100$' "$TMP/out"
expect_grep '^dependent I/O: +296 ' "$TMP/out"
expect_status 0 "$IOSTORM" cat "$TMP/a.ist"
cp "$TMP/out" "$TMP/a.csv"
# every flush commits, nothing else does
expect_eq "$(grep -c 'commit' "$TMP/a.csv")" 100 "commit flags"
expect_eq "$(grep ',flush,' "$TMP/a.csv" | grep -vc commit)" 0 "flushes without commit"
# stream 2's third transaction: its I/Os carry txn 3
expect_eq "$(awk -F, '$7 == 2 && $8 == 3' "$TMP/a.csv" | wc -l)" 3 "I/Os of stream 2 txn 3"
# the first I/O of each stream is not dependent; all others are
expect_eq "$(grep -c dependent "$TMP/a.csv")" 296 "dependent records"

# a named log device and explicit rules: only log writes commit
expect_status 0 "$IOSTORM" annotate "$TMP/t.ist" -o "$TMP/b.ist" --log-dev 1 \
	--commit 'dev=log,op=write' -q
expect_eq "$(wc -c <"$TMP/out")" 0 "quiet output"
expect_status 0 "$IOSTORM" cat "$TMP/b.ist"
cp "$TMP/out" "$TMP/b.csv"
expect_eq "$(grep ',write,' "$TMP/b.csv" | grep -c commit)" 100 "write commits"
expect_eq "$(grep ',flush,' "$TMP/b.csv" | grep -c commit)" 0 "flush commits"

# stream inference: drop the streams and get 1 chain back (each I/O
# follows the previous completion within 2 ms)
awk -F, 'NR == 1 { print; next } { $7 = 0; print }' OFS=, "$TMP/t.csv" >"$TMP/n.csv"
"$IOSTORM" convert "$TMP/n.csv" "$TMP/n.ist" || fail "convert n.csv"
expect_status 0 "$IOSTORM" annotate "$TMP/n.ist" -o "$TMP/c.ist" --window 5ms
expect_grep '^streams: +1 \(inferred from timing\)' "$TMP/out"

# --flush-owner: the flushes issued by a kernel worker (stream 99) go
# back to the client that wrote the log just before
awk -F, 'NR == 1 { print; next } $3 == "flush" { $7 = 99 } { print }' OFS=, "$TMP/t.csv" >"$TMP/k.csv"
"$IOSTORM" convert "$TMP/k.csv" "$TMP/k.ist" || fail "convert k.csv"
expect_status 0 "$IOSTORM" annotate "$TMP/k.ist" -o "$TMP/k1.ist"
expect_grep '^streams: +5 ' "$TMP/out"
expect_status 0 "$IOSTORM" annotate "$TMP/k.ist" -o "$TMP/k2.ist" --flush-owner
expect_grep '^flush owners: +100 flushes given to their writer$' "$TMP/out"
expect_grep '^streams: +4 ' "$TMP/out"
expect_status 0 "$IOSTORM" cat "$TMP/k2.ist"
cp "$TMP/out" "$TMP/k2.csv"
cmp -s "$TMP/k2.csv" "$TMP/a.csv" || fail "--flush-owner did not restore the streams"

# --group-commits 2: 96 of the 100 commit cycles (each client's first has
# no previous commit) get a second commit
expect_status 0 "$IOSTORM" annotate "$TMP/k.ist" -o "$TMP/g.ist" --flush-owner --group-commits 2
expect_grep '^group commits: 96 commits inserted \(2\.00 per cycle\)$' "$TMP/out"
expect_grep '^transactions: +196$' "$TMP/out"
expect_eq "$("$IOSTORM" info "$TMP/g.ist" | awk '/^records:/ { print $2 }')" 492 "records with group commits"
expect_status 2 "$IOSTORM" annotate "$TMP/k.ist" -o "$TMP/x.ist" --group-commits 0.5
expect_status 0 "$IOSTORM" annotate --help
expect_grep 'is split into G commits on average \(1-1000\)$' "$TMP/out"

# no recorded latency: completions unknown, so no I/O is dependent
# (its stream's previous one may still have been in flight), and said so
awk -F, -v OFS=, 'NR > 1 { $6 = 0 } { print }' "$TMP/t.csv" >"$TMP/nolat.csv"
"$IOSTORM" convert "$TMP/nolat.csv" "$TMP/nolat.ist" || fail "convert nolat.csv"
expect_status 0 "$IOSTORM" annotate "$TMP/nolat.ist" -o "$TMP/nl.ist"
expect_grep '^dependent I/O: +0 ' "$TMP/out"
expect_grep '^warning: +300 records without recorded latency: their dependencies cannot be inferred$' "$TMP/out"
expect_grep '^commit markers: 100$' "$TMP/out"

# usage errors: exit 2
# ('' and ',' name no field: every I/O was a commit)
for rule in 'op=fly' 'dev=65536' 'dev=-1' 'dev' 'flags=' 'flags=sync|' 'colour=red' 'dev=log,op=' '' ','; do
	expect_status 2 "$IOSTORM" annotate "$TMP/t.ist" -o "$TMP/x.ist" --commit "$rule"
	expect_eq "$(head -1 "$TMP/err")" "iostorm annotate: bad --commit rule '$rule'" "--commit '$rule'"
done
# a device the trace lacks: no commit at all, before
expect_status 2 "$IOSTORM" annotate "$TMP/t.ist" -o "$TMP/x.ist" --commit 'dev=0,op=flush' --commit 'dev=2,op=flush'
expect_eq "$(head -1 "$TMP/err")" "iostorm annotate: --commit: no device 2 in $TMP/t.ist; its devices: 0, 1" "annotate --commit dev=2"
[ ! -e "$TMP/x.ist" ] || fail "annotate --commit dev=2: output written"
expect_status 2 "$IOSTORM" annotate "$TMP/t.ist"
expect_status 2 "$IOSTORM" annotate "$TMP/t.ist" -o "$TMP/x.ist" --log-dev nosuch
# (a converted CSV without device lines: no names, the indexes it uses)
expect_eq "$(head -1 "$TMP/err")" "iostorm annotate: --log-dev: no device 'nosuch' in $TMP/t.ist; its devices: none named (give an index)" "annotate --log-dev nosuch"
expect_status 2 "$IOSTORM" annotate "$TMP/t.ist" -o "$TMP/x.ist" --log-dev 2
expect_eq "$(head -1 "$TMP/err")" "iostorm annotate: --log-dev: no device 2 in $TMP/t.ist; its devices: 0, 1" "annotate --log-dev 2"
expect_status 2 "$IOSTORM" annotate "$DATA/format/small.ist" -o "$TMP/x.ist" --log-dev sdz
expect_eq "$(head -1 "$TMP/err")" "iostorm annotate: --log-dev: no device 'sdz' in $DATA/format/small.ist; its devices: 0 (sda), 1 (nvme0n1), 2 (dm-0 with spaces)" "annotate --log-dev sdz"
[ ! -e "$TMP/x.ist" ] || fail "annotate wrote an output after a usage error"; ok
# bad input: one line, exit 1, no output left
printf 'not a trace\n' >"$TMP/bad.ist"
expect_status 1 "$IOSTORM" annotate "$TMP/bad.ist" -o "$TMP/x.ist"
expect_err_line "bad\.ist: .*"
[ ! -e "$TMP/x.ist" ] || fail "output left behind"
ok
done_ok
