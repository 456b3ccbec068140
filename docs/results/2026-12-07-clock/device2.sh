#!/usr/bin/env bash
# #29: is the gap between steps 15 and 16 at 8192^3 the clock of two runs? Both alone under the power
# limit (`bench --sustain 2000 --no-cublas`), alternated ROUNDS times (default 3) on one card, each run's
# TFLOP/s beside the clock its SMs counted (about 90 s).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-07-clock/device2.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
for r in $(seq ${ROUNDS:-3}); do
  for k in hopper_persistent hopper_fewer_arrivals; do
    timeout 60 $B/gemmscope bench $k --sizes 8192 --reps 50 --sustain 2000 --no-cublas --json $OUT/r/$k-$r.json \
      > $OUT/r/$k-$r.log 2>&1
    echo "$k round $r rc=$?" >> $OUT/r/status.txt
  done
done
python3 - $OUT/r <<'PY'
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "hopper_*-*.json"))):
    for x in json.load(open(f)).get("results", []):
        t = x.get("tflops") or {}
        print(os.path.basename(f), "TFLOP/s", round(t.get("median", 0), 1), "counted MHz", round(x.get("sm_clock_counted_mhz") or 0))
PY
(cd $OUT && tar czf pair.tgz r)
