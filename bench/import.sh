#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/import.sh - import speed per format (records/s, one core) on the
# largest real samples, replicated (times shifted forward, so the input
# stays in order) to a few million records in a temporary file.  "parse"
# is `import --check` (read, decompress, parse, count), "import" the whole
# conversion including sorting and writing the IST file.  The peer
# is awk reading the same file and summing one column (a floor for any text
# parser); for the binary formats `cat` shows the I/O floor.  Medians of
# RUNS runs.  Speeds are per CPU second (user + system time of the process
# pinned to one core), so that other load on the machine does not count.
# "write s" is the IST writer alone encoding the imported records from
# memory (bench/ist_speed's median encode rate, `make bench/ist_speed`;
# "-" without it): the floor of "import s" whatever the importer does.
#
#   bench/import.sh [RECORDS] [RUNS]     (defaults 4000000 and 3)
#
# FORMATS="tencent vscsi" runs only those; BENCH_INPUTS=DIR keeps the
# generated inputs in DIR and reuses them on later runs (same RECORDS).
# IMPORT_OPTS="--fast" adds options to the imports that write (and, for
# --fast or --fastest, has "write s" measure the writer at that effort
# too): IMPORT_OPTS=--fastest for the fastest writer.
#
# Needs the built ./iostorm, perl, bc, GNU time, taskset and
# ../shared/realdata (SHARED_DIR).  For blktrace and blkparse "records"
# are the trace events read (the D records written are far fewer).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-4000000}
RUNS=${2:-3}
R=${SHARED_DIR:-$PWD/../shared}/realdata
IOSTORM=${IOSTORM:-$PWD/iostorm}
[ -d "$R" ] || { echo "no $R" >&2; exit 77; }
W=$(mktemp -d "${TMPDIR:-/tmp}/iostorm-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
FORMATS=${FORMATS:-msr systor tencent mqsim vscsi-csv blkparse vscsi blktrace}
IN=${BENCH_INPUTS:-$W}
mkdir -p "$IN"

# replicate SRC to at least N records with perl, shifting times by the
# span of the sample each round; prints the record count
rep_text() { # FILE COUNT perl-line-code (uses $k, the round)
	perl -e '
		my ($f, $n, $code) = @ARGV;
		open my $in, "<", $f or die; my @l = <$in>; close $in;
		$l[-1] .= "\n" unless $l[-1] =~ /\n$/;
		my $sub = eval "sub { my (\$k) = \@_; $code }" or die $@;
		my $out = 0;
		for (my $k = 0; $out < $n; $k++) { for (@l) { local $_ = $_; $sub->($k); print; $out++; } }
	' "$@"
}

# $_ holds the line; $k the round number
prep() {
	local fmt=$1 out=$IN/$1.in
	if [ -s "$out" ] || [ -s "$out.blktrace.0" ]; then
		return 0
	fi
	case $fmt in
	msr) # FILETIME + k * 130 s; the high digits stay exact as a string
		rep_text "$R/caffeine-snia/msr-cambridge1-sample.csv" "$N" \
			's/^(\d{4})(\d{14})/$1 . sprintf("%014d", $2 + $k * 1300000000)/e' >"$out" ;;
	tencent)
		bzcat "$R/caffeine-snia/tencent-cbs-cloud_storage-sample.bz2" >"$W/t.src"
		rep_text "$W/t.src" "$N" 's/^(\d+)/$1 + $k * 7200/e' >"$out" ;;
	systor)
		zcat "$R/caffeine-snia/systor17-traces-sample.csv.gz" | tail -n +2 >"$W/s.src"
		rep_text "$W/s.src" "$N" 's/^(\d+)/$1 + $k * 100/e' >"$out" ;;
	mqsim)
		rep_text "$R/mqsim/wsrch-small.trace" "$N" 's/^(\d+)/$1 + $k * 2000000000000/e' >"$out" ;;
	vscsi-csv)
		tail -n +2 "$R/vscsi-cloudphysics/cloudPhysicsIO.csv" >"$W/v.src"
		rep_text "$W/v.src" "$N" 's/^1,(\d+)/"1," . ($1 + $k * 10000000)/e' >"$out" ;;
	blkparse)
		grep -E '^ *[0-9]+,[0-9]+ ' "$R/apress-blkparse/blktrace.txt" >"$W/b.src"
		rep_text "$W/b.src" "$N" 's/^(\s*\S+\s+\S+\s+\S+\s+)(\d+)\./$1 . ($2 + $k * 20) . "."/e' >"$out" ;;
	vscsi) # 32-byte records, ts (u64 at 24) + k * 10^10 us
		perl -e '
			my ($f, $n) = @ARGV; open my $in, "<:raw", $f or die; local $/; my $d = <$in>;
			my $c = length($d) / 32; binmode STDOUT; my $out = 0;
			for (my $k = 0; $out < $n; $k++) { for my $i (0 .. $c - 1) {
				my $r = substr($d, $i * 32, 32); my $ts = unpack("Q<", substr($r, 24, 8));
				substr($r, 24, 8) = pack("Q<", $ts + $k * 10000000000); print $r; $out++; } }
		' "$R/vscsi-cloudphysics/cloudPhysicsIO.vscsi" "$N" >"$out" ;;
	blktrace) # CPU1 file: records of 48 bytes + PDU, time (u64 at 8) + k * 10^12 ns
		perl -e '
			my ($f, $n) = @ARGV; open my $in, "<:raw", $f or die; local $/; my $d = <$in>;
			binmode STDOUT; my $out = 0;
			for (my $k = 0; $out < $n; $k++) { my $o = 0;
				while ($o + 48 <= length $d) { my $pl = unpack("v", substr($d, $o + 46, 2));
					my $r = substr($d, $o, 48 + $pl); my $t = unpack("Q<", substr($r, 8, 8));
					substr($r, 8, 8) = pack("Q<", $t + $k * 1000000000000); print $r; $o += 48 + $pl; $out++; } }
			open my $c, ">", "$ARGV[2]" or die; print $c "$out\n";
		' "$R/blktrace-bin/sda.blktrace.1" "$N" "$IN/events" >"$out.blktrace.0" ;;
	esac
}

