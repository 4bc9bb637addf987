#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# pgbench-handover.py CAP.ist CAP.sched: the WAL lock's handovers in an annotated capture
# and its record --sched sidecar (bench/README.md, "The WAL lock's handover in the
# replay"): a commit section opened by a stream that was asleep (in none of its sidecar
# intervals) at the latest other section's end in its gap, no other section open; the time
# from that release to its first write, and the part of it runnable and on a CPU.
# IOSTORM names the binary (default: iostorm on the PATH).
import os
import sys, subprocess, bisect, collections
ann, sched = sys.argv[1], sys.argv[2]
busy = collections.defaultdict(list)   # stream -> [(a,b,kind)]
for line in open(sched):
    f = line.split()
    if not f or f[0].startswith('#'): continue
    if f[0] in ('c', 'r', 'w'):
        busy[int(f[1])].append((int(f[2]), int(f[3]), f[0]))
for s in busy: busy[s].sort()
starts = {s: [x[0] for x in v] for s, v in busy.items()}
def state_at(s, t):
    v = busy.get(s)
    if not v: return None
    i = bisect.bisect_right(starts[s], t) - 1
    if i >= 0 and v[i][0] <= t < v[i][1]: return v[i][2]
    return None
def parts(s, a, b):
    r = collections.Counter()
    v = busy.get(s, [])
    i = max(0, bisect.bisect_right(starts.get(s, []), a) - 2)
    while i < len(v) and v[i][0] < b:
        x, y, k = v[i]
        lo, hi = max(x, a), min(y, b)
        if hi > lo: r[k] += hi - lo
        i += 1
    return r
out = subprocess.run([os.environ.get('IOSTORM', 'iostorm'), 'cat', ann], capture_output=True, text=True).stdout
cdev = None; drain = {}; opn = {}; secs = []
hs = []; hr = []; hc = []; nsec = 0; notw = 0
for line in out.splitlines():
    if line.startswith('#') or line[0].isalpha(): continue
    f = line.split(',')
    t, dev, op, lat, s, fl = int(f[0]), f[1], f[2], int(f[5]), int(f[6]), f[8]
    if lat == 1: continue
    end = t + lat
    if cdev is None and 'commit' in fl and s: cdev = dev
    if cdev is not None and dev == cdev and op in ('write', 'flush') and s:
        if s not in opn:
            opn[s] = t
            if s in drain and t > drain[s]:
                nsec += 1
                e = max([x[1] for x in secs[-256:] if x[2] != s and drain[s] < x[1] <= t] or [0])
                if e and state_at(s, e) is None and not any(o != s and opn[o] < t for o in opn):
                    hs.append(t - e)
                    p = parts(s, e, t)
                    hr.append(p['r']); hc.append(p['c'])
                else:
                    notw += 1
        if 'commit' in fl:
            secs.append((opn[s], end, s)); del opn[s]
    if s not in drain or end > drain[s]: drain[s] = end
def pct(v, q): v = sorted(v); return v[int(len(v) * q)] / 1000 if v else 0
print("sections %d, handovers %d (asleep at another's release), others %d" % (nsec, len(hs), notw))
for name, v in (('h', hs), ('runnable', hr), ('oncpu', hc)):
    print("%-9s p10 %.0f p25 %.0f p50 %.0f p75 %.0f p90 %.0f mean %.0f us" % (name, pct(v, .1), pct(v, .25), pct(v, .5), pct(v, .75), pct(v, .9), sum(v) / max(len(v), 1) / 1000))
