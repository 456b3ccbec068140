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
    second finds them in L2) and the median;
  * the lasting per-SM pace: each SM's mean CTA run (its first and last CTA left out) over T,
    p90/p10 over the SMs.

  python3 cta-runs.py --same-sms A.json B.json   # do the same SMs run slow in both? (correlation
                                                 # of the SMs' mean CTA runs)
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


def sm_means(runs, T):
    """Each SM's mean CTA run over T, its first and last CTA left out (they start or end the launch)."""
    by_sm = {}
    for s, e, sm in runs.values():
        by_sm.setdefault(sm, []).append((s, e - s))
    means = {}
    for sm, v in by_sm.items():
        v = sorted(v)[1:-1]
        if v:
            means[sm] = sum(d for _, d in v) / len(v) / T
    return means


def correlation(a, b):
    keys = sorted(set(a) & set(b))
    x, y = [a[k] for k in keys], [b[k] for k in keys]
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((p - mx) * (q - my) for p, q in zip(x, y))
    sxx, syy = sum((p - mx) ** 2 for p in x), sum((q - my) ** 2 for q in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")


def file_sm_means(path):
    runs = runs_of(json.load(open(path)))
    return sm_means(runs, pct([e - s for s, e, _ in runs.values()], 0.5))


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
    means = list(sm_means(runs, T).values())
    out.append(f"  lasting per-SM pace: p90/p10 of the SMs' mean CTA run {pct(means, 0.9) / pct(means, 0.1):.4f}")
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--same-sms":
        if len(sys.argv) != 4:
            sys.exit("--same-sms takes two recordings: " + __doc__)
        print(f"correlation of the SMs' mean CTA runs: {correlation(file_sm_means(sys.argv[2]), file_sm_means(sys.argv[3])):.3f}")
    else:
        for p in sys.argv[1:]:
            print(report(p))
