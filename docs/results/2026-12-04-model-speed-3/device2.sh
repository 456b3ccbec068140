#!/usr/bin/env bash
# Device call 2 (issue #29): the spread of a TMA box's loaded latency. Every CTA stamps each
# round (tma_latency_32k_spread*: p50, p90, p99 and the mean of all CTAs' rounds), from L2 with
# 132 and 264 CTAs and from HBM with 132, beside the unstamped rows (CTA 0's mean); two runs.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-model-speed-3/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/r/env.txt 2>&1
for run in 1 2; do
  timeout 200 $B/gemmscope_timing_probes --only tma_latency_32k_spread tma_latency_32k_loaded132 \
    tma_latency_32k_loaded264 --json $OUT/r/spread$run.json > $OUT/r/spread$run.txt 2>&1
  echo "spread run $run rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^tma_latency_32k" $OUT/r/spread1.txt $OUT/r/spread2.txt | cut -c1-90
(cd $OUT && tar czf r2.tgz r && rm -rf r)
