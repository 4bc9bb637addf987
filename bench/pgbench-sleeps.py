#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# pgbench-sleeps.py CAP.ist CAP.sched NTXN: the backends' sleeps that a flush completion ended
# (record --sched's sidecar: the time between two of a stream's on-CPU or runnable intervals
# that no client wait covers, with a flush of the recorded device completing in it), by the
# client waits that follow before the stream's own next write: 1-3 ("row": a row lock that
# another's commit released, the rest of the transaction after it), 4 or more ("rider/next":
# its own commit's flush or another's that carried it, then the next transaction), none
# ("zero": a wait for the WAL lock before its own write).  Per pgbench transaction (NTXN).
# Used in bench/README.md, "Group sizes on the throttled target".  IOSTORM: the binary.
import os, sys, subprocess, bisect, collections
ist, sched, ntx = sys.argv[1], sys.argv[2], int(sys.argv[3])
recs = []
out = subprocess.run([os.environ.get("IOSTORM", "./iostorm"), "cat", ist], capture_output=True, text=True).stdout
for l in out.splitlines():
    if not l or l[0] in '#t': continue
    f = l.split(',')
    recs.append((int(f[0]), f[2], int(f[5]), int(f[6])))
# flush completions (any stream: the kworker issues them) and writes per stream
fl = sorted(t + lat for t, op, lat, s in recs if op == 'flush')
wr = collections.defaultdict(list)
for t, op, lat, s in recs:
    if op == 'write': wr[s].append(t)
for s in wr: wr[s].sort()
cs = collections.defaultdict(list); ws = collections.defaultdict(list)
for l in open(sched):
    f = l.split()
    if not f or f[0] == '#': continue
    if f[0] == 'c' or f[0] == 'r': cs[int(f[1])].append((int(f[2]), int(f[3])))
    elif f[0] == 'w': ws[int(f[1])].append((int(f[2]), int(f[3])))
res = collections.Counter(); tot = collections.Counter()
for s in wr:
    iv = sorted(cs[s]); wv = sorted(ws[s]); wstarts = [a for a, b in wv]
    wends = set(b for a, b in wv)
    for (a0, b0), (a1, b1) in zip(iv, iv[1:]):
        if a1 <= b0: continue
        if a1 in wends or any(wa <= b0 + 1000 and wb >= a1 - 1000 for wa, wb in wv[max(0, bisect.bisect_left(wstarts, b0) - 1):bisect.bisect_left(wstarts, b0) + 1]):
            continue  # a client sleep
        # own write issued before the sleep whose flush completed in it: I/O wait (own commit)
        i = bisect.bisect_right(fl, b0); j = bisect.bisect_right(fl, a1)
        if j == i: continue  # no flush completion in the sleep
        k = bisect.bisect_right(wr[s], a1)
        nxt = wr[s][k] if k < len(wr[s]) else None
        n = 0
        if nxt is not None:
            lo = bisect.bisect_left(wstarts, a1); hi = bisect.bisect_left(wstarts, nxt)
            n = hi - lo
        # did the stream write just before sleeping (its own commit flush or a wait for the lock)
        kind = 'row' if 1 <= n <= 3 else ('rider/next' if n >= 4 else 'zero')
        res[kind] += 1; tot[kind] += a1 - b0
print("txns %d" % ntx)
for k in res:
    print("%-10s %6d sleeps (%.3f per txn), %.2f ms each, %.0f us per txn" % (k, res[k], res[k] / ntx, tot[k] / res[k] / 1e6, tot[k] / ntx / 1e3))
