#!/bin/sh
# SPDX-License-Identifier: MIT
# regen.sh - regenerates the sample traces in traces/ from the emulators.
# Usage: traces/regen.sh [IOSTORM [OUTDIR]]
#   IOSTORM defaults to the build tree's ./iostorm, OUTDIR to traces/.
# Every sample is deterministic (fixed seed): rerunning gives the same bytes
# (tests/cli/synth_samples.sh checks that the bundled ones are current).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
IOSTORM=${1:-${IOSTORM:-$here/../iostorm}}
out_dir=${2:-$here}
cd "$here" # profile paths are recorded relative to traces/

gen() {
	out=$1; shift
	"$IOSTORM" synth "$@" --seed 1 -o "$out_dir/$out"
}

# The README's main job: 8 InnoDB threads for 5 s (~53,000 I/Os, ~10,600
# IOPS), replayed by `iostorm demo` against a temporary file in ~5 s.
gen sysbench-oltp.ist sysbench-oltp --set threads=8 --duration 5s
# TPC-C at 1/10 of the review's scale: 150 warehouses, 1,500 users.
gen tpcc.ist tpcc --set warehouses=150 --set users=1500 --duration 60s
# A linked-clone login storm of 50 desktops arriving over a minute.
gen vdi-login.ist vdi-login --set desktops=50 --set window=60s --duration 90s
# vdbench Oracle 90-10 at 5,000 IOPS (a point of its curve).
gen oracle-90-10.ist oracle-90-10 --set rate=5000 --duration 10s
# MarkLogic, 2 client threads per node, 4 intervals.
gen marklogic.ist marklogic --set threads=1 --set intervals=4 --duration 8s
# A user INI profile: bursty (hyperexponential) web-like load.
gen bursty-web.ist profiles/bursty-web.ini --duration 10s
