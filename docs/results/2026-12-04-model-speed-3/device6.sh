#!/usr/bin/env bash
# Device call 6 (issue #29): a GEMM wave's TMA boxes as step 13 reads them, without its math
# (tma_gemm_wave4096_*, tma_gemm_wave8192_*: the first wave's 132 CTAs of 128 x 128 tiles, each
# loading its A and B box of every K block, stamped; p50, p90, p99, mean); two runs.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-model-speed-3/device6.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/r/env.txt 2>&1
for run in 1 2; do
  timeout 200 $B/gemmscope_timing_probes --only tma_gemm_wave --json $OUT/r/wave$run.json > $OUT/r/wave$run.txt 2>&1
  echo "gemm wave run $run rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^tma_gemm_wave" $OUT/r/wave1.txt $OUT/r/wave2.txt | cut -c1-80
(cd $OUT && tar czf r6.tgz r && rm -rf r)
