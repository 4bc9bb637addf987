#!/bin/sh
# SPDX-License-Identifier: MIT
# pcap_import.sh - iSCSI and NBD commands decoded from real captures made
# on this machine (tests/data/capture/make-captures.sh): every SCSI READ and
# WRITE has tshark's LBA and length, the -s 200 captures yield the same
# commands, and damaged captures (reordered, retransmitted, lost segments)
# are reassembled or counted as incomplete.
. "$top_srcdir/tests/cli/lib.sh"
CAP="$DATA/capture"

# preamble FILE: the '# meta:' and '# device:' lines record writes before
# a CSV's header row, moved to FILE.pre (the records stay in FILE)
preamble() {
	grep '^# ' "$1" >"$1.pre"
	sed -i '/^# /d' "$1" || fail "$1: cannot rewrite"
}

# rw_of CSV: "op,lba,blocks" of each read/write record (512-byte blocks).
rw_of() {
	awk -F, 'NR > 1 && ($3 == "read" || $3 == "write") { print $3 "," $4 / 512 "," $5 / 512 }' "$1"
}
# rw_of_tshark FILE: the same from tshark's fields (frame, ITT, opcode,
# lba6, lba10, lba16, len6, len10, len12).
rw_of_tshark() {
	awk -F, '{
		split($3, ops, ";"); op = ops[1]
		if (op == "0x28" || op == "0x08" || op == "0xa8" || op == "0x88") kind = "read"
		else if (op == "0x2a" || op == "0x0a" || op == "0xaa" || op == "0x8a") kind = "write"
		else next
		lba = $4 != "" ? $4 : ($5 != "" ? $5 : $6)
		len = $7 != "" ? $7 : ($8 != "" ? $8 : $9)
		print kind "," lba "," len
	}' "$1"
}

# The -s 200 captures are compared with tshark's dissection of the full
# ones (tshark itself cannot dissect the truncated writes).
for f in iscsi iscsi-snap200 iscsi-digest iscsi-digest-snap200; do
	expect_status 0 "$IOSTORM" record -q --from-pcap "$CAP/$f.pcap" -o "$TMP/$f.csv"
	preamble "$TMP/$f.csv"
	rw_of "$TMP/$f.csv" >"$TMP/$f.got"
	rw_of_tshark "$CAP/${f%-snap200}.tshark" >"$TMP/$f.want"
	[ -s "$TMP/$f.want" ] || fail "$f.tshark has no read/write"
	cmp -s "$TMP/$f.got" "$TMP/$f.want" || {
		diff "$TMP/$f.want" "$TMP/$f.got" >&2; fail "$f: reads/writes differ from tshark"; }
	ok
done
expect_eq "$(wc -l <"$TMP/iscsi.got")" 21 "iSCSI reads and writes"
# the CSV keeps the device table and the sessions, as convert writes them
expect_grep '^# device: 0 size=16777216 block_size=512 name=iscsi:iqn\.2026-12\.org\.iostorm:lun-test/lun:1$' "$TMP/iscsi.csv.pre"
expect_grep '^# meta: stream\.1=iscsi session ' "$TMP/iscsi.csv.pre"
# Flush (SYNCHRONIZE CACHE), UNMAP and WRITE SAME too; snaplen loses nothing.
expect_eq "$(grep -c ',flush,' "$TMP/iscsi.csv")" 4 "iSCSI flushes"
expect_grep '^[0-9]+,0,discard,4194304,65536,' "$TMP/iscsi.csv"
expect_grep '^[0-9]+,0,write_zeroes,5242880,16384,' "$TMP/iscsi.csv"
for f in iscsi iscsi-digest; do
	cut -d, -f2-5,7,9 "$TMP/$f.csv" >"$TMP/a"; cut -d, -f2-5,7,9 "$TMP/$f-snap200.csv" >"$TMP/b"
	cmp -s "$TMP/a" "$TMP/b" || fail "$f: -s 200 capture decodes differently"
	ok
done
# Every command answered: latency known for all of them.
expect_eq "$(awk -F, 'NR > 1 && $6 == 0' "$TMP/iscsi-snap200.csv" | wc -l)" 0 "records without latency"

