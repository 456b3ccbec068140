#!/usr/bin/env bash
# Device call 2 (issues #29 and #32, about 5 minutes): the ring probe's clock (the first-wave rows
# of tma_gemm_ring8192, now with a %globaltimer clock row), then the model after this session's
# speed changes against the GPU, bit for bit: every kernel and each of its mistakes at its
# example shape (bench --compare-model, integer inputs).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-ring/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/r/env.txt 2>&1
timeout 150 $B/gemmscope_timing_probes --only tma_gemm_ring8192_s --json $OUT/r/ring.json > $OUT/r/ring.log 2>&1
echo "ring probes rc=$?" >> $OUT/r/status.txt
timeout 320 $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
echo "compare-model rc=$?" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "_clock|pace20_period" $OUT/r/ring.log | cut -c1-60
echo "identical rows: $(grep -c 'identical, bit for bit' $OUT/r/compare.log)"
grep "model vs GPU:" $OUT/r/compare.log | grep -v "identical, bit for bit\|race:\|hangs on the GPU too" | head
(cd $OUT && tar czf r2.tgz r && rm -rf r)
