#!/bin/sh
# SPDX-License-Identifier: MIT
# result_tmp.sh - replay's --json and --csv-intervals, sweep's -o,
# synth's, convert's, annotate's, report's, import's and export's outputs
# write through a new temporary name beside the result (OUT.TAG-PID-N, one
# mechanism: istint_tmp_create()), never a fixed or predictable one
# (PATH.tmp, PATH.synth-PID, OUT.converting-PID): a user's file (or
# symbolic link) of that name stays untouched, whether the run
# succeeds or fails, and a failed write leaves neither the result nor a
# temporary file.  (PATH.tmp was written through, then removed on failure.)
. "$top_srcdir/tests/cli/lib.sh"

expect_status 0 "$IOSTORM" synth sysbench-oltp -d 100ms -o "$TMP/s.ist"
mkdir "$TMP/o"
echo "the user's" >"$TMP/o/r.json.tmp"
echo "the user's" >"$TMP/victim"
ln -s "$TMP/victim" "$TMP/o/r.csv.tmp"
echo "the user's" >"$TMP/o/sw.json.tmp"

# untouched: the files named PATH.tmp, and what a link of that name points to
untouched() {
	for f in "$TMP/o/r.json.tmp" "$TMP/victim" "$TMP/o/sw.json.tmp"; do
		expect_eq "$(cat "$f")" "the user's" "$1: $f"
	done
	[ -L "$TMP/o/r.csv.tmp" ] || fail "$1: the link r.csv.tmp replaced"
	ok
}
# nothing else in the directory than the named files
only() {
	expect_eq "$(cd "$TMP/o" && ls | tr '\n' ' ')" "$1" "$2: files left"
}

expect_status 0 "$IOSTORM" replay "$TMP/s.ist" --null --virtual-time --quiet \
	--json "$TMP/o/r.json" --csv-intervals "$TMP/o/r.csv"
expect_grep '"ios": 3260,' "$TMP/o/r.json"
expect_grep '^start_ns,length_ns,ios' "$TMP/o/r.csv"
untouched "replay"
only "r.csv r.csv.tmp r.json r.json.tmp sw.json.tmp " "replay"
# a result made with mode 0666 less the umask, as a plain open would
expect_eq "$(umask 022 && rm -f "$TMP/o/r.json" &&
	"$IOSTORM" replay "$TMP/s.ist" --null --virtual-time --quiet \
		--json "$TMP/o/r.json" && stat -c %a "$TMP/o/r.json")" 644 "mode"
expect_status 0 "$IOSTORM" sweep "$TMP/s.ist" --null --threads 1 --qd 1 \
	--rates none --point 100ms -o "$TMP/o/sw.json"
expect_grep '"schema": ?"iostorm-sweep/1"' "$TMP/o/sw.json"
untouched "sweep"

# a write that fails (a file size limit: EFBIG, SIGXFSZ ignored) leaves no
# result and no temporary file; the user's files stay
rm -f "$TMP/o/r.json" "$TMP/o/r.csv" "$TMP/o/sw.json"
for cmd in "replay $TMP/s.ist --null --virtual-time --quiet --json $TMP/o/r.json" \
	   "replay $TMP/s.ist --null --virtual-time --quiet --interval 5ms --csv-intervals $TMP/o/r.csv" \
	   "sweep $TMP/s.ist --null --threads 1 --qd 1 --rates none --point 100ms -o $TMP/o/sw.json"; do
	# ulimit -f 1: 512 or 1024 bytes, enough for the messages only
	sh -c "trap '' XFSZ; ulimit -f 1; exec \"\$0\" \"\$@\"" "$IOSTORM" $cmd \
		>"$TMP/out" 2>"$TMP/err"
	expect_eq "$?" 1 "$cmd: exit status"
	expect_grep 'File too large' "$TMP/err"
	untouched "$cmd"
	only "r.csv.tmp r.json.tmp sw.json.tmp " "$cmd"
done

# synth wrote through PATH.synth-PID: a link of that name (the PID known:
# sh execs iostorm) had its target overwritten, IST and CSV alike
for ext in ist csv; do
	echo "the user's" >"$TMP/victim"
	sh -c 'ln -s "$1/victim" "$1/o/y.'$ext'.synth-$$" && exec "$2" synth sysbench-oltp -d 50ms \
		-o "$1/o/y.'$ext'"' sh "$TMP" "$IOSTORM" >"$TMP/out" 2>"$TMP/err"
	expect_eq "$?" 0 "synth -o y.$ext: exit status"
	expect_eq "$(cat "$TMP/victim")" "the user's" "synth -o y.$ext: the link's target"
	ls "$TMP/o"/y.$ext.synth-* >/dev/null 2>&1 || fail "synth -o y.$ext: the link removed"
	if [ $ext = ist ]; then
		expect_status 0 "$IOSTORM" info "$TMP/o/y.$ext"
	else
		expect_grep '^t_ns,dev,op,' "$TMP/o/y.$ext"
	fi
	rm -f "$TMP/o"/y.$ext*
done
only "r.csv.tmp r.json.tmp sw.json.tmp " "synth"

