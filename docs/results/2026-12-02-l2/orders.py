#!/usr/bin/env python3
"""Step 16's HBM bytes by tile order: the model's (sim --traced-cta-only, the prediction's HBM bytes
per wave x waves) against Nsight Compute's dram__bytes_read (call2/ncu.tgz).

    docs/results/2026-12-02-l2/orders.py GEMMSCOPE [GEMMSCOPE ...]
"""
import json
import os
import re
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = {0: "row", 1: "grouped", 2: "Hilbert"}


def measured():
    out = {}
    with tarfile.open(os.path.join(HERE, "call2", "ncu.tgz")) as t:
        for m in t.getmembers():
            g = re.search(r"step16-(\d+)-order(\d)\.txt$", m.name)
            if not g:
                continue
            text = t.extractfile(m).read().decode()
            v = re.search(r"dram__bytes_read\.sum\s+(\w+)\s+([\d.,]+)", text)
            scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}[v.group(1)]
            out[(int(g.group(1)), int(g.group(2)))] = float(v.group(2).replace(",", "")) * scale
    return out


def predicted(exe, size, order):
    r = subprocess.run([exe, "sim", "hopper_fewer_arrivals", "--m", str(size), "--n", str(size), "--k", str(size),
                        "--param", f"order={order}", "--machine", "h200", "--traced-cta-only", "--json"],
                       capture_output=True, text=True)
    p = json.loads(r.stdout)["prediction"]
    return p["bytes_per_wave"]["hbm"] * p["waves"]


def main():
    meas = measured()
    exes = sys.argv[1:]
    print("| size | order | measured (MB) | " + " | ".join(f"model {i + 1} (MB)" for i in range(len(exes))) + " |")
    print("|---|---|---|" + "---|" * len(exes))
    for size in (4096, 8192):
        for order in (0, 1, 2):
            cells = [f"{predicted(e, size, order) / 1e6:.0f}" for e in exes]
            print(f"| {size}³ | {NAMES[order]} | {meas[(size, order)] / 1e6:.0f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