# Re-run tshark when it is here: the expected files are its dissection.
if command -v tshark >/dev/null 2>&1; then
	for f in iscsi iscsi-digest; do
		tshark -r "$CAP/$f.pcap" -Y 'iscsi.opcode == 0x01' -T fields -E separator=, \
			-E aggregator=';' -e frame.number -e iscsi.initiatortasktag \
			-e scsi_sbc.opcode -e scsi_sbc.rdwr6.lba -e scsi_sbc.rdwr10.lba \
			-e scsi_sbc.rdwr16.lba -e scsi_sbc.rdwr6.xferlen \
			-e scsi_sbc.rdwr10.xferlen -e scsi_sbc.rdwr12.xferlen \
			>"$TMP/$f.ts" 2>/dev/null
		cmp -s "$TMP/$f.ts" "$CAP/$f.tshark" || fail "tshark now dissects $f differently"
		ok
	done
else
	skip_part "no tshark: its dissection of the captures again"
fi

# NBD: the qemu-io sequence, reads as tshark dissects them, snaplen too.
for f in nbd nbd-snap200 nbd-reorder nbd-dup; do
	expect_status 0 "$IOSTORM" record -q --from-pcap "$CAP/$f.pcap" -o "$TMP/$f.csv"
	preamble "$TMP/$f.csv"
	awk -F, 'NR > 1 { print $3 "," $4 "," $5 }' "$TMP/$f.csv" >"$TMP/$f.got"
	cmp -s "$TMP/$f.got" "$CAP/nbd.expected" || {
		diff "$CAP/nbd.expected" "$TMP/$f.got" >&2; fail "$f: NBD requests differ"; }
	ok
done
# tshark prints offsets in hex: the shell converts them.
while IFS=, read -r _frame type from len _handle; do
	[ "$type" = 0 ] && printf 'read,%d,%d\n' "$from" "$len"
done <"$CAP/nbd.tshark" >"$TMP/nbd.ts"
[ -s "$TMP/nbd.ts" ] || fail "no NBD read in nbd.tshark"
grep '^read,' "$TMP/nbd.got" >"$TMP/nbd.reads"
cmp -s "$TMP/nbd.ts" "$TMP/nbd.reads" || fail "NBD reads differ from tshark"
ok
expect_eq "$(awk -F, 'NR > 1 && $6 == 0' "$TMP/nbd-snap200.csv" | wc -l)" 0 "NBD records without latency"

# Reassembly: reordered segments give the same records.
expect_status 0 "$IOSTORM" record -q --from-pcap "$CAP/iscsi-reorder.pcap" -o "$TMP/ro.csv"
preamble "$TMP/ro.csv"
cmp -s "$TMP/ro.csv" "$TMP/iscsi.csv" || fail "reordered iSCSI capture decodes differently"
ok

# A lost segment: counted, exit 3 unless --allow-loss, records still there.
expect_status 3 "$IOSTORM" record -q --from-pcap "$CAP/nbd-lost.pcap" -o "$TMP/lost.csv"
expect_err_line "nbd-lost.pcap|lost.csv: capture incomplete"
expect_status 0 "$IOSTORM" record --allow-loss --from-pcap "$CAP/nbd-lost.pcap" -o "$TMP/lost.csv"
preamble "$TMP/lost.csv"
expect_grep ' 1 gaps, 1 resyncs' "$TMP/err"
expect_eq "$(($(wc -l <"$TMP/lost.csv") - 1))" 20 "records despite the lost segment"

# Ports: nothing is iSCSI on another port; a BPF filter applies.
expect_status 0 "$IOSTORM" record -q --iscsi-port 3261 --from-pcap "$CAP/iscsi.pcap" -o "$TMP/p.csv"
preamble "$TMP/p.csv"
expect_eq "$(wc -l <"$TMP/p.csv")" 1 "records with the wrong port"
# ... said so, also with -q (the summary alone said "0 I/Os ...; complete")
n=$("$IOSTORM" record --iscsi-port 3261 --from-pcap "$CAP/iscsi.pcap" -o "$TMP/q.csv" 2>&1 >/dev/null |
	sed -n 's/^iostorm: 0 I\/Os from \([1-9][0-9]*\) packets .*/\1/p')
[ -n "$n" ] || fail "no summary line for the wrong port"
expect_err_line "^iostorm: $CAP/iscsi.pcap: warning: no iSCSI or NBD I/O on TCP ports 3261 and 10809 in $n packets \(see --iscsi-port, --nbd-port, --filter\)$"
expect_status 0 "$IOSTORM" record -q --filter 'tcp port 1' --from-pcap "$CAP/nbd.pcap" -o "$TMP/p.csv"
preamble "$TMP/p.csv"
expect_eq "$(wc -l <"$TMP/p.csv")" 1 "records with a filter matching nothing"
expect_err_line "^iostorm: $CAP/nbd.pcap: warning: no iSCSI or NBD I/O on TCP ports 3260 and 10809 in 0 packets "

