#!/bin/sh
# SPDX-License-Identifier: MIT
# synth_vdi_closed.sh - a desktop's I/Os in vdi-login are dependent in
# sequence: replayed closed-loop on the null back-end in simulated time,
# a fast device (50 us) finishes the logins sooner than a slow one (5 ms),
# by about the latency saved on each of the ~630 I/Os of a login.
. "$top_srcdir/tests/cli/lib.sh"

expect_status 0 "$IOSTORM" synth vdi-login --set desktops=50 --set window=60s \
	--duration 150s -o "$TMP/login.ist"
# every I/O but each desktop's first is dependent (DEPENDENT flag count)
expect_status 0 "$IOSTORM" stats --json "$TMP/login.ist"
recs=$(awk -F'[:,]' '/"records":/ { gsub(/ /, "", $2); print $2; exit }' "$TMP/out")
deps=$(sed -n 's/.*"dependent": \([0-9]*\).*/\1/p' "$TMP/out")
[ -n "$recs" ] && [ "$deps" = $((recs - 50)) ] || fail "dependent $deps of $recs records"
ok
# the median time of a login (its transaction) in the replay's JSON report
login_p50() {
	awk '/"transactions":/ { t = 1 } t && /"p50":/ { gsub(/[^0-9]/, "", $2); print $2; exit }' "$1"
}
run() { # run LATENCY OUT.json
	expect_status 0 "$IOSTORM" replay "$TMP/login.ist" --null --virtual-time \
		--timing closed --null-latency "$1" --json "$2" --quiet
}
run 50us "$TMP/fast.json"
run 500us "$TMP/nom.json" # the trace's nominal latency
run 5ms "$TMP/slow.json"
fast=$(login_p50 "$TMP/fast.json"); nom=$(login_p50 "$TMP/nom.json")
slow=$(login_p50 "$TMP/slow.json")
echo "median login: 50us $fast ns, 500us $nom ns, 5ms $slow ns"
# at the nominal latency: the phase length (60 s) of the profile
awk -v n="$nom" 'BEGIN { exit !(n > 58e9 && n < 61e9) }' || fail "nominal login $nom ns"
ok
# faster device, shorter logins; slower, longer (630 I/Os x 4.5 ms = 2.8 s)
awk -v f="$fast" -v n="$nom" 'BEGIN { exit !(f < n && f > n - 1e9) }' ||
	fail "fast login $fast ns vs nominal $nom ns"
ok
awk -v s="$slow" -v n="$nom" 'BEGIN { exit !(s > n + 1.5e9 && s < n + 5e9) }' ||
	fail "slow login $slow ns vs nominal $nom ns"
ok
done_ok
