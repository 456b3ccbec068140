#!/usr/bin/env bash
# Device call 6 (issue #29): the ladder at 4096^3 with 200 timed launches a step (bench's default is 20),
# for scripts/timing-validate.py against the model: the absolute TFLOP/s and clocks of rounds long enough
# to approach the power limit (call 5: step 13 at 1439 MHz in 200 launches, 1730 in 20).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-05-device/device6.sh     (about 4 minutes)
source "$(dirname "$0")/../../../scripts/device-call.sh"
# Step by step, each its own JSON, so that a cut at the time limit keeps the steps before it.
mkdir -p $OUT/r/v
end=$((SECONDS + 150))
for k in $($B/gemmscope list | awk '$1 ~ /^[0-9][0-9]$/ && $3 != "sm_100a" {print $2}' | tac); do  # the tensor-core steps first
  [ $SECONDS -lt $end ] || { echo "$k not run: out of time" >> $OUT/r/status.txt; continue; }
  timeout 60 $B/gemmscope bench $k --sizes 4096 --reps 200 --json $OUT/r/v/$k.json >> $OUT/r/bench.log 2>&1
  echo "$k rc=$?" >> $OUT/r/status.txt
done
python3 - $OUT/r/v $OUT/r/bench-4096-r200.json "$($B/gemmscope list | awk '$1 ~ /^[0-9][0-9]$/ {print $2}')" <<'PY'
import json, glob, os, sys
merged = None
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    d = json.load(open(f))
    if merged is None: merged = d
    else: merged["results"] += d["results"]
order = sys.argv[3].split()  # the ladder's order, which timing-validate.py's consecutive pairs follow
if merged:
    merged["results"].sort(key=lambda r: order.index(r["kernel"]) if r["kernel"] in order else len(order))
    json.dump(merged, open(sys.argv[2], "w"), indent=1)
PY
rm -rf $OUT/r/v
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^(simt|ampere|hopper)" $OUT/r/bench.log | cut -c1-110 | head -25
(cd $OUT && tar czf r6.tgz r && rm -rf r)
