#!/usr/bin/env bash
# Device call 5 (issue #29): does the clock bench counts fall to the model's sustained clock when the
# timed rounds are longer? Steps 13 and 19 at 4096^3 with 20, 200 and 1000 timed launches, and at
# 8192^3 with 20 and 200: TFLOP/s, the counted SM clock, the ratio to cuBLAS.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-05-device/device5.sh     (about 3 minutes)
source "$(dirname "$0")/../../../scripts/device-call.sh"
mkdir -p $OUT/r/v
for k in hopper_producer_consumer hopper_stmatrix_epilogue; do
  for reps in 20 200 1000; do
    timeout 90 $B/gemmscope bench $k --sizes 4096 --reps $reps --json $OUT/r/v/$k-4096-r$reps.json >> $OUT/r/bench.log 2>&1
    echo "$k 4096 reps $reps rc=$?" >> $OUT/r/status.txt
  done
  for reps in 20 200; do
    timeout 120 $B/gemmscope bench $k --sizes 8192 --reps $reps --json $OUT/r/v/$k-8192-r$reps.json >> $OUT/r/bench.log 2>&1
    echo "$k 8192 reps $reps rc=$?" >> $OUT/r/status.txt
  done
done
cat $OUT/r/env.txt $OUT/r/status.txt
python3 - $OUT/r/v <<'PY'
import json, glob, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    r = json.load(open(f))["results"][0]
    print(os.path.basename(f)[:-5], round(r["tflops"]["median"], 1), round(r.get("sm_clock_counted_mhz") or 0),
          round(r["ratio_vs_cublas"], 3), round(r["ms"]["median"], 3))
PY
(cd $OUT/r && tar cJf v.txz v && rm -rf v)
(cd $OUT && tar czf r5.tgz r && rm -rf r)