# Bad input: one line naming the file (and the packet).
expect_status 1 "$IOSTORM" record --from-pcap "$TMP/none.pcap" -o "$TMP/x.csv"
# the name once (libpcap's message names it too: it was twice)
expect_err_line "^iostorm: $TMP/none.pcap: No such file or directory$"
head -c 5000 "$CAP/nbd.pcap" >"$TMP/trunc.pcap"
expect_status 1 "$IOSTORM" record --from-pcap "$TMP/trunc.pcap" -o "$TMP/x.csv"
expect_err_line "trunc.pcap: packet [0-9]+: "
[ ! -e "$TMP/x.csv" ] || fail "output left behind after an error"
ok
printf 'not a capture at all\n' >"$TMP/junk.pcap"
expect_status 1 "$IOSTORM" record --from-pcap "$TMP/junk.pcap" -o "$TMP/x.csv"
expect_err_line "junk.pcap: "
expect_status 1 "$IOSTORM" record --filter 'tcp port' --from-pcap "$CAP/nbd.pcap" -o "$TMP/x.csv"
expect_err_line "bad filter"
# What record writes is written in place: over its input (the capture
# was replaced by the trace) or a block device (overwritten with the
# trace), refused.
cp "$CAP/nbd.pcap" "$TMP/in.pcap"
expect_status 1 "$IOSTORM" record --from-pcap "$TMP/in.pcap" -o "$TMP/in.pcap"
expect_err_line "^iostorm: $TMP/in.pcap: is also an input \(it would be replaced\)$"
expect_status 1 "$IOSTORM" record --from-pcap "$TMP/./in.pcap" -o "$TMP/in.pcap"
expect_err_line "^iostorm: $TMP/in.pcap: is also an input \(it would be replaced\)$"
cmp -s "$CAP/nbd.pcap" "$TMP/in.pcap" || fail "record replaced its input"; ok
if [ "$(id -u)" -eq 0 ] && command -v losetup >/dev/null; then
	head -c 1048576 /dev/urandom >"$TMP/dev.img"
	sum=$(cksum <"$TMP/dev.img")
	if L=$(losetup -f --show "$TMP/dev.img" 2>/dev/null); then
		expect_status 1 "$IOSTORM" record --from-pcap "$CAP/nbd.pcap" -o "$L"
		losetup -d "$L"
		expect_err_line "^iostorm: $L: refused: a block device \(record writes a file; the device's data would be overwritten\)$"
		expect_eq "$(cksum <"$TMP/dev.img")" "$sum" "the block device after a refused record"
	else
		skip_part "no loop device: a block device as the output"
	fi
else
	skip_part "not root or no losetup: a block device as the output"
fi
# Usage errors.
expect_status 2 "$IOSTORM" record --from-pcap "$CAP/nbd.pcap"
expect_status 2 "$IOSTORM" record --from-pcap "$CAP/nbd.pcap" -d /dev/null -o "$TMP/x.csv"
expect_status 2 "$IOSTORM" record --from-pcap "$CAP/nbd.pcap" --iscsi-port 0 -o "$TMP/x.csv"

# More devices than an IST file holds (5 servers x 16384 LUNs): the reason
# named (it was "value out of range"), at its packet, and no output.
if command -v python3 >/dev/null; then
	python3 -c '
import struct, sys
out = open(sys.argv[1], "wb")
out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))
t = [0]
def pkt(src, dst, sp, dp, seq, flags, payload):
    tcp = struct.pack(">HHIIBBHHH", sp, dp, seq, 0, 5 << 4, flags, 65535, 0, 0)
    tot = 20 + len(tcp) + len(payload)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, tot, 0, 0x4000, 64, 6, 0, bytes(src), bytes(dst))
    data = ip + tcp + payload
    t[0] += 1
    out.write(struct.pack("<IIII", 1, t[0], len(data), len(data)))
    out.write(data)
