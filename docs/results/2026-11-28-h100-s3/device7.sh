#!/usr/bin/env bash
# Device call 7 (about 1 minute): after time_launches moved into run/gpu_launch (bench and the
# probes' back-to-back launches share it): the launch probes, step 18 with cuBLAS, the [gpu] tests.
#   OUT=/tmp/out bash docs/results/<this folder>/device7.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
timeout 60 $B/gemmscope_timing_probes --only launch_132 --json $OUT/probes.json > $OUT/probes.log 2>&1
echo "probes rc=$?" >> $OUT/status.txt
timeout 60 $B/gemmscope bench hopper_tma_store --sizes 4096,8192 --reps 20 --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench rc=$?" >> $OUT/status.txt
timeout 280 $B/tests/gemmscope_tests "[gpu]" -r console -o $OUT/gpu-tests.txt > /dev/null 2>&1
echo "gpu-tests rc=$? $(tail -n 2 $OUT/gpu-tests.txt | tr '\n' ' ')" >> $OUT/status.txt
cat $OUT/status.txt $OUT/probes.log; grep TFLOP $OUT/bench.log
