#!/usr/bin/env bash
# Device call 1 (issue #32): the model after this session's speed changes against the GPU, bit for
# bit: every kernel and each of its mistakes at its example shape (bench --compare-model, integer
# inputs), then the [gpu] tests (their model-vs-GPU cases included).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-model-speed-3/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/r/env.txt 2>&1
timeout 320 $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
echo "compare-model rc=$?" >> $OUT/r/status.txt
timeout 420 $B/gemmscope_tests "[gpu]" -r console --durations yes > $OUT/r/gpu-tests.txt 2>&1
echo "gpu-tests rc=$?" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
echo "identical rows: $(grep -c 'identical, bit for bit' $OUT/r/compare.log)"
grep "model vs GPU:" $OUT/r/compare.log | grep -v "identical, bit for bit\|race:\|hangs on the GPU too" | head
tail -4 $OUT/r/gpu-tests.txt
(cd $OUT && tar czf r1.tgz r && rm -rf r)
