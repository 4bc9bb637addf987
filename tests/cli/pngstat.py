#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# pngstat.py PNG [ROWS] - prints "WIDTH HEIGHT DISTINCT_COLOURS
# NONWHITE_PERMILLE" of an 8-bit RGB/RGBA PNG (what Chromium's screenshots
# are), over its first ROWS rows (default all), with the standard library
# alone: a blank or failed rendering shows as 1 colour, 0 permille.
import struct
import sys
import zlib

data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("not a PNG")
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        if depth != 8 or ctype not in (2, 6):
            sys.exit("unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
        bpp = 3 if ctype == 2 else 4
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colours, nonwhite, i = set(), 0, 0
if len(sys.argv) > 2:
    h = min(h, int(sys.argv[2]))
for y in range(h):
    f = raw[i]
    line = bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    if f == 2:
        line = bytearray((u + v) & 255 for u, v in zip(line, prev))
    for x in range(stride if f not in (0, 2) else 0):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1:
            line[x] = (line[x] + a) & 255
        elif f == 2:
            line[x] = (line[x] + b) & 255
        elif f == 3:
            line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    for x in range(0, stride, bpp):
        px = bytes(line[x:x + 3])
        colours.add(px)
        if px != b"\xff\xff\xff":
            nonwhite += 1
print(w, h, len(colours), nonwhite * 1000 // (w * h))
