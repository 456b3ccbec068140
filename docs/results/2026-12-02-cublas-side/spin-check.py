#!/usr/bin/env python3
"""The clock spins of `gemmscope bench --json` files beside the clocks the SMs counted.

    python3 spin-check.py BENCH_JSON...

Per result: ours' counted clock (the instrumented launch right after the timed rounds), the
three spins after ours' 1.3-s power soak (where the soak ran), the three after cuBLAS's, and
both sides' median power. The spins' check is how close the first spin after ours comes to the
counted clock; the table's last lines give the median and the spread of that difference.
"""
import json
import statistics
import sys


def results(path):
    d = json.load(open(path))
    if isinstance(d, dict):
        d = d.get("results", [d])
    return d


def power(r, key):
    c = r.get(key) or {}
    p = (c.get("power_w") or {}).get("median")
    return f"{p:.0f}" if p else "-"


def spins(v):
    return "/".join(f"{x:.0f}" for x in v) if v else "-"


rows, diffs = [], []
for path in sys.argv[1:]:
    for r in results(path):
        if r.get("status") != "ok":
            continue
        s = r["shape"]
        counted = r.get("sm_clock_counted_mhz")
        ours = r.get("clock_spins_after_ours_mhz") or []
        blas = r.get("cublas_clock_spins_mhz") or []
        if counted and ours:
            diffs.append(ours[0] / counted - 1)
        rows.append((r["kernel"], f"{s['m']}x{s['n']}x{s['k']}", f"{counted:.0f}" if counted else "-", spins(ours),
                     power(r, "conditions"), spins(blas), power(r, "cublas_conditions")))

head = ("kernel", "shape", "counted", "spins after ours", "ours W", "spins after cuBLAS", "cuBLAS W")
w = [max(len(str(x[i])) for x in rows + [head]) for i in range(len(head))]
for row in [head] + rows:
    print("  ".join(str(v).ljust(w[i]) for i, v in enumerate(row)))
if diffs:
    q = statistics.quantiles(diffs, n=4) if len(diffs) > 1 else [diffs[0]] * 3
    print(f"\nfirst spin after ours / counted - 1: median {100 * statistics.median(diffs):+.1f}%, "
          f"quartiles {100 * q[0]:+.1f}% .. {100 * q[2]:+.1f}%, range {100 * min(diffs):+.1f}% .. "
          f"{100 * max(diffs):+.1f}% over {len(diffs)} results")
