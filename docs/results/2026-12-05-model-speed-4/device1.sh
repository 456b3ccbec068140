#!/usr/bin/env bash
# Device call 1 for the next session that is lent a card (not run in this one: no card was lent).
# Issue #32: the model after this session's speed changes against the GPU, bit for bit (every
# kernel and each of its mistakes at its example shape, integer inputs). Issue #29: the ring rows
# without math (pace 1, 2-6 K blocks in flight an SM, first wave of 8192^3), twice: a box pair's
# latency against the load, of which pace 12's rings gave two points.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-05-model-speed-4/device1.sh     (about 6 minutes)
source "$(dirname "$0")/../../../scripts/device-call.sh"
timeout 320 $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
echo "compare-model rc=$?" >> $OUT/r/status.txt
rows="tma_gemm_ring8192_s2_pace1_ tma_gemm_ring8192_s3_pace1_ tma_gemm_ring8192_s4_pace1_ tma_gemm_ring8192_s5_pace1_ tma_gemm_ring8192_s6_pace1_"
for i in 1 2; do
  timeout 100 $B/gemmscope_timing_probes --only $rows --json $OUT/r/pace1-$i.json > $OUT/r/pace1-$i.log 2>&1
  echo "pace-1 ring rows $i rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/env.txt $OUT/r/status.txt
echo "identical rows: $(grep -c 'identical, bit for bit' $OUT/r/compare.log)"
grep "model vs GPU:" $OUT/r/compare.log | grep -v "identical, bit for bit\|race:\|hangs on the GPU too" | head
grep -hE "^tma_gemm_ring8192_s[2-6]_pace1" $OUT/r/pace1-1.log $OUT/r/pace1-2.log | cut -c1-62
(cd $OUT && tar czf r1.tgz r && rm -rf r)
