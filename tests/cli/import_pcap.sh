#!/bin/sh
# SPDX-License-Identifier: MIT
# import_pcap.sh - the capture module's pcap decoder as an import format:
# detected by its magic, the same records as `record --from-pcap`, errors
# reported as one line with the packet number.
. "$top_srcdir/tests/cli/lib.sh"
CAP="$DATA/capture"
[ -r "$CAP/iscsi.pcap" ] || skip "no capture fixtures"

for f in iscsi nbd; do
	expect_status 0 "$IOSTORM" import "$CAP/$f.pcap" -o "$TMP/$f.ist"
	expect_grep '\(format pcap\)' "$TMP/out"
	expect_grep '^packets [1-9]' "$TMP/out"
	export_records "$TMP/$f.ist" "$TMP/$f.csv"
	expect_status 0 "$IOSTORM" record -q --from-pcap "$CAP/$f.pcap" -o "$TMP/$f-rec.csv"
	# same records; times may differ by the origin only
	cut -d, -f2- "$TMP/$f.csv" >"$TMP/a"
	grep -v '^# ' "$TMP/$f-rec.csv" | cut -d, -f2- >"$TMP/b"
	cmp -s "$TMP/a" "$TMP/b" || { diff "$TMP/a" "$TMP/b" | head >&2; fail "$f: import and record --from-pcap differ"; }
	# and the same device table
	grep '^# device: ' "$TMP/$f.csv.full" >"$TMP/a"
	grep '^# device: ' "$TMP/$f-rec.csv" >"$TMP/b"
	[ -s "$TMP/a" ] || fail "$f: no device in the import"
	cmp -s "$TMP/a" "$TMP/b" || { diff "$TMP/a" "$TMP/b" | head >&2; fail "$f: import and record --from-pcap name different devices"; }
	ok
done
head -c 100 "$CAP/iscsi.pcap" >"$TMP/cut.pcap"
expect_status 1 "$IOSTORM" import "$TMP/cut.pcap" -o "$TMP/cut.ist"
expect_err_line "^iostorm: $TMP/cut.pcap: packet 1: "
[ ! -e "$TMP/cut.ist" ] || fail "output left behind"
done_ok
