#!/bin/sh
# SPDX-License-Identifier: MIT
# replay-closed.sh - closed-loop replay of a synthesized OLTP trace on the
# null back-end in simulated time: at the trace's nominal latency it
# reproduces the trace's TPS; a faster device gives more TPS-eq, a slower
# one fewer; with think times dominating, about the same.
. "$top_srcdir/tests/cli/lib.sh"

"$IOSTORM" synth sysbench-oltp --duration 1s -o "$TMP/oltp.ist" >/dev/null 2>&1 ||
	skip "iostorm synth unavailable"
expect_status 0 "$IOSTORM" synth sysbench-oltp --duration 2s --set think=0.1 -o "$TMP/think.ist"

tps() { awk '/"transactions":/ { t = 1 } t && /"tps":/ { gsub(/[^0-9.]/, "", $2); print $2; exit }' "$1"; }
run() { # run TRACE LATENCY OUT.json
	expect_status 0 "$IOSTORM" replay "$1" --null --virtual-time --timing closed \
		--null-latency "$2" --json "$3" --quiet
}
run "$TMP/oltp.ist" 200us "$TMP/nom.json"   # the synthesized nominal latency
run "$TMP/oltp.ist" 20us "$TMP/fast.json"
run "$TMP/oltp.ist" 2ms "$TMP/slow.json"
txns=$("$IOSTORM" info "$TMP/oltp.ist" | awk '/^transactions:/ { print $2 }')
nom=$(tps "$TMP/nom.json"); fast=$(tps "$TMP/fast.json"); slow=$(tps "$TMP/slow.json")
echo "TPS-eq: trace $txns/s, nominal $nom, fast $fast, slow $slow"
awk -v n="$nom" -v t="$txns" 'BEGIN { exit !(n > 0.97 * t && n < 1.03 * t) }' ||
	fail "at the nominal latency TPS-eq $nom, trace $txns per second"
ok
awk -v f="$fast" -v n="$nom" 'BEGIN { exit !(f > 1.05 * n) }' || fail "faster: $fast vs $nom"
ok
awk -v s="$slow" -v n="$nom" 'BEGIN { exit !(s < 0.8 * n) }' || fail "slower: $slow vs $nom"
ok
# think times dominating: the device hardly matters
run "$TMP/think.ist" 20us "$TMP/tf.json"
run "$TMP/think.ist" 400us "$TMP/ts.json"
tf=$(tps "$TMP/tf.json"); ts=$(tps "$TMP/ts.json")
echo "think-dominated TPS-eq: fast $tf, slow $ts"
awk -v f="$tf" -v s="$ts" 'BEGIN { exit !(f >= s && f < 1.15 * s) }' || fail "think-dominated: $tf vs $ts"
ok
done_ok
