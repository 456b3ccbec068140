#!/usr/bin/env bash
# Device call for step 17 (hopper_cluster_multicast: clusters + TMA multicast), third session of
# 2026-11-27. Run from the repository root on an H100 with the GUI-off build carried in
# build/devcarry (scripts/device-check.sh says how to build it), OUT set to an empty folder:
#
#   OUT=/tmp/out bash docs/results/2026-11-27-s3-step17/device.sh      # about 4 minutes
#
# 1. gpu-tests: the [gpu] runner case of step 17 (clusters of 1, 2 and 4 at 384x768x192,
#    1000^3 and 128x128x4096 against the model, bit for bit, and the reference), then every
#    [gpu] case (step 17 included in "every kernel is correct" and "the model computes the GPU's
#    bytes, mistakes included": its deadlock and its two races).
# 2. bench, one program run so the ratios compare: step 16 and step 17 (cluster 2) at 4096^3 and
#    8192^3 next to cuBLAS, and step 17 at the odd shape 1000^3.
# 3. the cluster sizes, one program run each, cuBLAS again in each: cluster=1 (step 16's kernel
#    with the cluster tile walk), 2 and 4 at 4096^3, 8192^3 and 1000^3. Compare only inside one
#    run (anchors.md: run-to-run noise is several percent), so step 16 is in every run too.
# 4. model vs GPU bit for bit at the example shape with each cluster size, and each mistake with
#    the default (multicast-without-peers must hang on the GPU; the two races may do anything).
# 5. the kernel's own timeline of one pair (--timeline-ctas cluster) at 8192^3, for the model's
#    cross-CTA timing (gemmscope timeline --import FILE --compare-model on the development
#    machine).
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
S=$OUT/status.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; $B/gemmscope --version; } > $OUT/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $OUT/smi.csv 2>&1 &
SMI=$!

timeout 150 $B/tests/gemmscope_tests "[step17]" -r console -o $OUT/gpu-tests-step17.txt --durations yes > /dev/null 2>&1
echo "gpu-tests [step17] rc=$?" >> $S
timeout 200 $B/tests/gemmscope_tests "[gpu]" -r console -o $OUT/gpu-tests.txt > /dev/null 2>&1
echo "gpu-tests [gpu] rc=$?" >> $S

timeout 120 $B/gemmscope bench hopper_fewer_arrivals hopper_cluster_multicast --sizes 4096,8192,1000x1000x1000 --reps 20 \
  --json $OUT/bench-16-17.json > $OUT/bench-16-17.log 2>&1
echo "bench 16 vs 17 rc=$?" >> $S
for c in 1 2 4; do
  timeout 60 $B/gemmscope bench hopper_fewer_arrivals --sizes 4096,8192,1000x1000x1000 --reps 20 \
    --json $OUT/bench-cluster$c-step16.json > $OUT/bench-cluster$c.log 2>&1
  timeout 60 $B/gemmscope bench hopper_cluster_multicast --param cluster=$c --sizes 4096,8192,1000x1000x1000 --reps 20 \
    --json $OUT/bench-cluster$c.json >> $OUT/bench-cluster$c.log 2>&1
  echo "bench cluster=$c rc=$?" >> $S
done

for c in 1 2 4; do
  timeout 60 $B/gemmscope bench hopper_cluster_multicast --param cluster=$c --sizes example --reps 0 --compare-model \
    --json $OUT/compare-cluster$c.json > $OUT/compare-cluster$c.log 2>&1
  echo "compare-model cluster=$c rc=$?" >> $S
done

timeout 60 $B/gemmscope bench hopper_cluster_multicast --sizes 8192 --reps 5 --timeline $OUT/step17-pair.timeline.json \
  --timeline-ctas cluster --timeline-capacity 65536 > $OUT/timeline.log 2>&1
echo "timeline rc=$?" >> $S
kill $SMI

cat $S
grep -E "^(All tests passed|test cases:|assertions:)" $OUT/gpu-tests-step17.txt $OUT/gpu-tests.txt
for f in $OUT/bench-16-17.log $OUT/bench-cluster1.log $OUT/bench-cluster2.log $OUT/bench-cluster4.log; do
  echo "== $f"; grep -E "hopper_|cublas|cuBLAS" $f | head -n 12
done
grep -hE "model vs GPU|identical|DIFFERENT|deadlock|race|hang" $OUT/compare-cluster*.log | head -n 20
grep -E "timeline|C identical" $OUT/timeline.log | head -n 5
