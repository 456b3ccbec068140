#!/usr/bin/env bash
# Device call 3 (#32): the model after the float sums of small-integer blocks (merge of h32float)
# against the card bit for bit: every kernel and mistake at its example shape, integer inputs; then
# the [step19] GPU test (step 19's build parameters, staging=slab among them).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-03-slab/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/env.txt 2>&1
timeout 320 $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
echo "compare-model rc=$?" >> $OUT/status.txt
timeout 150 $B/tests/gemmscope_tests "[step19]" > $OUT/r/tests-step19.log 2>&1
echo "tests [step19] rc=$?" >> $OUT/status.txt
cat $OUT/env.txt $OUT/status.txt
echo "identical rows: $(grep -c 'identical, bit for bit' $OUT/r/compare.log)"
grep "model vs GPU:" $OUT/r/compare.log | grep -v "identical, bit for bit\|race:\|hangs on the GPU too" | head
tail -3 $OUT/r/tests-step19.log
(cd $OUT && tar czf r3.tgz r && rm -rf r)
