#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/record-pool.sh - the recording's slowdown pooled over many rounds:
# runs bench/record.sh RUNS times (each run inside the measurement lock,
# $QUIET, one run at a time, so that other users of the machine get their
# turn between runs), keeps each run's output, and pools the rounds of one
# variant (default `record`) over all the runs:
#   - per run: its start, the load average before it (outside the lock and,
#     from record.sh, inside it), the median "other" (the share of the CPUs
#     busy with neither fio nor the recorder), its rounds' median slowdown,
#     CPU cost and recorder CPU per I/O, and whether every round's trace
#     held exactly fio's issued count with zero loss;
#   - pooled: the median slowdown, its quartiles, a bootstrap 95% confidence
#     interval of the median (percentile method; rounds resampled with
#     replacement, and, more conservative since the rounds of one run share
#     its conditions, whole runs resampled), the rounds under 10%, the
#     median CPU cost and recorder CPU per I/O, and the count check over
#     all rounds; the same over the idle runs only (median "other" at most
#     $IDLE_OTHER %);
#   - with PAIR=V (another variant of the same rounds, e.g. record2): the
#     per-round differences POOL - V of the slowdown and of the CPU cost,
#     their medians, quartiles and bootstrap CIs, and the rounds where
#     POOL was lower.
# The exit status is 1 if any round's count was not exact or lost events.
# Usage: bench/record-pool.sh RUNS [ROUNDS [SECONDS]]   (defaults 10 12 2)
#        bench/record-pool.sh --pool LOG...   (pools logs of earlier runs:
#            record.sh's output, or record-pool.sh's run-N.log files)
# Settings (environment): everything record.sh takes (ENGINE, JOBS, DEPTH:
# default psync 4 1, no calibration; VARIANTS, REC_OPTS, IOSTORM, PAIRS...);
# POOL=record (the variant pooled); PAIR=V (see above); OUT=DIR (the runs' logs; default a new
# /var/tmp/record-pool.XXXXXX); QUIET=/var/tmp/fx/quiet-run (the lock
# command; QUIET= for none); PAUSE=5 (seconds between runs); BOOT=10000
# (bootstrap resamples); SEED=1; IDLE_OTHER=5.
# Needs root, fio, zram and tracefs (through record.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
POOL=${POOL:-record}
BOOT=${BOOT:-10000}
SEED=${SEED:-1}
IDLE_OTHER=${IDLE_OTHER:-5}

if [ "${1:-}" = --pool ]; then
	shift
	[ $# -gt 0 ] || { echo "usage: $0 --pool LOG..." >&2; exit 2; }
	logs=("$@")
else
	RUNS=${1:?usage: $0 RUNS [ROUNDS [SECONDS]] | --pool LOG...}
	ROUNDS=${2:-12}
	SECS=${3:-2}
	export ENGINE=${ENGINE:-psync} JOBS=${JOBS:-4} DEPTH=${DEPTH:-1}
	QUIET=${QUIET-/var/tmp/fx/quiet-run}
	[ -z "$QUIET" ] || [ -x "$QUIET" ] || QUIET=
	OUT=${OUT:-$(mktemp -d /var/tmp/record-pool.XXXXXX)}
	mkdir -p "$OUT"
	echo "# record-pool: $RUNS runs of bench/record.sh $ROUNDS $SECS (ENGINE=$ENGINE JOBS=$JOBS" \
		"DEPTH=$DEPTH VARIANTS=${VARIANTS:-${MODE:-record}} PAIRS=${PAIRS:-0}), pooling $POOL; logs in $OUT"
	logs=()
	for n in $(seq "$RUNS"); do
		log=$OUT/run-$n.log
		{
			echo "# pool run $n: start $(date -u +%H:%M:%S) UTC, load before the lock" \
				"$(cut -d' ' -f1-3 /proc/loadavg)"
			# shellcheck disable=SC2086
			$QUIET "$top/bench/record.sh" "$ROUNDS" "$SECS" 2>&1 || echo "# record.sh exit $?"
		} >"$log"
		logs+=("$log")
		echo "# run $n: $(awk -v v="$POOL" '$2 == v && $1 ~ /^[0-9]+$/ { k++ } END { print k + 0 }' "$log")" \
			"rounds of $POOL, done $(date -u +%H:%M:%S) UTC"
		[ "$n" = "$RUNS" ] || sleep "${PAUSE:-5}"
	done
fi

# rows LOG RUNINDEX: "run slowdown cpu-cost rec-us-per-io exact" per round of
# the pooled variant (exact 1: the trace held fio's issued count, loss 0)
rows() {
	awk -v v="$POOL" -v r="$2" '$2 == v && $1 ~ /^[0-9]+$/ {
		rc = $11; sub(/s$/, "", rc)
		print r, $5 + 0, $8 + 0, ($9 > 0 ? 1e6 * rc / $9 : 0), ($9 == $10 && $14 == "0") }' "$1"
}
# runinfo LOG: "start loadbefore loadinside othermedian"
runinfo() {
	awk '/^# pool run/ { st = $6; lo = $12 }
		/^# load before:/ { li = $4 }
		/^# other / { o = $NF; sub(/%$/, "", o) }
		END { print (st == "" ? "-" : st), (lo == "" ? "-" : lo), (li == "" ? "-" : li), (o == "" ? "-" : o) }' "$1"
}

