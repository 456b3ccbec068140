#!/usr/bin/env python3
"""Each step's prediction error split into clock and cycles, with the clock bench counted (sm_clock_counted_mhz).

    docs/results/2026-12-02-l2/clock-split.py PREDICTIONS_JSON BENCH_JSON
(PREDICTIONS_JSON: scripts/timing-validate.py's predictions.json for BENCH_JSON.) Time error = cycles error
combined with clock error: (1 + time) = (1 + cycles) / (1 + clock), + meaning the model is fast.
"""
import json
import sys

preds = json.load(open(sys.argv[1]))["rows"]
bench = {}
for r in json.load(open(sys.argv[2]))["results"]:
    s = r["shape"]
    name = f"{s['m']}^3" if s["m"] == s["n"] == s["k"] else f"{s['m']}x{s['n']}x{s['k']}"
    if not r.get("mistakes") and r.get("sm_clock_counted_mhz"):
        bench[(r["kernel"], name)] = r
print("| step | size | TFLOP/s error | model MHz | counted MHz | clock error | cycles error |")
print("|---|---|---|---|---|---|---|")
for p in preds:
    if p.get("mistakes"):  # every step at the parameters bench ran it with (its defaults: `bench all`)
        continue
    key = (p["kernel"], p["shape"])
    if key not in bench:
        continue
    counted = bench[key]["sm_clock_counted_mhz"]
    model = p["prediction"]["clock_mhz"]
    time_err = p["error"]                      # predicted / measured TFLOP/s - 1
    clock_err = model / counted - 1            # + the model's clock is high
    cycles_err = (1 + time_err) / (1 + clock_err) - 1  # + the model counts too few cycles
    print(f"| {p['kernel']} | {p['shape']} | {100 * time_err:+.1f}% | {model:.0f} | {counted:.0f} | {100 * clock_err:+.1f}% | "
          f"{100 * cycles_err:+.1f}% |")
