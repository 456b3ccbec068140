#!/usr/bin/env bash
# Device call 3 (#29): a 32-KiB TMA box's issue-to-land time as the load on L2 grows (16, 33, 66,
# 99, 132 CTAs of one box each in flight, and 264), beside the HBM rows, twice.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-wgmma-queue/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $OUT/r/env.txt 2>&1
for run in 1 2; do
  $B/gemmscope_timing_probes --only tma_latency --json $OUT/r/probes$run.json > $OUT/r/probes$run.txt 2>&1
  echo "probes run $run rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/status.txt; grep -E "^tma" $OUT/r/probes1.txt $OUT/r/probes2.txt | cut -c1-90
(cd $OUT && tar czf r3.tgz r && rm -rf r)
