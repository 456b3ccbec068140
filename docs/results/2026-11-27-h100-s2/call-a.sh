#!/usr/bin/env bash
# Device call A of the second session of 2026-11-27 (run from the repository root on the GPU
# machine with the GUI-off build carried in build/devcarry; scripts/device-check.sh says how to
# build it): the GPU tests, the probes against the op traits, every step at 4096^3 and 8192^3
# with cuBLAS and the model's prediction.
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; $B/gemmscope --version; } > $OUT/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $OUT/smi.csv 2>&1 &
SMI=$!
timeout 150 $B/tests/gemmscope_tests "[gpu]" -r console -o $OUT/gpu-tests.txt --durations yes > /dev/null 2>&1; echo "gpu-tests rc=$?" >> $OUT/status.txt
timeout 60 $B/gemmscope probe all > $OUT/probes.log 2>&1; echo "probes rc=$?" >> $OUT/status.txt
timeout 200 $B/gemmscope bench all --sizes 4096,8192 --reps 5 --compare-model --json $OUT/bench.json > $OUT/bench.log 2>&1; echo "bench rc=$?" >> $OUT/status.txt
kill $SMI
cat $OUT/status.txt; grep -E "^(All tests passed|test cases:|assertions:)" $OUT/gpu-tests.txt
grep -E "probes passed|^FAIL" $OUT/probes.log | tail -n 5
sed -n '/^kernel /,$p' $OUT/bench.log | head -n 45
