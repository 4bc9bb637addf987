#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# gen.py - regenerates the fixture run results of tests/data/report/ (schema
# iostorm-replay/1 as written by `iostorm replay --json`, iostorm-sweep/1,
# iostorm-precondition/1).  Deterministic: `python3 gen.py` in this folder.
import json
import random

def pcts(mean_ns, count, rng, spread=1.0):
    if count == 0:
        return {"count": 0, "min": 0, "mean": 0.0, "stddev": 0.0, "p50": 0, "p90": 0,
                "p99": 0, "p99_9": 0, "p99_99": 0, "max": 0}
    m = mean_ns
    return {"count": count, "min": int(m * 0.3), "mean": float(m), "stddev": m * 0.6,
            "p50": int(m * 0.85), "p90": int(m * 1.6), "p99": int(m * 3.0 * spread),
            "p99_9": int(m * 6.0 * spread), "p99_99": int(m * 12 * spread),
            "max": int(m * 20 * spread * rng.uniform(0.8, 1.2))}

def replay(name, seed, iops, iops_cv, lat_us, lat_cv, n=30, records=1500000,
           duration_ns=30000000000, iodepth=32, timing="original", txn_ratio=10,
           interrupted=False, trace_path="traces/oltp.ist", profile=None):
    rng = random.Random(seed)
    ivs = []
    tot_ios = tot_bytes = tot_txn = 0
    lat_sum = 0.0
    for i in range(n):
        # slow drift plus white noise: intervals are not independent
        f = 1 + iops_cv * rng.gauss(0, 1)
        ios = max(1, int(iops * f))
        rd = int(ios * 0.7)
        wr = ios - rd
        byt = rd * 8192 + wr * 8192
        lm = lat_us * 1000 * (1 + lat_cv * rng.gauss(0, 1))
        txn = ios // txn_ratio if txn_ratio else 0
        late = pcts(2000 * rng.uniform(0.8, 1.2), ios, rng) if timing != "afap" else pcts(0, 0, rng)
        ivs.append({"start_ns": i * 1000000000, "length_ns": 1000000000, "ios": ios,
                    "read_ios": rd, "write_ios": wr, "flush_ios": 0, "discard_ios": 0,
                    "write_zeroes_ios": 0, "bytes": byt, "iops": float(ios),
                    "mb_per_s": byt / 1e6, "errors": 0, "txns": txn, "tps": float(txn),
                    "latency_ns": pcts(lm, ios, rng), "lateness_ns": late})
        tot_ios += ios
        tot_bytes += byt
        tot_txn += txn
        lat_sum += lm * ios
    el = n * 1000000000
    mean = lat_sum / tot_ios
    lat = pcts(mean, tot_ios, rng)
    meta = {"source": "synth"}
    if profile:
        meta["profile"] = profile
    run = {
        "schema": "iostorm-replay/1",
        "tool": {"name": "iostorm", "version": "0.1.0"},
        "command": "iostorm replay %s --target /dev/nvme0n1 --json %s.json" % (trace_path, name),
        "started": "2026-12-02T10:00:%02dZ" % (seed % 60),
        "interrupted": interrupted, "complete": not interrupted,
        "trace": {"path": trace_path, "format": "ist",
                  "devices": [{"index": 0, "name": "sda", "size": 107374182400, "block_size": 512}],
                  "metadata": meta,
                  "totals": {"records": records, "first_t_ns": 0, "last_t_ns": duration_ns,
                             "duration_ns": duration_ns,
                             "read": {"count": records * 7 // 10, "bytes": records * 7 // 10 * 8192},
                             "write": {"count": records - records * 7 // 10,
                                       "bytes": (records - records * 7 // 10) * 8192},
                             "flush": {"count": 0, "bytes": 0}, "discard": {"count": 0, "bytes": 0},
                             "write_zeroes": {"count": 0, "bytes": 0}, "with_latency": 0}},
        "settings": {"timing": timing, "speed": 1.0, "rate_iops": 0.0, "iodepth": iodepth,
                     "workers": 1, "partition": "device", "from_ns": 0, "to_ns": 0, "loops": 1,
                     "duration_ns": 0, "backend": "io_uring", "direct": True, "remap": "strict",
                     "data": "random", "read_only": False, "allow_write": True, "force": False,
                     "sqpoll": False, "iopoll": False, "interval_ns": 1000000000,
                     "spin_ns": 40000, "think_scale": 1.0, "txn_per": 0,
                     "targets": [{"dev": -1, "path": "/dev/nvme0n1", "kind": "block",
                                  "size": 960197124096, "logical_block_size": 512}]},
        "features": ["single_issuer", "fixed_files"], "notes": [],
        "run": {"elapsed_ns": el, "schedule_ns": duration_ns, "cpu_user_ns": tot_ios * 900,
                "cpu_sys_ns": tot_ios * 1500, "cpu_ns_per_io": 2400.0, "max_inflight": iodepth,
                "decoder_starved": 0},
        "totals": {"records": tot_ios, "ios": tot_ios, "bytes": tot_bytes,
                   "iops": tot_ios / (el / 1e9), "mb_per_s": tot_bytes / (el / 1e9) / 1e6,
                   "errors": 0, "first_error": None, "skipped_read_only": 0,
                   "skipped_beyond_end": 0, "skipped_too_large": 0, "realigned": 0,
                   "wrapped": 0, "scaled": 0, "latency_ns": lat},
        "ops": {},
        "lateness_ns": dict(pcts(2000, tot_ios, rng) if timing != "afap" else pcts(0, 0, rng),
                            warn_threshold_ns=1000000, warning=False),
        "transactions": {"count": tot_txn, "tps": tot_txn / (el / 1e9),
                         "latency_ns": pcts(mean * 4, tot_txn, rng) if tot_txn else pcts(0, 0, rng),
                         "recorded_latency_ns": None},
        "intervals": ivs,
    }
    for op, share, lf in (("read", 0.7, 0.8), ("write", 0.3, 1.5), ("flush", 0, 0),
                          ("discard", 0, 0), ("write_zeroes", 0, 0)):
        ios = int(tot_ios * share)
        run["ops"][op] = {"ios": ios, "bytes": ios * 8192, "errors": 0,
                          "iops": ios / (el / 1e9), "mb_per_s": ios * 8192 / (el / 1e9) / 1e6,
                          "latency_ns": pcts(mean * lf, ios, rng), "recorded_latency_ns": None}
    return run

def save(name, obj):
    with open(name + ".json", "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")

# A baseline and a newer firmware on the same drive, same trace, same settings.
save("base", replay("base", 1, 50000, 0.02, 120, 0.03))
save("regress", replay("regress", 2, 42000, 0.02, 150, 0.03))     # -16% IOPS, +25% latency
save("improve", replay("improve", 3, 58000, 0.02, 100, 0.03))     # +16% IOPS, -17% latency
# Pure noise: the same drive measured again, 3% apart, with 8% interval noise.
save("noisy-a", replay("noisy-a", 4, 50000, 0.08, 120, 0.08))
save("noisy-b", replay("noisy-b", 5, 48500, 0.08, 124, 0.08))
# Not comparable with base: another trace, other settings.
save("other-trace", replay("other-trace", 6, 50000, 0.02, 120, 0.03, records=900000,
                           trace_path="traces/vdi-boot.ist"))
save("other-qd", replay("other-qd", 7, 50000, 0.02, 120, 0.03, iodepth=64))
# afap, no transactions, interrupted, longer
save("afap-long", replay("afap-long", 8, 200000, 0.05, 60, 0.05, n=120, timing="afap",
                         txn_ratio=0, interrupted=True, duration_ns=120000000000))

# A sweep: threads x queue depth grid, then a rate curve.
rng = random.Random(9)
grid = []
for t in (2, 4, 8, 16):
    for q in (2, 4, 8, 16):
        depth = t * q
        iops = 400000 * depth / (depth + 40)
        lat = depth / iops * 1e9
        grid.append({"threads": t, "qd": q, "elapsed_ns": 5000000000, "ios": int(iops * 5),
                     "bytes": int(iops * 5) * 4096, "iops": iops, "mb_per_s": iops * 4096 / 1e6,
                     "latency_ns": pcts(lat, int(iops * 5), rng),
                     "lateness_ns": pcts(0, 0, rng)})
mx = max(p["iops"] for p in grid)
curve = []
for pct in range(10, 130, 10):
    want = mx * pct / 100
    got = min(want, mx * 1.0)
    rho = min(got / mx, 0.99)
    lat = 25000 / (1 - rho) if pct <= 100 else 25000 / 0.01 * (pct / 100)
    curve.append({"pct": pct, "target_iops": want, "elapsed_ns": 5000000000,
                  "ios": int(got * 5), "bytes": int(got * 5) * 4096, "iops": got,
                  "mb_per_s": got * 4096 / 1e6, "latency_ns": pcts(lat, int(got * 5), rng),
                  "lateness_ns": pcts(1000 if pct <= 100 else 5e6, int(got * 5), rng)})
save("sweep", {"schema": "iostorm-sweep/1", "started": "2026-12-02T11:00:00Z",
               "command": "iostorm sweep --synth 4k-randread --target /dev/nvme0n1",
               "trace": {"path": "", "metadata": {"profile": "4k-randread"}},
               "target": "/dev/nvme0n1",
               "settings": {"point_ns": 5000000000, "threads": "2,4,8,16", "qd": "2,4,8,16"},
               "grid": grid, "max_iops": mx, "max_point": {"threads": 16, "qd": 16},
               "curve": curve})

# Preconditioning: IOPS falling from fresh-out-of-box to steady state.
rng = random.Random(10)
rounds = []
for r in range(1, 16):
    iops = 90000 * (0.45 + 0.55 * 0.6 ** (r - 1)) * (1 + 0.01 * rng.gauss(0, 1))
    rounds.append({"round": r, "elapsed_ns": 60000000000, "ios": int(iops * 60),
                   "bytes": int(iops * 60) * 4096, "iops": iops,
                   "mb_per_s": iops * 4096 / 1e6,
                   "latency_ns": pcts(16 * 16 / iops * 1e9, int(iops * 60), rng)})
last = [p["iops"] for p in rounds[-5:]]
avg = sum(last) / 5
save("precond", {"schema": "iostorm-precondition/1", "started": "2026-12-02T12:00:00Z",
                 "command": "iostorm precondition /dev/nvme0n1 --allow-write",
                 "target": "/dev/nvme0n1", "workload": "4k-randwrite",
                 "settings": {"threads": 16, "qd": 16, "round_ns": 60000000000,
                              "max_rounds": 25, "passes": 2},
                 "fill": {"passes": 2, "bytes": 2 * 960197124096, "elapsed_ns": 3400000000000},
                 "rounds": rounds,
                 "steady_state": {"reached": True, "metric": "iops", "window_first": 11,
                                  "window_last": 15, "average": avg,
                                  "excursion": (max(last) - min(last)) / avg,
                                  "slope_excursion": 0.02}})