# diffs LOG RUNINDEX: "run slowdown-diff cpu-cost-diff rec-us-diff 1" per
# round that has both $POOL and $PAIR (POOL - PAIR)
diffs() {
	awk -v a="$POOL" -v b="$PAIR" -v r="$2" '$1 ~ /^[0-9]+$/ && ($2 == a || $2 == b) {
		rc = $11; sub(/s$/, "", rc); us = $9 > 0 ? 1e6 * rc / $9 : 0
		k = $2 == a ? "a" : "b"; s[k, $1] = $5 + 0; c[k, $1] = $8 + 0; u[k, $1] = us; seen[$1] = 1 }
		END { for (n in seen) if ((("a", n) in s) && (("b", n) in s))
			print r, s["a", n] - s["b", n], c["a", n] - c["b", n], u["a", n] - u["b", n], 1 }' "$1"
}
# stats FILE LABEL: the pooled figures of FILE's rows (see rows), sorted
# here by slowdown; the bootstrap through sort(1)
stats() {
	local f=$1 sorted nruns
	sorted=$(mktemp)
	sort -k2,2g "$f" >"$sorted"
	nruns=$(awk '{ print $1 }' "$f" | sort -u | wc -l)
	[ -s "$sorted" ] || { echo "$2: no rounds"; rm -f "$sorted"; return; }
	awk -v B="$BOOT" -v seed="$SEED" -v R="$nruns" '
		function kth(k,    i, c) { c = 0
			for (i = 1; i <= n; i++) { c += cnt[i]; if (c >= k) return x[i] } }
		function med(m) { return (m % 2) ? kth((m + 1) / 2) : (kth(m / 2) + kth(m / 2 + 1)) / 2 }
		{ n++; x[n] = $2; run[n] = $1
		  if (!($1 in rid)) { rid[$1] = ++nr; } ri = rid[$1]; mem[ri, ++sz[ri]] = n }
		END {
			srand(seed)
			# rounds resampled
			for (b = 1; b <= B; b++) {
				for (i = 1; i <= n; i++) cnt[i] = 0
				for (i = 1; i <= n; i++) cnt[int(rand() * n) + 1]++
				print "r", med(n)
			}
			# whole runs resampled (their rounds together)
			for (b = 1; b <= B; b++) {
				for (i = 1; i <= n; i++) cnt[i] = 0
				m = 0
				for (j = 1; j <= nr; j++) {
					p = int(rand() * nr) + 1
					for (k = 1; k <= sz[p]; k++) cnt[mem[p, k]]++
					m += sz[p]
				}
				print "c", med(m)
			}
		}' "$sorted" | sort -k1,1 -k2,2g >"$sorted.boot"
	# quantile: linear between the order statistics (R type 7)
	awk -v label="$2" -v B="$BOOT" -v R="$nruns" -v diff="${3:-0}" '
		function q(a, m, p,    h, lo) { h = (m - 1) * p + 1; lo = int(h)
			return (lo >= m) ? a[m] : a[lo] + (h - lo) * (a[lo + 1] - a[lo]) }
		FILENAME == ARGV[1] { n++; s[n] = $2; ex += $5; u10 += ($2 < 10); lo += ($2 < 0)
			cc[n] = $3; us[n] = $4; next }
		$1 == "r" { br[++nb] = $2; next }
		$1 == "c" { bc[++nc] = $2; next }
		END {
			# cc and us sorted (insertion: a few hundred rows)
			for (i = 2; i <= n; i++) { v = cc[i]; for (j = i - 1; j >= 1 && cc[j] > v; j--) cc[j + 1] = cc[j]; cc[j + 1] = v
				v = us[i]; for (j = i - 1; j >= 1 && us[j] > v; j--) us[j + 1] = us[j]; us[j + 1] = v }
			if (diff)
				printf "%s: %d rounds in %d runs; slowdown difference median %+.2f pts, quartiles %+.2f to %+.2f\n",
					label, n, R, q(s, n, 0.5), q(s, n, 0.25), q(s, n, 0.75)
			else
				printf "%s: %d rounds in %d runs; median slowdown %.2f %%, quartiles %.2f-%.2f %%\n", label, n, R,
					q(s, n, 0.5), q(s, n, 0.25), q(s, n, 0.75)
			u = diff ? " pts" : " %"
			printf "%s: bootstrap 95%% CI of the median (%d resamples): rounds %.2f to %.2f%s, whole runs %.2f to %.2f%s\n",
				label, B, q(br, nb, 0.025), q(br, nb, 0.975), u, q(bc, nc, 0.025), q(bc, nc, 0.975), u
			if (diff) {
				printf "%s: lower in %d of %d rounds; CPU cost median %+.2f pts (quartiles %+.2f to %+.2f); recorder CPU %+.3f us/I/O\n",
					label, lo, n, q(cc, n, 0.5), q(cc, n, 0.25), q(cc, n, 0.75), q(us, n, 0.5)
				exit
			}
			printf "%s: %d of %d rounds under 10 %%; median CPU cost %.2f %%; recorder CPU while fio ran %.3f us/I/O\n",
				label, u10, n, q(cc, n, 0.5), q(us, n, 0.5)
			printf "%s: count exact with zero loss in %d of %d rounds\n", label, ex, n
		}' "$sorted" "$sorted.boot"
	rm -f "$sorted" "$sorted.boot"
}

