#!/usr/bin/env bash
# #29: where a Hopper step's cycles go when its grid is one wave (2048^3) against many (8192^3):
# each step's own timeline on the card (the traced CTA, every warp, GPU clocks) under a sustained
# clock, and at 2048^3 every warp's start and end of the first wave. Compare with the model here:
#   gemmscope timeline --import FILE --compare-model
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-one-wave/device1.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
mkdir -p $OUT/r/t
for S in 2048 8192; do
  for K in hopper_tma_store hopper_stmatrix_epilogue hopper_persistent hopper_cluster_multicast hopper_producer_consumer; do
    timeout 120 $B/gemmscope bench $K --sizes $S --reps 20 --sustain 1000 --no-cublas --timeline $OUT/r/t/$K-$S.json \
      --timeline-capacity 65536 --json $OUT/r/t/$K-$S.bench.json >> $OUT/r/t.log 2>&1
    echo "$K $S cta rc=$?" >> $OUT/r/status.txt
  done
done
for K in hopper_tma_store hopper_persistent hopper_stmatrix_epilogue; do
  timeout 120 $B/gemmscope bench $K --sizes 2048 --reps 20 --sustain 1000 --no-cublas --timeline $OUT/r/t/$K-2048-wave.json \
    --timeline-ctas wave --timeline-capacity 0 --json $OUT/r/t/$K-2048-wave.bench.json >> $OUT/r/t.log 2>&1
  echo "$K 2048 wave rc=$?" >> $OUT/r/status.txt
done
rm -f $OUT/r/t/*.trace.json
(cd $OUT && tar czf timelines.tgz r/t r/t.log r/status.txt r/env.txt)
cat $OUT/r/status.txt
grep -E "TFLOP|slowdown|clock" $OUT/r/t.log | head -60
