#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# html5check.py - parse HTML files with html5lib (the WHATWG HTML5 parsing
# algorithm, which knows inline SVG) and print every parse error as
# FILE:LINE:COL: CODE. Exit 0 when there are none, 1 otherwise, 2 on usage.
import sys

try:
    import html5lib
except ImportError:
    print("html5check: python3-html5lib is not installed", file=sys.stderr)
    sys.exit(77)

if len(sys.argv) < 2:
    print("usage: html5check.py FILE.html...", file=sys.stderr)
    sys.exit(2)

bad = 0
for name in sys.argv[1:]:
    parser = html5lib.HTMLParser(strict=False)
    with open(name, "rb") as f:
        parser.parse(f)
    for (line, col), code, data in parser.errors:
        print("%s:%d:%d: %s %s" % (name, line, col, code, data or ""))
        bad += 1
sys.exit(1 if bad else 0)
