#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# mkfixtures.py - regenerates the binary import fixtures of this directory:
# blktrace per-CPU files (little- and big-endian) equivalent to blkparse.txt,
# vscsi v1 records equivalent to vscsi.csv, and their broken variants.
import struct, sys, os

os.chdir(os.path.dirname(os.path.abspath(__file__)))
ACT = {'Q': 1, 'M': 2, 'F': 3, 'G': 4, 'S': 5, 'R': 6, 'D': 7, 'C': 8,
       'P': 9, 'U': 10, 'I': 12, 'X': 13, 'A': 15}
CAT_OF = {'Q': 1 << 4, 'M': 1 << 4, 'F': 1 << 4, 'G': 1 << 4, 'S': 1 << 4,
          'I': 1 << 4, 'R': 1 << 5, 'D': 1 << 6, 'C': 1 << 7, 'P': 1 << 4,
          'U': 1 << 4, 'X': 0, 'A': 0}
BASE = 5000000000000  # ns since boot of the first event

def cat_bits(rwbs, nsect, n_bits=0):
    c = 0
    i = 0
    if rwbs[0] == 'F' and len(rwbs) > 1:
        c |= 1 << 2; i = 1
    k = rwbs[i]
    c |= {'R': 1, 'W': 2, 'D': 1 << 13, 'N': n_bits}[k]
    for ch in rwbs[i + 1:]:
        c |= {'S': 1 << 3, 'M': 1 << 12, 'A': 1 << 11, 'F': 1 << 15}[ch]
    return c

def rec(e, order, seq, t, sector, nbytes, action, pid, dev, cpu, pdu=b''):
    magic = 0x65617407
    return struct.pack(e + 'IIQQIIIIIHH', magic, seq, t, sector, nbytes,
                       action, pid, dev, cpu, 0, len(pdu)) + pdu

def devt(s):
    a, b = s.split(',')
    return int(a) << 20 | int(b)

# n_bits: the category of an 'N' event (what blkparse shows for no bytes
# and no write, discard or flush bit)
def build(e, src='blkparse.txt', n_bits=0):
    files = {0: [], 1: []}
    # a process notify and a message notify on cpu 0 first
    files[0].append(rec(e, 0, 0, BASE, 0, 0, (1 << 10) << 16 | 0, 100, devt('8,0'), 0, b'dd\0\0'))
    for line in open(src):
        f = line.split()
        if not f or ',' not in f[0]:
            continue
        dev, cpu, seq, tm, pid, act, rwbs = f[:7]
        t = BASE + int(tm.replace('.', ''))
        cpu = int(cpu)
        if act == 'm':
            msg = ' '.join(f[7:]).encode() + b'\0'
            files[cpu].append(rec(e, 0, 0, t, 0, 0, ((1 << 10) << 16) | 2, 0, devt(dev), cpu, msg))
            continue
        sector = int(f[7]) if len(f) > 7 and f[7].isdigit() else 0
        nsect = int(f[9]) if act not in 'X' and len(f) > 9 and f[8] == '+' else 0
        action = (cat_bits(rwbs, nsect, n_bits) | CAT_OF[act]) << 16 | ACT[act]
        pdu = b''
        if act == 'X':
            pdu = struct.pack('>Q', int(f[9]))
        if act == 'A':
            frm = f[11].strip('()')
            pdu = struct.pack('>IIQ', devt(frm), devt(dev), int(f[12]))
        files[cpu].append(rec(e, 0, int(seq), t, sector, nsect * 512, action, int(pid), devt(dev), cpu, pdu))
    return files

for e, name in (('<', 'le'), ('>', 'be')):
    for cpu, recs in build(e).items():
        with open('blk-%s.blktrace.%d' % (name, cpu), 'wb') as out:
            out.write(b''.join(recs))
# operations without data that are not flushes (zone open or finish, a
# driver command): the kernel traces them as reads (TC_READ) of no bytes
with open('blk-nodata.blktrace.0', 'wb') as out:
    out.write(b''.join(build('<', 'blkparse-nodata.txt', 1)[0]))
# broken: a bad magic in the third record of cpu 0, and a cut-off tail
recs = build('<')[0]
bad = bytearray(b''.join(recs))
off = len(recs[0]) + len(recs[1])
bad[off:off + 4] = b'XXXX'
open('blk-badmagic.blktrace.0', 'wb').write(bytes(bad))
open('blk-cut.blktrace.0', 'wb').write(b''.join(recs)[:-20])

# vscsi v1, the records of vscsi.csv (time in seconds there, us here)
vs = b''
for sn, (ts, op, size, lbn) in enumerate([(100000000, 0x2a, 512, 42932745),
                                          (100000001, 0x28, 4096, 8),
                                          (102000000, 0x2a, 1024, 16)]):
    vs += struct.pack('<IIIHHQQ', 0x80000000 + sn, size, 1, op, 0x0100, lbn, ts)
open('vscsi.bin', 'wb').write(vs)
bad = bytearray(vs)
bad[32 + 12] = 0x12  # INQUIRY is not an I/O
open('vscsi-badop.bin', 'wb').write(bytes(bad))
open('vscsi-cut.bin', 'wb').write(vs[:-7])
# an I/O whose end wraps past 2^64 (lbn 2^55 - 1: offset 2^64 - 512)
wrap = bytearray(vs)
struct.pack_into('<Q', wrap, 32 + 16, (1 << 55) - 1)
open('vscsi-wrap.bin', 'wb').write(bytes(wrap))
open('fio3-wrap.iolog', 'w').write('fio version 3 iolog\n0 f add\n0 f open\n'
                                   '5 f write 0 4096\n'
                                   '6 f write 18446744073709551615 4096\n')
open('mqsim-wrap.trace', 'w').write('1 0 100 8 1\n2 0 36028797018963967 8 1\n')
