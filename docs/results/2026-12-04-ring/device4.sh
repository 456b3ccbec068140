#!/usr/bin/env bash
# Device call 4 (issue 29, about 3 minutes): is a loaded TMA K block's latency fixed in nanoseconds
# or in SM cycles? The ring probe beside two warpgroups of wgmma on random data (the SMs at a
# GEMM's clock, tma_gemm_ring8192_heat_*) twice, and the unheated first-wave rows once, same call.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-ring/device4.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/r/env.txt 2>&1
for i in 1 2; do
  timeout 120 $B/gemmscope_timing_probes --only tma_gemm_ring8192_heat --json $OUT/r/heat$i.json > $OUT/r/heat$i.log 2>&1
  echo "heated rows $i rc=$?" >> $OUT/r/status.txt
done
timeout 150 $B/gemmscope_timing_probes --only tma_gemm_ring8192_s --json $OUT/r/plain.json > $OUT/r/plain.log 2>&1
echo "plain rows rc=$?" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
grep -hE "^tma_gemm_ring8192_heat" $OUT/r/heat1.log $OUT/r/heat2.log | cut -c1-62
grep -hE "pace20_(period|clock|wait_mean)" $OUT/r/plain.log | cut -c1-62
grep -h "GPU:" $OUT/r/heat1.log | head -3
(cd $OUT && tar czf r4.tgz r && rm -rf r)
