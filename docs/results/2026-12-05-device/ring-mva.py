#!/usr/bin/env python3
"""Step 13's ring without math (issue #29): the K periods the H200 measured for rings of 2-6 stages at
three paces, against a closed queue solved by mean-value analysis (MVA). Each SM's `s` stages circulate
through a fixed delay (Z: the box's latency without queueing, plus the consumer's T) and one queue
(P: a box pair's service at the SM's share of the wave's read bandwidth); the period is the MVA cycle
time over s, and never less than the consumer's T. Z, P and the loop's cycles are fitted by a grid
search minimising the largest relative error over all 15 rows (pace 1 alone, then all three paces).
  python3 docs/results/2026-12-05-device/ring-mva.py"""
import json, os

here = os.path.dirname(os.path.abspath(__file__))
def rows(files, pace_of):
    out = {}
    for f in files:
        for p in json.load(open(f))["probes"]:
            n = p["name"]
            if n.startswith("tma_gemm_ring8192_s") and n.endswith("_period") and "_grid" not in n and "_heat" not in n \
                    and "_split" not in n:
                s = int(n.split("_s")[1].split("_")[0]); pace = int(n.split("_pace")[1].split("_")[0])
                if pace in pace_of: out.setdefault(pace, {}).setdefault(s, []).append(p["gpu"])
    return {pace: {s: sum(v) / len(v) for s, v in d.items()} for pace, d in out.items()}

meas = rows([os.path.join(here, "call1", f) for f in ("pace1-1.json", "pace1-2.json")], {1})
ring = os.path.join(here, "..", "2026-12-04-ring")
meas.update(rows([os.path.join(ring, "call1", f) for f in ("probes1.json", "probes2.json")], {12, 20}))

def mva_period(s, delay, service):
    q = 0.0
    for k in range(1, s + 1):
        r = service * (1 + q)
        x = k / (delay + r)
        q = x * r
    return 1 / x

def predict(s, z, p, t): return max(mva_period(s, z + t, p), t)

def fit(paces):
    best = None
    for z in range(300, 1100, 5):
        for p in range(600, 760, 5):
            for loop in range(100, 300, 10):
                e = max(abs(predict(s, z, p, loop + 32 * pace) / v - 1) for pace in paces for s, v in meas[pace].items())
                if best is None or e < best[0]: best = (e, z, p, loop)
    return best

for paces in ([1], [1, 12, 20]):
    e, z, p, loop = fit(paces)
    print(f"fitted on pace {paces}: Z {z}, P {p}, loop {loop} cycles (a pace's T = loop + 32 x pace); largest error {100 * e:.1f}%")
    print("| pace | stages | measured | MVA | error |\n|---|---|---|---|---|")
    for pace in sorted(meas):
        for s, v in sorted(meas[pace].items()):
            m = predict(s, z, p, loop + 32 * pace)
            print(f"| {pace} | {s} | {v:.0f} | {m:.0f} | {100 * (m / v - 1):+.1f}% |")
    print()
