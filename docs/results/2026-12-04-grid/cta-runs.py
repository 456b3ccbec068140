#!/usr/bin/env python3
"""Where and when every CTA of one launch of step 13 ran, from `gemmscope timeline --ctas all
--capacity 0 --json FILE` (each warp's start, end and SM), and how far the CTAs that share an A
or a B panel drifted apart.

  python3 cta-runs.py FILE.json [FILE.json ...]

Step 13's grid is (tiles along N, tiles along M): CTA id = x + tiles_n * y, tile (y, x), so CTAs
x and x+1 of a row share A's panel y, and CTAs tiles_n apart share B's panel x. The block
scheduler hands out ids in order, so with every CTA taking the same time T the launch runs in
waves of the CTAs resident at once, each wave's CTAs starting together. Figures, with T the
median CTA run:
  * a CTA's run p10/p50/p90 and p90/p10 (how much the CTAs' paces differ);
  * waves: CTAs resident at once (started before the first CTA ended), and for waves 1, 2, 4, 8,
    ..., the last: the spread of the wave's start times (p90 - p10) over T: 0 while waves keep
    together, 1 where the launch has become a stream of CTAs starting at any time;
  * partners: |start difference| over T of CTAs sharing B's panel (y, x) and (y+1, x), and A's
    (y, x) and (y, x+1): the share within 5% of T (reading the panel's K blocks together, so the
    second finds them in L2) and the median.
"""
import json
import math
import sys


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


def runs_of(doc):
    runs = {}
    for w in doc["warps"]:
        if not w["finished"]:
            continue
        s, e = w["start_ns"], w["start_ns"] + w["ns"]
        r = runs.setdefault(w["cta"], [s, e, w["smid"]])
        r[0], r[1] = min(r[0], s), max(r[1], e)
    return runs


def report(path):
    doc = json.load(open(path))
    params = doc.get("params", {})
    bn = params.get("bn", 128)
    n = doc["shape"]["n"]
    tiles_n = (n + bn - 1) // bn
    runs = runs_of(doc)
    ids = sorted(runs)
    span = [runs[i][1] - runs[i][0] for i in ids]
    T = pct(span, 0.5)
    first_end = min(runs[i][1] for i in ids)
    resident = sum(1 for i in ids if runs[i][0] < first_end)
    launch = max(runs[i][1] for i in ids) - min(runs[i][0] for i in ids)
    out = [f"{path}: {doc['kernel']} {doc['shape']['m']}x{doc['shape']['n']}x{doc['shape']['k']} {params}, "
           f"{doc.get('device', '')}"]
    out.append(f"  {len(ids)} CTAs, {len(set(runs[i][2] for i in ids))} SMs, {resident} resident at once; launch "
               f"{launch / 1000:.1f} us = {launch / T:.2f} T; plain kernel {doc.get('overhead', {}).get('plain_ms')} ms")
    out.append(f"  CTA run T: p10 {pct(span, 0.1) / 1000:.2f} us, p50 {T / 1000:.2f}, p90 {pct(span, 0.9) / 1000:.2f}, "
               f"max {max(span) / 1000:.2f}; p90/p10 {pct(span, 0.9) / pct(span, 0.1):.3f}")
    waves = (len(ids) + resident - 1) // resident
    picks = sorted({1, 2, 4, 8, 16, 24, waves} & set(range(1, waves + 1)))
    line = []
    for w in picks:
        starts = [runs[i][0] for i in ids[(w - 1) * resident: w * resident]]
        if len(starts) > 1:
            line.append(f"w{w} {(pct(starts, 0.9) - pct(starts, 0.1)) / T:.3f}")
    out.append("  wave start spread (p90-p10)/T: " + ", ".join(line))
    for name, step in (("B panel (y,x)-(y+1,x)", tiles_n), ("A panel (y,x)-(y,x+1)", 1)):
        d = []
        for i in ids:
            j = i + step
            if j in runs and (step != 1 or (i % tiles_n) + 1 < tiles_n):
                d.append(abs(runs[j][0] - runs[i][0]) / T)
        if d:
            close = sum(1 for x in d if x < 0.05) / len(d)
            out.append(f"  partners sharing {name}: {len(d)} pairs, within 0.05 T {100 * close:.1f}%, "
                       f"median {pct(d, 0.5):.3f} T, p90 {pct(d, 0.9):.3f} T")
    # The same for the pairs of one wave only (both CTAs among the wave's ids), wave by wave.
    line = []
    for w in picks:
        lo, hi = (w - 1) * resident, w * resident
        d = [abs(runs[ids[k + tiles_n]][0] - runs[ids[k]][0]) / T for k in range(lo, min(hi, len(ids)) - tiles_n)]
        if d:
            line.append(f"w{w} {100 * sum(1 for x in d if x < 0.05) / len(d):.0f}%")
    out.append("  B-panel partners of one wave within 0.05 T: " + ", ".join(line))
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        print(report(p))
