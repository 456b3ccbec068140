#!/usr/bin/env bash
# Device call 2: the cp.async probes with 80 ld.shared a round beside the copies (the data path
# then has more to carry than the copies' lines take the tag stage), with the earlier ones
# beside them, twice.
#   OUT=/tmp/out B=build/carry2 bash docs/results/2026-12-03-lines/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
for run in 1 2; do
  timeout 200 $B/gemmscope_timing_probes --only cp_async_fill --json $OUT/probes-$run.json > $OUT/probes-$run.log 2>&1
  echo "probes $run rc=$?" >> $OUT/status.txt
done
cat $OUT/env.txt $OUT/status.txt
grep -E "^cp_" $OUT/probes-1.log $OUT/probes-2.log | cut -c1-110
