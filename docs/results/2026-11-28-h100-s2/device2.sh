#!/usr/bin/env bash
# Device call 2: the timeline pass's overhead, plain copy first (gemmscope, this tree) against
# plain copy last (gemmscope-oldlayout: this tree with engine/ir/instrument.cpp as at 0cc0d6f),
# three alternating rounds of steps 11, 13, 15 and 16 at 8192^3, 30 plain/instrumented pairs each.
#   OUT=/tmp/out bash docs/results/<this folder>/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p "$OUT"
W=$(mktemp -d)
for round in 1 2 3; do
  for k in hopper_tma_wgmma_64 hopper_producer_consumer hopper_persistent hopper_fewer_arrivals; do
    for bin in gemmscope gemmscope-oldlayout; do
      echo "### round $round $k $bin" >> $OUT/layout.log
      timeout 40 $B/$bin bench $k --sizes 8192 --reps 30 --timeline $W/$k.$bin.$round.timeline.json \
        --timeline-capacity 65536 >> $OUT/layout.log 2>&1
    done
  done
done
python3 - $W $OUT/layout.json <<'PY'
import json, sys, glob, os
rows = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.timeline.json"))):
    if f.endswith(".trace.json"): continue
    d = json.load(open(f))
    k, b, r = os.path.basename(f).split(".")[:3]
    o = d.get("overhead", {})
    rows.append({"kernel": k, "binary": b, "round": int(r), **o,
                 "recording_cta_warp0_ns": d["warps"][0]["ns"] if d.get("warps") else None})
json.dump(rows, open(sys.argv[2], "w"), indent=1)
for row in rows: print(row["kernel"], row["binary"], row["round"], "%+.1f%%" % (100 * row.get("slowdown", 0)))
PY
