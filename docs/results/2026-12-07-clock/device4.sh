#!/usr/bin/env bash
# #29, the shortest call that answers device3.sh's open question: step 13's ring depths 2..6 at 4096^3,
# each alone under the power limit (`bench --sustain 2000 --no-cublas`, 20 timed launches), about 45 s.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-07-clock/device4.sh
# Then here: python3 scripts/timing-validate.py build/devcarry/gemmscope r/bench-rings.json OUTDIR
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
mkdir -p $OUT/r/v
for s in 4 2 3 5 6; do
  timeout 40 $B/gemmscope bench hopper_producer_consumer --sizes 4096 --reps 20 --sustain 2000 --no-cublas \
    --param stages=$s --json $OUT/r/v/v-st$s.json >> $OUT/r/bench-rings.log 2>&1
  echo "stages $s rc=$?" >> $OUT/r/status.txt
done
python3 "$(dirname "$0")/../../../scripts/merge-bench-json.py" $OUT/r/bench-rings.json "" $OUT/r/v/v-st*.json
rm -rf $OUT/r/v
(cd $OUT && tar czf rings.tgz r)
grep -E "TFLOP|MHz" $OUT/r/bench-rings.log | head -20
