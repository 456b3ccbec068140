#!/usr/bin/env python3
"""Step 13's ring depths over call 3's four rounds (device3.sh): per size and depth, each round's median
TFLOP/s, counted SM clock, cycles a launch (median ms x counted clock) and ratio to cuBLAS (bf16 A/B,
f32 C against cuBLAS's f32 C), then each measure's median over the rounds and its range, and the depths'
order by each.  python3 rings-table.py DIR_OF_JSON"""
import json, glob, os, sys, statistics as st
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    rnd, size, s = os.path.basename(f)[:-5].split("-")
    r = json.load(open(f))["results"][0]
    rows.setdefault(int(size), {}).setdefault(int(s[1:]), []).append(
        (r["tflops"]["median"], r["sm_clock_counted_mhz"], r["ms"]["median"] * r["sm_clock_counted_mhz"] * 1e3 / 1e6,
         r["ratio_vs_cublas"]))
names = ["TFLOP/s", "clock MHz", "M cycles", "x cuBLAS"]
for size in sorted(rows, reverse=True):
    print(f"## {size}^3\n")
    print("| stages | " + " | ".join(f"{n} (median, range of 4)" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    med = {}
    for s in sorted(rows[size]):
        v = rows[size][s]
        cells = []
        for i in range(len(names)):
            xs = [x[i] for x in v]
            med.setdefault(i, {})[s] = st.median(xs)
            cells.append(f"{st.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})" if i >= 2 else
                         f"{st.median(xs):.1f} ({min(xs):.1f}-{max(xs):.1f})")
        print(f"| {s} | " + " | ".join(cells) + " |")
    print()
    for i, n in enumerate(names):
        if i == 1: continue
        order = sorted(med[i], key=lambda s: med[i][s], reverse=(i != 2))
        print(f"- by {n}, fastest first: {' > '.join(map(str, order))}")
    print()
