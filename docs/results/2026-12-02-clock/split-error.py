#!/usr/bin/env python3
"""Splits the model's error on each bench run into its clock and its cycles (issue 29).

For every runs/<id>-<size>.bench.json with its .timeline.json (clock-in-launch.sh), runs
`gemmscope sim ID --m S --n S --k S --traced-cta-only --machine h200 --json` and prints:
the measured time, the SM clock the launch ran at (the record's %clock64 over %globaltimer),
the cycles that makes, the model's clock and cycles, and the error of each part.

  split-error.py BUILD/gemmscope RUNS_DIR [CLOCKS.json]

RUNS_DIR holds the runs' bench JSON (here: tar xzf bench-runs.tgz makes runs/); the clocks come
from each run's .timeline.json there, else from CLOCKS.json (timeline-clocks.json: each record's
clock and overhead, without the events).
"""
import json, os, subprocess, sys

binary, d = sys.argv[1], sys.argv[2]
clocks = json.load(open(sys.argv[3])) if len(sys.argv) > 3 else {}
print(f"{'kernel':26} {'size':>5} {'ms':>7} {'MHz':>6} {'Mcyc':>7} | {'model MHz':>9} {'Mcyc':>7} {'ms':>7} | "
      f"{'clock err':>9} {'cycles err':>10} {'time err':>8} {'at its clock':>12}")
for f in sorted(os.listdir(d)):
    if not f.endswith(".bench.json"):
        continue
    r = json.load(open(os.path.join(d, f)))["results"][0]
    tl = os.path.join(d, f.replace(".bench.json", ".timeline.json"))
    t = json.load(open(tl)) if os.path.exists(tl) else clocks[f[: -len(".bench.json")]]
    s = r["shape"]
    sim = json.loads(subprocess.run([binary, "sim", r["kernel"], "--m", str(s["m"]), "--n", str(s["n"]), "--k",
                                     str(s["k"]), "--traced-cta-only", "--machine", "h200", "--json"],
                                    capture_output=True, check=True).stdout)
    ms = r["ms"]["median"]
    mhz = 1000 * t["clock_ghz"]
    cyc = ms * 1e-3 * mhz * 1e6
    p = sim["prediction"]
    model_ms = 1e3 * sim["predicted_seconds"]
    model_cyc = model_ms * 1e-3 * p["clock_mhz"] * 1e6
    print(f"{r['kernel']:26} {s['m']:5} {ms:7.3f} {mhz:6.0f} {cyc / 1e6:7.2f} | {p['clock_mhz']:9.0f} "
          f"{model_cyc / 1e6:7.2f} {model_ms:7.3f} | {100 * (p['clock_mhz'] / mhz - 1):+8.1f}% "
          f"{100 * (model_cyc / cyc - 1):+9.1f}% {100 * (model_ms / ms - 1):+7.1f}% "
          f"{100 * (model_cyc / (mhz * 1e6) * 1e3 / ms - 1):+11.1f}%")