# export wrote through OUT.tmpPID (fopen "w") and import through
# OUT.importing-PID-0 (O_TRUNC): a link of that name had its target
# overwritten; now each takes a new name, after any that exists
echo "the user's" >"$TMP/victim"
sh -c 'ln -s "$1/victim" "$1/o/e.csv.exporting-$$-0" && ln -s "$1/victim" "$1/o/e.csv.tmp$$" &&
	exec "$2" export -f csv "$1/s.ist" -o "$1/o/e.csv"' sh "$TMP" "$IOSTORM" >"$TMP/out" 2>"$TMP/err"
expect_eq "$?" 0 "export: exit status"
expect_eq "$(cat "$TMP/victim")" "the user's" "export: the link's target"
expect_grep '^t_ns,dev,op,' "$TMP/o/e.csv"
expect_eq "$(ls "$TMP/o" | grep -c '^e\.csv\.')" 2 "export: the links stay, no temporary file left"
rm -f "$TMP/o"/e.csv*
expect_status 0 "$IOSTORM" export -f csv "$TMP/s.ist" -o "$TMP/s.csv"
sh -c 'ln -s "$1/victim" "$1/o/i.ist.importing-$$-0" &&
	exec "$2" import "$1/s.csv" -o "$1/o/i.ist"' sh "$TMP" "$IOSTORM" >"$TMP/out" 2>"$TMP/err"
expect_eq "$?" 0 "import: exit status"
expect_eq "$(cat "$TMP/victim")" "the user's" "import: the link's target"
expect_status 0 "$IOSTORM" info "$TMP/o/i.ist"
expect_eq "$(ls "$TMP/o" | grep -c '^i\.ist\.')" 1 "import: the link stays, no temporary file left"
rm -f "$TMP/o"/i.ist*
only "r.csv.tmp r.json.tmp sw.json.tmp " "export, import"

# convert (IST: OUT.converting-PID opened with O_TRUNC; CSV: mkstemp),
# annotate (OUT.annotating-PID, O_TRUNC) and report (mkstemp) had their
# own temporary files: a link at convert's and annotate's predictable
# names had its target overwritten.  Now all take a new OUT.TAG-PID-N as
# every other command does: links of the old and the new first names stay
# links, their target untouched
# made OUT TAG CMD...: runs CMD with links OUT.TAG-PID and OUT.TAG-PID-0
# to the victim made first (sh execs iostorm: the PID is known)
made() {
	mo=$1 mtag=$2
	shift 2
	echo "the user's" >"$TMP/victim"
	sh -c 'o=$1 tag=$2; shift 2
	       ln -s "'"$TMP"'/victim" "$o.$tag-$$" && ln -s "'"$TMP"'/victim" "$o.$tag-$$-0" &&
	       exec "$@"' sh "$TMP/o/$mo" "$mtag" "$IOSTORM" "$@" >"$TMP/out" 2>"$TMP/err"
}
for o in c.ist c.csv; do
	made $o converting convert "$TMP/s.ist" "$TMP/o/$o"
	expect_eq "$?" 0 "convert to $o: exit status"
	expect_eq "$(cat "$TMP/victim")" "the user's" "convert to $o: the link's target"
	expect_eq "$(ls "$TMP/o" | grep -c "^$o\.converting-")" 2 "convert to $o: the links stay, no temporary file left"
	expect_status 0 "$IOSTORM" stats "$TMP/o/$o"
	expect_grep '^records +3260 over' "$TMP/out"
	rm -f "$TMP/o/$o"*
done
made a.ist annotating annotate -q "$TMP/s.ist" -o "$TMP/o/a.ist"
expect_eq "$?" 0 "annotate: exit status"
expect_eq "$(cat "$TMP/victim")" "the user's" "annotate: the link's target"
expect_eq "$(ls "$TMP/o" | grep -c '^a\.ist\.annotating-')" 2 "annotate: the links stay, no temporary file left"
expect_status 0 "$IOSTORM" info "$TMP/o/a.ist"
rm -f "$TMP/o"/a.ist*
expect_status 0 "$IOSTORM" replay "$TMP/s.ist" --null --virtual-time --quiet --json "$TMP/r.json"
made p.html tmp report "$TMP/r.json" -o "$TMP/o/p.html"
expect_eq "$?" 0 "report: exit status"
expect_eq "$(cat "$TMP/victim")" "the user's" "report: the link's target"
expect_eq "$(ls "$TMP/o" | grep -c '^p\.html\.tmp-')" 2 "report: the links stay, no temporary file left"
expect_grep '</html>' "$TMP/o/p.html"
# the report's mode is 0666 less the umask, as every output's (it was
# chmod 0644 whatever the umask)
rm -f "$TMP/o"/p.html*
expect_eq "$(umask 077 && "$IOSTORM" report "$TMP/r.json" -o "$TMP/o/p.html" &&
	stat -c %a "$TMP/o/p.html")" 600 "report mode"
rm -f "$TMP/o"/p.html*
only "r.csv.tmp r.json.tmp sw.json.tmp " "convert, annotate, report"
done_ok
