#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# mutate-pcap.py - makes damaged variants of a real capture for the TCP
# reassembly tests: segments out of order, retransmitted, and one lost.
# Usage: mutate-pcap.py IN.pcap PREFIX  (writes PREFIX-reorder.pcap,
# PREFIX-dup.pcap, PREFIX-lost.pcap)
import struct
import sys


def read_pcap(path):
    data = open(path, 'rb').read()
    hdr, off, pkts = data[:24], 24, []
    endian = '<' if data[:4] in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1') else '>'
    while off + 16 <= len(data):
        ts, tu, cap, orig = struct.unpack(endian + 'IIII', data[off:off + 16])
        pkts.append([ts, tu, orig, data[off + 16:off + 16 + cap]])
        off += 16 + cap
    return hdr, endian, pkts


def write_pcap(path, hdr, endian, pkts):
    with open(path, 'wb') as f:
        f.write(hdr)
        for ts, tu, orig, d in pkts:
            f.write(struct.pack(endian + 'IIII', ts, tu, len(d), orig) + d)


def tcp_info(d):
    """(src port, dst port, payload offset, payload length) of an Ethernet/IPv4 TCP packet."""
    if len(d) < 34 or d[12:14] != b'\x08\x00' or d[23] != 6:
        return None
    ihl = (d[14] & 15) * 4
    tot = struct.unpack('>H', d[16:18])[0]
    t = 14 + ihl
    sp, dp = struct.unpack('>HH', d[t:t + 4])
    doff = (d[t + 12] >> 4) * 4
    return sp, dp, t + doff, tot - ihl - doff


def main():
    src, prefix = sys.argv[1], sys.argv[2]
    hdr, e, pkts = read_pcap(src)
    data_idx = [i for i, p in enumerate(pkts)
                if tcp_info(p[3]) and tcp_info(p[3])[3] > 0]
    # Out of order: two data segments of one direction with only pure ACKs
    # between them trade places (as two paths to a capture point may do;
    # never past an answer, which a real capture cannot show).
    out, swapped, i = list(pkts), 0, 0
    while i < len(out):
        a = tcp_info(out[i][3])
        if not a or a[3] == 0:
            i += 1
            continue
        j = i + 1
        while j < len(out) and tcp_info(out[j][3]) and tcp_info(out[j][3])[3] == 0:
            j += 1
        if j < len(out):
            b = tcp_info(out[j][3])
            if b and b[3] > 0 and b[0] == a[0] and b[1] == a[1]:
                out[i], out[j] = out[j], out[i]
                swapped += 1
                i = j + 1
                continue
        i += 1
    write_pcap(prefix + '-reorder.pcap', hdr, e, out)
    # Retransmissions: every third data segment is sent twice.
    out = []
    for i, p in enumerate(pkts):
        out.append(p)
        if i in data_idx[::3]:
            out.append(list(p))
    write_pcap(prefix + '-dup.pcap', hdr, e, out)
    # Loss: the 20th data segment from the client is dropped.
    client = [i for i in data_idx if tcp_info(pkts[i][3])[1] in (3260, 10809)]
    drop = client[min(20, len(client) - 1)]
    write_pcap(prefix + '-lost.pcap', hdr, e, [p for i, p in enumerate(pkts) if i != drop])
    print('moved %d, duplicated %d, dropped packet %d' % (swapped, len(data_idx[::3]), drop + 1))


main()