SPEED=${IST_SPEED:-$PWD/bench/ist_speed}
read -r -a iopts <<<"${IMPORT_OPTS:-}"
sopts=()
case " ${IMPORT_OPTS:-} " in
*" --fast "*) sopts=(--fast) ;;
*" --fastest "*) sopts=(--fastest) ;;
esac

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
timeit() { # runs "$@" RUNS times, prints the median CPU seconds (user + sys)
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f '%U %S' -o "$W/time" "$@" >/dev/null 2>&1
		awk '{ print $1 + $2 }' "$W/time"
	done | median
}

printf '%-10s %9s %6s %11s %11s %8s %8s %8s %9s %8s %9s\n' format records MB "parse rec/s" "import r/s" "peer s" "parse s" "import s" "peer/imp" "write s" "write/imp"
for fmt in $FORMATS; do
	prep "$fmt"
	in=$IN/$fmt.in
	args=()
	case $fmt in
	blktrace) args=(--format blktrace); size=$(stat -c %s "$in.blktrace.0") ;;
	*) size=$(stat -c %s "$in") ;;
	esac
	"$IOSTORM" import "${iopts[@]}" "${args[@]}" "$in" -o "$W/o.ist" >"$W/summary"
	recs=$(sed -n 's/^imported \([0-9]*\) records.*/\1/p' "$W/summary")
	# blktrace: the work is the events read (Q, G, I, D, C, ...), not the
	# D records written
	[ "$fmt" != blktrace ] || recs=$(cat "$IN/events")
	# blkparse: likewise the event lines read (one D record per ~300 here)
	[ "$fmt" != blkparse ] || recs=$(wc -l <"$in")
	t=$(timeit taskset -c 0 "$IOSTORM" import -q "${iopts[@]}" "${args[@]}" "$in" -o "$W/o.ist")
	tp=$(timeit taskset -c 0 "$IOSTORM" import -q --check "${args[@]}" "$in")
	if [ "$fmt" = blktrace ] || [ "$fmt" = vscsi ]; then
		peer=$(timeit taskset -c 0 cat "${in}"* ); peer_name=cat
	else
		peer=$(timeit taskset -c 0 awk -F, '{ n++; s += $2 } END { print n, s }' "$in"); peer_name=awk
	fi
	wt=-
	if [ -x "$SPEED" ]; then
		wt=$(taskset -c 0 "$SPEED" "${sopts[@]}" "$W/o.ist" "$RUNS" |
			awk '{ printf "%.3f", $2 / $4 }')
	fi
	printf '%-10s %9d %6.0f %11.0f %11.0f %8.3f %8.3f %8.3f %9s %8s %9s\n' "$fmt" "$recs" "$(echo "$size / 1048576" | bc -l)" \
		"$(echo "$recs / $tp" | bc -l)" "$(echo "$recs / $t" | bc -l)" "$peer" "$tp" "$t" \
		"$(printf '%.2fx' "$(echo "$peer / $t" | bc -l)")$([ $peer_name = cat ] && echo '(cat)')" \
		"$wt" "$([ "$wt" = - ] && echo - || printf '%.2f' "$(echo "$wt / $t" | bc -l)")"
	rm -f "$W/o.ist"
	[ -n "${BENCH_INPUTS:-}" ] || rm -f "$in" "$in".blktrace.*
done
