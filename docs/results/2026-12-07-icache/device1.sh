#!/usr/bin/env bash
# Device call 1 (issue 29, under 7 minutes): #29's whole validation set in one call on one card,
# and what step 07's misprediction comes from.
#  1. outer_8x16_*: step 07's 8 x 16 FFMA outer product from registers with its loop body 1 to 32
#     copies long (6 to 70 KiB of SASS): does the issue rate fall once a loop outgrows what the
#     front end keeps near a scheduler? (step 07's loop is 37 KiB, every other step's < 12 KiB)
#  2. the runnable ladder alone under the power limit at 4096^3, 4096x1024x8192, 2048^3 and 8192^3
#     (the tensor-core steps first at each size), then the variants (step 02's swap-row-col, step
#     13's rings of 2-6 stages at 4096^3 and 8192^3);
#  3. as far as the call's time goes: the model against the card at the example shapes (every
#     kernel and mistake, bit for bit).
#   mkdir -p build/c && tar xJf build/c1/c.txz -C build/c && OUT=$OUT B=build/c bash docs/results/2026-12-07-icache/device1.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
mkdir -p $OUT/r/ncu
timeout 60 $B/gemmscope_timing_probes --only outer_ --json $OUT/r/outer1.json > $OUT/r/outer1.log 2>&1
echo "outer rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
LADDER_ARGS=--no-cublas sustained_ladder "4096 4096x1024x8192 2048 8192" 300 $OUT/r/bench-alone.json
echo "ladder at ${SECONDS} s" >> $OUT/r/status.txt
(cd $OUT && tar czf r1.tgz r)
timing_variants $OUT/r/bench-variants.json
(cd $OUT && tar czf r1.tgz r)
if [ $SECONDS -lt 380 ]; then
  timeout $((405 - SECONDS)) $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
  echo "compare-model rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
fi
(cd $OUT && tar czf r1.tgz r)
cat $OUT/r/env.txt $OUT/r/status.txt | tail -8
grep -hE "^outer_" $OUT/r/outer1.log | cut -c1-60
tail -5 $OUT/r/compare.log 2>/dev/null
