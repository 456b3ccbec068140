#!/usr/bin/env bash
# Device call 1 (issue 29, under 10 minutes): #29's whole validation set in one call on one card.
#  1. the runnable ladder alone under the power limit at 4096^3, 4096x1024x8192, 2048^3 and 8192^3
#     (the tensor-core steps first at each size), with time for all four sizes (the 2026-12-07-icache
#     call's 300 s left 8192^3's steps 01-06 out);
#  2. the variants (step 02's swap-row-col, step 13's rings of 2-6 stages at 4096^3 and 8192^3);
#  3. (first, 40 s) the copy-arrival probes' tail rows (2026-12-08-trip section 4: the slowest warps' last
#     load and the round's own length);
#  4. as far as the call's time goes: the model against the card at the example shapes.
#   mkdir -p build/c && tar xJf build/c1/c.txz -C build/c && OUT=$OUT B=build/c bash docs/results/2026-12-07-one-run/device1.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
# When a one-trip round's loads come back, the tail (../2026-12-08-trip section 4): the 10th and 90th
# percentile and slowest warp of the last load, and the probe's own round.
timeout 60 $B/gemmscope_timing_probes --only copy_arrive_1w_8x16_l8_ copy_arrive_4w_8x16_l8_ copy_arrive_4w_16x16_l16_ \
  copy_arrive_1w_8x16_round copy_arrive_4w_8x16_round copy_arrive_4w_16x16_round --json $OUT/r/arrive.json \
  > $OUT/r/arrive.log 2>&1
echo "arrival probes rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
LADDER_ARGS=--no-cublas sustained_ladder "4096 4096x1024x8192 2048 8192" 420 $OUT/r/bench-alone.json
echo "ladder at ${SECONDS} s" >> $OUT/r/status.txt
(cd $OUT && tar czf r1.tgz r)
if [ $SECONDS -lt 515 ]; then
  timing_variants $OUT/r/bench-variants.json
else
  echo "variants not run: out of time" >> $OUT/r/status.txt
fi
(cd $OUT && tar czf r1.tgz r)
if [ $SECONDS -lt 540 ]; then
  timeout $((575 - SECONDS)) $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
  echo "compare-model rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
fi
(cd $OUT && tar czf r1.tgz r)
cat $OUT/r/env.txt; grep -v "rc=0$" $OUT/r/status.txt | tail -12
tail -3 $OUT/r/compare.log 2>/dev/null
grep -v "^  GPU" $OUT/r/arrive.log | cut -c1-60 | head -14
