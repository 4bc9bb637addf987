#!/bin/sh
# SPDX-License-Identifier: MIT
# import_empty.sh - an input without data, or without a single I/O record,
# is an error naming the file (an empty trace replays nothing; with
# --format nothing else noticed: import wrote an empty trace, exit 0);
# standard input and pipes are read once, detection included.
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/import"

: >"$TMP/empty"
for f in fio blkparse msr systor vscsi-csv spc alibaba tencent disksim mqsim vscsi ist-csv csv; do
	expect_status 1 "$IOSTORM" import -q --format $f "$TMP/empty" -o "$TMP/e.ist"
	expect_err_line "^iostorm: $TMP/empty: empty input$"
	[ ! -e "$TMP/e.ist" ] || fail "$f: output written for an empty input"
	ls "$TMP" | grep -q importing && fail "$f: temporary output left behind"
	expect_status 1 "$IOSTORM" import -q --check --format $f "$TMP/empty"
	expect_err_line "^iostorm: $TMP/empty: empty input$"
done
# detected: the same reason
expect_status 1 "$IOSTORM" import -q "$TMP/empty" -o "$TMP/e.ist"
expect_err_line "^iostorm: $TMP/empty: empty input$"
# compressed nothing is nothing
gzip -c <"$TMP/empty" >"$TMP/empty.gz"
expect_status 1 "$IOSTORM" import -q --format msr "$TMP/empty.gz" -o "$TMP/e.ist"
expect_err_line "^iostorm: $TMP/empty.gz: empty input$"
# one empty file among several is as much a mistake
expect_status 1 "$IOSTORM" import -q --format msr "$D/msr.csv" "$TMP/empty" -o "$TMP/e.ist"
expect_err_line "^iostorm: $TMP/empty: empty input$"
[ ! -e "$TMP/e.ist" ] || fail "output written with an empty input among others"
# a pcap: the capture reader's own message
expect_status 1 "$IOSTORM" import -q --format pcap "$TMP/empty" -o "$TMP/e.ist"
expect_err_line "^iostorm: $TMP/empty: "
# blktrace: an idle CPU's file is empty, the others carry the trace
cp "$D/blk-le.blktrace.0" "$TMP/blk.blktrace.0"
: >"$TMP/blk.blktrace.1"
expect_status 0 "$IOSTORM" import "$TMP/blk" -o "$TMP/blk.ist"
expect_grep '^imported 2 records from 2 files \(format blktrace\)' "$TMP/out"
expect_grep '^cpu_files 2$' "$TMP/out"
# ... but all of them empty is no trace
: >"$TMP/idle.blktrace.0"
: >"$TMP/idle.blktrace.1"
expect_status 1 "$IOSTORM" import -q --format blktrace "$TMP/idle" -o "$TMP/e.ist"
expect_err_line "^iostorm: $TMP/idle.blktrace.0: no I/O records in any of the 2 inputs \(format blktrace\)$"
[ ! -e "$TMP/e.ist" ] || fail "blktrace: output written without records"

# data, but no I/O record: blank lines, a header only
printf '\n\n\n' >"$TMP/blank.csv"
expect_status 1 "$IOSTORM" import -q --format msr "$TMP/blank.csv" -o "$TMP/e.ist"
expect_err_line "^iostorm: $TMP/blank.csv: no I/O records \(format msr\)$"
expect_status 1 "$IOSTORM" import -q --check --format msr "$TMP/blank.csv"
expect_err_line "^iostorm: $TMP/blank.csv: no I/O records \(format msr\)$"
head -1 "$D/ist.csv" >"$TMP/header.csv"
expect_status 1 "$IOSTORM" import -q "$TMP/header.csv" -o "$TMP/e.ist"
expect_err_line "^iostorm: $TMP/header.csv: no I/O records \(format ist-csv\)$"
[ ! -e "$TMP/e.ist" ] || fail "output written without records"
# every record bad and skipped
sed -n 2p "$D/msr-bad.csv" >"$TMP/allbad.csv"
expect_status 1 "$IOSTORM" import -q --format msr --skip-bad 5 "$TMP/allbad.csv" -o "$TMP/e.ist"
expect_err_line "^iostorm: $TMP/allbad.csv: no I/O records \(format msr, 1 bad record skipped\)$"
[ ! -e "$TMP/e.ist" ] || fail "output written with every record skipped"

# standard input: detection looks at the same bytes the importer then
# reads (it reopened the input, and a pipe gave an empty trace, exit 0)
expect_status 0 "$IOSTORM" import -q --format msr - -o "$TMP/ref.ist" <"$D/msr.csv"
expect_status 0 "$IOSTORM" cat "$TMP/ref.ist"
mv "$TMP/out" "$TMP/ref.csv"
# (piped inside sh -c: a shell function at the end of a pipeline runs in
# a subshell, where fail would not end the test)
piped() { expect_status "$1" sh -c "$2 | \"\$0\" import \"\$@\"" "$IOSTORM" - -o "$3"; }
piped 0 "cat '$D/msr.csv'" "$TMP/pipe.ist"
expect_grep '^imported 4 records from 1 file \(format msr\)' "$TMP/out"
expect_status 0 "$IOSTORM" cat "$TMP/pipe.ist"
cmp -s "$TMP/out" "$TMP/ref.csv" || fail "records from a pipe differ"
ok
piped 0 "gzip -c <'$D/msr.csv'" "$TMP/pipe.ist"
expect_grep '^imported 4 records' "$TMP/out"
expect_status 0 "$IOSTORM" import - -o "$TMP/redir.ist" <"$D/msr.csv"
expect_grep '^imported 4 records' "$TMP/out"
piped 0 "cat '$D/blk-le.blktrace.0'" "$TMP/pipe.ist"
expect_grep '^imported 2 records from 1 file \(format blktrace\)' "$TMP/out"
expect_status 1 "$IOSTORM" import --format tencent - -o "$TMP/e.ist" <"$TMP/empty"
expect_err_line "^iostorm: -: empty input$"
# a capture is read in two passes: not from standard input
expect_status 1 "$IOSTORM" import - -o "$TMP/e.ist" <"$DATA/capture/nbd.pcap"
expect_err_line "^iostorm: -: a capture is read twice: give a file, not standard input$"
[ ! -e "$TMP/e.ist" ] || fail "output written from a pcap on standard input"
done_ok
