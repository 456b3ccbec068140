#!/usr/bin/env python3
"""The H100's clock_power_exponent from the pause rows (2026-12-06, call 5; the clock rule of
engine/model/timing.cpp, sustained_clock, with its L2 terms only): each row's predicted clock is
its call's matched row's clock times draw^(-1/e), no higher than clock_sustained_mhz, where
draw = W * busy + a * GB/s, W = (clock_tensor_l2_mhz / clock_tensor_alone_mhz)^e and
a = (1 - W * tensor_l2_busy_share) / tensor_l2_stream_gbs. Prints each exponent's errors and the
least-squares one over the four rows (log clocks).

    python3 docs/results/2026-12-06-later-waves/fit_exponent.py
"""
import math

F_L2, F_ALONE, GBS_L2, BUSY_L2, CEILING = 1388, 1608, 8550, 0.957, 1832  # machines.hpp, H100
# name, busy share of the launch, GB/s through L2, held MHz, the same call's matched row's MHz
ROWS = [
    # 2026-12-05 call 7: the tensor cores and the streaming slowed alike (1024 / rep of the matched row's busy)
    ("pause100", 0.96 * BUSY_L2, 0.96 * GBS_L2, 1427.3, 1379.8),
    ("pause200", 0.672 * BUSY_L2, 0.672 * GBS_L2, 1697.0, 1379.8),
    # 2026-12-06 call 5: the wgmma threads alone paused (busy 1024 / _rep), the streaming at its own rate (_gbs)
    ("wgpause400", 1024 / 2182.99, 9226.35, 1590.44, 1368.32),
    ("wgpause800", 1024 / 3797.77, 9369.84, 1783.09, 1368.32),
]
CHECKS = [  # not fitted: step 11's wgmma shape as the matched row; both slowed alike at the ceiling
    ("matched_n64", 256 / 286.61, 8372.53, 1436.47, 1368.32),
    ("pause400", 1024 / 2342.44 * BUSY_L2, 1024 / 2342.44 * GBS_L2, 1796.77, 1368.32),
    # call 6 (device5.sh, 2026-12-07 00:21 UTC, an H100 again): the four rows once more
    ("pause100_c6", 1024 / 1065.87 * BUSY_L2, 1024 / 1065.87 * GBS_L2, 1482.63, 1392.14),
    ("pause200_c6", 1024 / 1524.17 * BUSY_L2, 1024 / 1524.17 * GBS_L2, 1730.13, 1392.14),
    ("wgpause400_c6", 1024 / 2182.74, 9293.40, 1635.62, 1392.14),
    ("wgpause800_c6", 1024 / 3798.08, 9621.62, 1810.81, 1392.14),
]


def predicted(e, busy, gbs, matched):
    w = (F_L2 / F_ALONE) ** e
    a = (1 - w * BUSY_L2) / GBS_L2
    return min(CEILING, matched * (w * busy + a * gbs) ** (-1 / e))


def rms(e):
    return math.sqrt(sum(math.log(predicted(e, b, g, m) / f) ** 2 for _, b, g, f, m in ROWS) / len(ROWS))


best = min(range(150, 301), key=lambda i: rms(i / 100)) / 100
for e in sorted({1.92, best}):
    errs = " ".join(f"{n} {100 * (predicted(e, b, g, m) / f - 1):+.1f}%" for n, b, g, f, m in ROWS + CHECKS)
    print(f"e {e:.2f}: rms {100 * rms(e):.1f}%  {errs}")
print(f"least squares: e = {best:.2f}")
