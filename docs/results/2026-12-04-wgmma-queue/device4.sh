#!/usr/bin/env bash
# Device call 4 (#29, #32): the model with the wgmma issue against the card bit for bit (every
# kernel and mistake at its example shape, integer inputs), and every timing probe once.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-wgmma-queue/device4.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/r/env.txt 2>&1
timeout 320 $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
echo "compare-model rc=$?" >> $OUT/r/status.txt
timeout 240 $B/gemmscope_timing_probes --json $OUT/r/probes.json > $OUT/r/probes.txt 2>&1
echo "probes rc=$?" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
echo "identical rows: $(grep -c 'identical, bit for bit' $OUT/r/compare.log)"
grep "model vs GPU:" $OUT/r/compare.log | grep -v "identical, bit for bit\|race:\|hangs on the GPU too" | head
grep -E "^wgmma_issue|^tma_latency_32k " $OUT/r/probes.txt | cut -c1-70
(cd $OUT && tar czf r4.tgz r && rm -rf r)
