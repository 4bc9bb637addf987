#!/bin/sh
# SPDX-License-Identifier: MIT
# ist_golden.sh - the writer's exact bytes (IST 1.3) on a trace whose columns take the
# DICT, DELTA, RAW and SEQ codings and the plain, deflate, ANS and ARITH storages
# (small.ist, in convert.sh, is too small for ANS): speed work on the writer
# must not change a byte.  A change of the format regenerates the golden:
#   bench/ist_speed --synth 4000 tests/data/format/synth-4000.ist
. "$top_srcdir/tests/cli/lib.sh"
D="$DATA/format"
S="$top_builddir/bench/ist_speed"
[ -x "$S" ] || skip "no $S (built by make check)"

expect_status 0 "$S" --synth 4000 "$TMP/s.ist"
cmp -s "$D/synth-4000.ist" "$TMP/s.ist" || fail "the synthetic trace no longer encodes to synth-4000.ist"
ok
# the golden decodes, and its records encode to it again through CSV
expect_status 0 "$IOSTORM" convert "$D/synth-4000.ist" "$TMP/s.csv"
expect_status 0 "$IOSTORM" convert "$TMP/s.csv" "$TMP/t.ist"
expect_status 0 "$IOSTORM" convert "$TMP/t.ist" "$TMP/t.csv"
cmp -s "$TMP/s.csv" "$TMP/t.csv" || fail "synth-4000.ist -> CSV -> IST -> CSV differs"
ok
expect_status 0 "$IOSTORM" verify "$D/synth-4000.ist"
done_ok
