#!/usr/bin/env bash
# Device call 6 (about 1 minute): TMA latency under load with the boxes shared by 8 or 66 CTAs
# (as a GEMM wave reads its panels), beside the private-box rows, twice.
#   OUT=/tmp/out bash docs/results/<this folder>/device6.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
for r in 1 2; do
  timeout 100 $B/gemmscope_timing_probes --only tma_latency_32k --json $OUT/probes$r.json >> $OUT/probes.log 2>&1
  echo "probes $r rc=$?" >> $OUT/status.txt
done
cat $OUT/status.txt; cat $OUT/probes.log
