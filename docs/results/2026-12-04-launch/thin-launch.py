#!/usr/bin/env python3
"""A whole launch's recording (`gemmscope timeline ID --ctas all --capacity 0 --json FILE`) kept to
what its launch map needs: of each CTA's warps, the one that started first and the one that ended
last (a CTA's run is the first warp's start to the last warp's end, run::cta_runs), so the file is
a quarter of its size and opens in the app (File > Import timeline...) as the whole one does.

  python3 thin-launch.py IN.json OUT.timeline.json
"""
import json
import sys

if len(sys.argv) != 3:
    sys.exit(__doc__)
doc = json.load(open(sys.argv[1]))
if doc.get("events") or doc.get("layout", {}).get("capacity") != 0:
    sys.exit(f"{sys.argv[1]} is not a launch-only recording (--capacity 0, no events)")
by_cta = {}
for w in doc["warps"]:
    if w["finished"]:
        by_cta.setdefault(w["cta"], []).append(w)
warps = []
for cta in sorted(by_cta):
    ws = by_cta[cta]
    first = min(ws, key=lambda w: w["start_ns"])
    last = max(ws, key=lambda w: w["start_ns"] + w["ns"])
    warps += [first] if first is last else sorted([first, last], key=lambda w: w["warp"])
doc["warps"] = warps
doc["warnings"] = doc.get("warnings", []) + [
    f"thinned by thin-launch.py: of each CTA's warps the first to start and the last to end ({len(warps)} of "
    f"{sum(len(v) for v in by_cta.values())} finished warps)"]
with open(sys.argv[2], "w") as f:
    json.dump(doc, f, separators=(",", ":"))
