#!/usr/bin/env bash
# Device call 3 (issue #29): the spread of a loaded TMA box's latency where 32 CTAs read each box
# together, as step 13's CTAs share its A and B panels at 4096^3 (tma_latency_32k_spread*_share32:
# 264 and 528 CTAs, two and four an SM), beside the shared rows' unstamped means; two runs.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-model-speed-3/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/r/env.txt 2>&1
for run in 1 2; do
  timeout 200 $B/gemmscope_timing_probes --only tma_latency_32k_spread264_share tma_latency_32k_spread528_share \
    tma_latency_32k_loaded528_share --json $OUT/r/share$run.json > $OUT/r/share$run.txt 2>&1
  echo "share run $run rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^tma_latency_32k" $OUT/r/share1.txt $OUT/r/share2.txt | cut -c1-90
(cd $OUT && tar czf r3.tgz r && rm -rf r)