all=$(mktemp)
idle=$(mktemp)
trap 'rm -f "$all" "$idle"' EXIT
echo "# per run (load: 1-min load average before the lock / inside it; other: median % of the CPUs busy with neither fio nor the recorder; idle: other <= $IDLE_OTHER %)"
printf '%-4s %-9s %-11s %6s %7s %9s %9s %9s %7s %s\n' run start load other rounds slowdown cpu-cost rec-us/io exact idle
i=0
for log in "${logs[@]}"; do
	i=$((i + 1))
	rows "$log" "$i" >"$all.run"
	read -r st lo li o < <(runinfo "$log")
	isidle=no
	if [ "$o" != - ] && [ "$o" -le "$IDLE_OTHER" ]; then isidle=yes; cat "$all.run" >>"$idle"; fi
	cat "$all.run" >>"$all"
	awk -v r="$i" -v st="$st" -v ld="$lo/$li" -v o="$o" -v idle="$isidle" '
		function med(a, m,    i, j, v) {
			for (i = 2; i <= m; i++) { v = a[i]; for (j = i - 1; j >= 1 && a[j] > v; j--) a[j + 1] = a[j]; a[j + 1] = v }
			return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
		{ n++; s[n] = $2; c[n] = $3; u[n] = $4; ex += $5 }
		END { if (!n) { printf "%-4s %-9s %-11s %5s%% %7d %s\n", r, st, ld, o, 0, "(no rounds)"; exit }
			printf "%-4s %-9s %-11s %5s%% %7d %8.2f%% %8.2f%% %9.3f %4d/%-3d %s\n", r, st, ld, o, n,
				med(s, n), med(c, n), med(u, n), ex, n, idle }' "$all.run"
done
rm -f "$all.run"
stats "$all" "all runs"
if [ -s "$idle" ] && [ "$(wc -l <"$idle")" != "$(wc -l <"$all")" ]; then
	stats "$idle" "idle runs"
fi
if [ -n "${PAIR:-}" ]; then
	: >"$all.d"
	i=0
	for log in "${logs[@]}"; do
		i=$((i + 1))
		diffs "$log" "$i" >>"$all.d"
	done
	stats "$all.d" "$POOL - $PAIR" 1
	rm -f "$all.d"
fi
[ "$(awk '{ n += !$5 } END { print n + 0 }' "$all")" = 0 ]
