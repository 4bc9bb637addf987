#!/bin/sh
# SPDX-License-Identifier: MIT
# run-corpora.sh - every fuzz target over its corpus (seeds and broken
# files): a regression test that each parser survives every input kept.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
ran=0
fail=0
for bin in "$top_builddir"/tests/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	case "$bin" in *.o|*.c) continue ;; esac
	name=${bin##*/fuzz_}
	corpus="$top_srcdir/tests/fuzz/corpus/$name"
	if [ ! -d "$corpus" ]; then
		echo "FAIL: $name has no corpus in $corpus"
		fail=$((fail + 1))
		continue
	fi
	if "$bin" "$corpus" >/dev/null; then
		echo "ok: $name ($(ls "$corpus" | wc -l) inputs)"
		ran=$((ran + 1))
	else
		echo "FAIL: fuzz target $name crashed or failed on its corpus"
		fail=$((fail + 1))
	fi
done
# and every corpus has its target: one not built (dropped from the build,
# renamed) was passed over in silence, its corpus no longer run
for corpus in "$top_srcdir"/tests/fuzz/corpus/*/; do
	name=$(basename "$corpus")
	if [ ! -x "$top_builddir/tests/fuzz/fuzz_$name" ]; then
		echo "FAIL: corpus $name has no fuzz target tests/fuzz/fuzz_$name built"
		fail=$((fail + 1))
	fi
done
[ "$ran" -gt 0 ] || { echo "no fuzz target was built"; exit 99; }
[ "$fail" -eq 0 ]
