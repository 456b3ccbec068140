#!/usr/bin/env bash
# #29: the GEMM-geometry copy probes at step 11's own grids (tma_gemm64_*_k64: 4096^3's, tma_gemm128_mma0_k128:
# 8192^3's) beside the one-wave row, and step 11 itself at those sizes sustained and alone, in one call
# (about a minute; for the card call 2 did not cover).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-later-waves/device3.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 100 $B/gemmscope_timing_probes --only tma_gemm32_mma0 tma_gemm64 tma_gemm128 l2_read_bw \
  --json $OUT/r/probes.json > $OUT/r/probes.log 2>&1
echo "probes rc=$?" >> $OUT/r/status.txt
for size in 4096 8192; do
  timeout 60 $B/gemmscope bench hopper_tma_wgmma_64 --sizes $size --reps 50 --sustain 2000 --no-cublas \
    --json $OUT/r/step11-$size.json > $OUT/r/step11-$size.log 2>&1
  echo "step11 $size rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/status.txt
grep -hE "^(tma_|l2_)" $OUT/r/probes.log | cut -c1-60
grep -h "TFLOP" $OUT/r/step11-*.log | cut -c1-140
(cd $OUT && tar czf r4.tgz r && rm -rf r)
