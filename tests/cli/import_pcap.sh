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

# libpcap is loaded when a capture is opened, not linked (Makefile.am,
# pcap_import.c): the program does not need it, and where it cannot be
# loaded a capture's import fails with one line saying so, and nothing
# else changes (here every libpcap file is hidden under /dev/null in a
# private mount namespace)
if command -v readelf >/dev/null 2>&1; then
	readelf -d "$IOSTORM" >"$TMP/dyn" || fail "readelf $IOSTORM"
	grep -q 'NEEDED.*libpcap' "$TMP/dyn" && fail "$IOSTORM is linked with libpcap"
	ok
else
	skip_part "no readelf: linking not checked"
fi
libs=$(ldconfig -p 2>/dev/null | sed -n 's/.*libpcap\.so.* => //p')
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1; then
	skip_part "libpcap hidden: needs root and unshare"
elif [ -z "$libs" ]; then
	skip_part "libpcap hidden: ldconfig lists no libpcap"
else
	{
		for f in $libs; do
			echo "mount --bind /dev/null '$(readlink -f "$f")' || exit 99"
		done
		echo "'$IOSTORM' import '$CAP/iscsi.pcap' -o '$TMP/hidden.ist' 2>'$TMP/hidden.err'"
		echo "echo \$? >'$TMP/hidden.rc'"
		echo "exec '$IOSTORM' convert '$DATA/format/small.csv' '$TMP/csv.ist'"
	} >"$TMP/hide.sh"
	expect_status 0 unshare -m sh "$TMP/hide.sh"
	expect_eq "$(cat "$TMP/hidden.rc")" 1 "import of a capture without libpcap"
	cp "$TMP/hidden.err" "$TMP/err"
	expect_err_line "^iostorm: $CAP/iscsi.pcap: cannot load libpcap \(libpcap[^)]*\), which packet captures need$"
	[ ! -e "$TMP/hidden.ist" ] || fail "output left behind"
	[ -s "$TMP/csv.ist" ] || fail "no CSV conversion without libpcap"
	ok
	# the namespace's mounts went with it
	expect_status 0 "$IOSTORM" import -q "$CAP/iscsi.pcap" -o "$TMP/again.ist"
fi
done_ok
