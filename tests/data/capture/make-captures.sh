#!/bin/bash
# SPDX-License-Identifier: MIT
# make-captures.sh - produces the real iSCSI and NBD captures of this
# directory on 127.0.0.1: tgtd (Debian's tgt) with a file-backed LUN driven
# by qemu-io/qemu-img bench (QEMU's libiscsi client), and qemu-nbd driven
# by qemu-io; tcpdump on lo records each run in full and with -s 200.
# Then tshark's dissection of each full capture is saved as *.tshark, the
# expected values the tests compare the decoder with (tshark cannot
# dissect the truncated PDUs of the -s 200 ones).
# Needs root, tgt, qemu-utils, qemu-block-extra, tcpdump and tshark.
# Usage: make-captures.sh [OUTDIR]   (default: this script's directory)
set -euo pipefail
out=${1:-$(cd "$(dirname "$0")" && pwd)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/iostorm-cap.XXXXXX)
pids=()
cleanup() {
	tgtadm --lld iscsi --mode system --op delete --force >/dev/null 2>&1 || true
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	sleep 0.5
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
for t in tgtd tgtadm tcpdump tshark qemu-io qemu-img qemu-nbd; do
	command -v "$t" >/dev/null || { echo "missing $t" >&2; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 77; }

ISCSI_PORT=${ISCSI_PORT:-3260}
NBD_PORT=${NBD_PORT:-10809}
IQN=iqn.2026-12.org.iostorm:lun-test

# capture NAME PORT CMD... : runs CMD while two tcpdumps record lo.
capture() {
	local name=$1 port=$2; shift 2
	tcpdump -i lo -U -w "$work/$name.pcap" "tcp port $port" 2>/dev/null & local t1=$!
	tcpdump -i lo -U -s 200 -w "$work/$name-snap200.pcap" "tcp port $port" 2>/dev/null & local t2=$!
	sleep 1
	"$@"
	sleep 1
	kill -INT $t1 $t2; wait $t1 $t2 || true
	cp "$work/$name.pcap" "$work/$name-snap200.pcap" "$out/"
}

# ---------------------------------------------------------------- iSCSI
truncate -s 16M "$work/lun.img"
tgtd -f --iscsi portal=127.0.0.1:$ISCSI_PORT >"$work/tgtd.log" 2>&1 & pids+=($!)
for i in $(seq 50); do tgtadm --lld iscsi --mode sys --op show >/dev/null 2>&1 && break; sleep 0.1; done
tgtadm --lld iscsi --mode target --op new --tid 1 -T $IQN
tgtadm --lld iscsi --mode logicalunit --op new --tid 1 --lun 1 -b "$work/lun.img"
tgtadm --lld iscsi --mode logicalunit --op update --tid 1 --lun 1 --params thin_provisioning=1
tgtadm --lld iscsi --mode target --op bind --tid 1 -I ALL
url=iscsi://127.0.0.1:$ISCSI_PORT/$IQN/1
iscsi_io() {
	qemu-io -f raw "$url" \
		-c 'write -P 0x5a 0 2k' -c 'write -P 0x11 8k 4k' -c 'read 0 2k' \
		-c 'read 4k 6k' -c 'flush' -c 'write -P 0x22 1M 1k' \
		-c 'writev -P 0x33 2M 1k 1k' -c 'read 1M 512' -c 'flush' \
		-c 'discard 4M 64k' -c 'write -z 5M 16k' >/dev/null
	qemu-img bench -f raw -t none -c 8 -d 4 -s 1k -S 64k "$url" >/dev/null
	qemu-img bench -f raw -t none -w -c 6 -d 2 -s 1k -S 1M -o 3M "$url" >/dev/null
}
capture iscsi 3260 iscsi_io
# Header and data digests (CRC32C) negotiated at login.
iscsi_digest_io() {
	qemu-io --image-opts \
		"driver=iscsi,transport=tcp,portal=127.0.0.1:$ISCSI_PORT,target=$IQN,lun=1,header-digest=crc32c" \
		-c 'write -P 0x44 64k 2k' -c 'read 64k 2k' -c 'flush' \
		-c 'read 0 1k' >/dev/null
}
capture iscsi-digest 3260 iscsi_digest_io

# ---------------------------------------------------------------- NBD
truncate -s 16M "$work/nbd.img"
qemu-nbd -f raw -x exp1 -b 127.0.0.1 -p $NBD_PORT -t "$work/nbd.img" & pids+=($!)
sleep 1
nbd_io() {
	qemu-io -f raw "nbd://127.0.0.1:$NBD_PORT/exp1" \
		-c 'write -P 0x5a 0 2k' -c 'write -P 0x11 8k 4k' -c 'read 0 2k' \
		-c 'read 4k 6k' -c 'flush' -c 'write -P 0x22 1M 1k' \
		-c 'read 1M 512' -c 'discard 4M 64k' -c 'write -z 5M 16k' \
		-c 'aio_write -P 0x66 6M 1k' -c 'aio_read 6M 1k' -c 'aio_flush' >/dev/null
	qemu-img bench -f raw -t none -c 8 -d 4 -s 1k -S 64k "nbd://127.0.0.1:$NBD_PORT/exp1" >/dev/null
}
capture nbd $NBD_PORT nbd_io

# ---------------------------------------------------------------- expected
cd "$out"
# One line per SCSI Command PDU: frame, ITT, opcode, then the LBA and
# transfer length fields of whichever CDB size it is.
for f in iscsi iscsi-digest; do
	tshark -r "$f.pcap" -Y 'iscsi.opcode == 0x01' -T fields -E separator=, \
		-E aggregator=';' -e frame.number -e iscsi.initiatortasktag \
		-e scsi_sbc.opcode -e scsi_sbc.rdwr6.lba -e scsi_sbc.rdwr10.lba \
		-e scsi_sbc.rdwr16.lba -e scsi_sbc.rdwr6.xferlen \
		-e scsi_sbc.rdwr10.xferlen -e scsi_sbc.rdwr12.xferlen \
		>"$f.tshark" 2>/dev/null
done
for f in nbd; do
	tshark -r "$f.pcap" -Y nbd.type -T fields \
		-E separator=, -E aggregator=';' -e frame.number -e nbd.type \
		-e nbd.from -e nbd.len -e nbd.handle >"$f.tshark" 2>/dev/null
done
ls -l "$out"/*.pcap
