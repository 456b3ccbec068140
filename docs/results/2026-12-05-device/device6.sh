#!/usr/bin/env bash
# Device call 6 (issue #29): the ladder at 4096^3 with 200 timed launches a step (bench's default is 20),
# for scripts/timing-validate.py against the model: the absolute TFLOP/s and clocks of rounds long enough
# to approach the power limit (call 5: step 13 at 1439 MHz in 200 launches, 1730 in 20).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-05-device/device6.sh     (about 4 minutes)
source "$(dirname "$0")/../../../scripts/device-call.sh"
timeout 400 $B/gemmscope bench all --sizes 4096 --reps 200 --json $OUT/r/bench-4096-r200.json > $OUT/r/bench.log 2>&1
echo "bench all 4096 reps 200 rc=$?" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^(simt|ampere|hopper)" $OUT/r/bench.log | cut -c1-110 | head -25
(cd $OUT && tar czf r6.tgz r && rm -rf r)
