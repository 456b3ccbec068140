#!/usr/bin/env python3
"""The H200's clock figures from its own probe rows (call 1 here), as the H100's came from
`../2026-12-06-later-waves/fit_exponent.py`: the clock rule of engine/model/timing.cpp
(sustained_clock), with its L2 terms only. Each pause row's predicted clock is the call's matched
row's clock times draw^(-1/e), no higher than clock_sustained_mhz, where draw = W * busy + a * GB/s,
W = (matched / alone)^e (alone: sm_clock_under_wgmma_alone_capped of the same call) and
a = (1 - W * tensor_l2_busy_share) / tensor_l2_stream_gbs. Prints each row, the least-squares
exponent over the four pause rows (log clocks) and, with it, the clocks at which wgmma alone and
cp.async from L2 alone draw what they drew in this call (the H200 description's
clock_tensor_alone_mhz and clock_cp_async_l2_mhz are those clocks referred to its
clock_tensor_l2_mhz).

    python3 docs/results/2026-12-07-clock/fit_h200.py PROBES_JSON
"""
import json
import math
import sys

BUSY_L2, GBS_L2, CEILING, F_L2_DESC = 1.0, 8711, 1798, 1352  # machines.hpp, H200 (2026-12-05 call 5)
rows = {p["name"]: p["gpu"] for p in json.load(open(sys.argv[1]))["probes"] if p.get("gpu") is not None}
P = "sm_clock_under_wgmma_streamed_l2_"
matched, alone = rows[P + "matched_capped"], rows["sm_clock_under_wgmma_alone_capped"]
print(f"matched {matched:.1f} MHz, wgmma alone {alone:.1f} MHz")
fit = []
for n in ("pause100", "pause200"):  # the tensor cores and the streaming slowed alike
    if P + n + "_capped" in rows:
        share = 1024 / rows[P + n + "_rep"]
        fit.append((n, share * BUSY_L2, share * GBS_L2, rows[P + n + "_capped"]))
for n in ("wgpause400", "wgpause800"):  # the wgmma threads alone paused, the streaming at its own rate
    if P + n + "_capped" in rows:
        fit.append((n, 1024 / rows[P + n + "_rep"], rows[P + n + "_gbs"], rows[P + n + "_capped"]))


def predicted(e, busy, gbs):
    w = (matched / alone) ** e
    a = (1 - w * BUSY_L2) / GBS_L2
    return min(CEILING, matched * (w * busy + a * gbs) ** (-1 / e))


def rms(e):
    return math.sqrt(sum(math.log(predicted(e, b, g) / f) ** 2 for _, b, g, f in fit) / len(fit))


for n, b, g, f in fit:
    print(f"{n:11s} busy {100 * b:5.1f}%  {g:7.0f} GB/s  held {f:7.1f} MHz")
best = min(range(150, 301), key=lambda i: rms(i / 100)) / 100
for e in sorted({1.95, 2.30, best}):
    errs = " ".join(f"{n} {100 * (predicted(e, b, g) / f - 1):+.1f}%" for n, b, g, f in fit)
    print(f"e {e:.2f}: rms {100 * rms(e):.1f}%  {errs}")
print(f"least squares: e = {best:.2f}")
# Referred to the description's matched clock: a load that held f where the matched row held
# `matched` draws (matched / f)^e of it; at F_L2_DESC that draw holds F_L2_DESC * draw^(-1/e).
for name, key in (("clock_tensor_alone_mhz", "sm_clock_under_wgmma_alone_capped"),
                  ("clock_cp_async_l2_mhz", "sm_clock_under_cp_async_l2_capped")):
    if key in rows:
        print(f"{name}: held {rows[key]:.1f} against matched {matched:.1f}: {F_L2_DESC * rows[key] / matched:.0f} "
              f"referred to {F_L2_DESC}")
for key in sorted(rows):
    if key.startswith("sm_clock_under_cp_async_l2"):
        print(f"{key} {rows[key]:.1f}")