itt = 0
for srv in range(5):
    cli, dst = [10, 0, 0, 1], [10, 0, 1, srv + 1]
    seq = 1000
    pkt(cli, dst, 40000 + srv, 3260, seq, 0x02, b"")
    seq += 1
    pdus = []
    for lun in range(16384):
        itt += 1
        bhs = bytearray(48)
        bhs[0] = 0x01
        bhs[1] = 0xc0  # F, R
        bhs[8] = 0x40 | (lun >> 8)
        bhs[9] = lun & 0xff
        struct.pack_into(">I", bhs, 16, itt)
        struct.pack_into(">I", bhs, 20, 4096)
        bhs[32] = 0x28
        struct.pack_into(">IxHx", bhs, 34, lun, 8)
        pdus.append(bytes(bhs))
    for i in range(0, len(pdus), 1300):
        payload = b"".join(pdus[i:i + 1300])
        pkt(cli, dst, 40000 + srv, 3260, seq, 0x18, payload)
        seq += len(payload)
out.close()
' "$TMP/luns.pcap"
	expect_status 1 "$IOSTORM" import "$TMP/luns.pcap" -o "$TMP/luns.ist"
	expect_err_line "^iostorm: $TMP/luns.pcap: packet 58: more than 65536 devices$"
	[ ! -e "$TMP/luns.ist" ] || fail "luns.ist left behind"
	ok
else
	skip_part "no python3: a capture of more devices than IST holds"
fi

# record writes IST at the fast effort (convert --fast's bytes), --compact
# at the default one (convert's bytes): the same records either way.
expect_status 0 "$IOSTORM" record -q --from-pcap "$CAP/iscsi.pcap" -o "$TMP/rf.ist"
expect_status 0 "$IOSTORM" record -q --compact --from-pcap "$CAP/iscsi.pcap" -o "$TMP/rc.ist"
cmp -s "$TMP/rf.ist" "$TMP/rc.ist" && fail "record and record --compact wrote the same bytes"
ok
expect_status 0 "$IOSTORM" convert --fast "$TMP/rc.ist" "$TMP/rcf.ist"
cmp -s "$TMP/rf.ist" "$TMP/rcf.ist" || fail "record is not convert --fast's bytes"
ok
expect_status 0 "$IOSTORM" convert "$TMP/rf.ist" "$TMP/rfc.ist"
cmp -s "$TMP/rc.ist" "$TMP/rfc.ist" || fail "record --compact is not convert's bytes"
ok
expect_status 0 "$IOSTORM" cat "$TMP/rf.ist"
mv "$TMP/out" "$TMP/rf.csv"
expect_status 0 "$IOSTORM" cat "$TMP/rc.ist"
cmp -s "$TMP/rf.csv" "$TMP/out" || fail "record --compact: other records"
ok
# with a CSV output --compact would do nothing: a usage error, no file
expect_status 2 "$IOSTORM" record -q --compact --from-pcap "$CAP/iscsi.pcap" -o "$TMP/rc.csv"
expect_grep "compact applies to an IST output" "$TMP/err"
[ ! -e "$TMP/rc.csv" ] || fail "record --compact left a CSV behind"
ok

# A capture of a SYN flood, one new connection a packet: linear (80,000
# took 84 s of CPU: a scan of every connection to evict one, and of the
# header's keys for each stream.N; 0.4 s now), then "no I/O records".
if command -v python3 >/dev/null; then
	python3 -c '
import struct, sys
n = 80000
out = open(sys.argv[1], "wb")
out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))
for i in range(n):
    src = bytes([10, (i >> 16) & 255, (i >> 8) & 255, i & 255])
    tcp = struct.pack(">HHIIBBHHH", 40000, 3260, 1000, 0, 5 << 4, 0x02, 65535, 0, 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 40, 0, 0x4000, 64, 6, 0, src, bytes([10, 0, 1, 1]))
    data = ip + tcp
    out.write(struct.pack("<IIII", 1 + i // 1000000, i % 1000000, len(data), len(data)))
    out.write(data)
' "$TMP/syn.pcap"
	# 60 s of CPU at most (ulimit -t: the load of the machine or a stop by
	# another process does not count, as a wall-clock timeout's did: it
	# failed under a loaded sanitizer run), 10 minutes of wall clock
	expect_status 1 timeout 600 sh -c 'ulimit -t 60 && exec "$0" "$@"' "$IOSTORM" import \
		"$TMP/syn.pcap" -o "$TMP/syn.ist"
	expect_err_line "^iostorm: $TMP/syn.pcap: no I/O records"
else
	skip_part "no python3: a capture of a SYN flood"
fi
done_ok
