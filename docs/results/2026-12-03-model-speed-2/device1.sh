#!/usr/bin/env bash
# Device call 1 (issue #32): the model after this session's speed changes against the GPU, bit for
# bit: every kernel and each of its mistakes at its example shape (bench --compare-model, integer
# inputs), then the [gpu] tests (their model-vs-GPU cases included).
#   OUT=/tmp/out B=build/carry3 bash docs/results/2026-12-03-model-speed-2/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/env.txt 2>&1
timeout 300 $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/compare.json > $OUT/compare.log 2>&1
echo "compare-model rc=$?" >> $OUT/status.txt
timeout 240 $B/gemmscope_tests "[gpu]" -r console --durations yes > $OUT/gpu-tests.txt 2>&1
echo "gpu-tests rc=$?" >> $OUT/status.txt
cat $OUT/env.txt $OUT/status.txt
tail -5 $OUT/gpu-tests.txt
grep -i -E "model|differ|mismatch" $OUT/compare.log | tail -30
