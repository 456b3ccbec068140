#!/usr/bin/env bash
# The 2026-11-27 final device check, one call of under 10 minutes (run from the repository root
# on the GPU machine, with the GUI-off build carried in build/devcarry; see
# scripts/device-check.sh for how to build it). Each step under its own time limit:
#   gpu-tests  gemmscope_tests "[gpu]": model and GPU bit for bit, the driver-parameter checks
#   probes     gemmscope probe all: the GPU against the op traits' maps the model uses
#   bench      every step at 4096^3 and 8192^3 with cuBLAS and the model's prediction
#   sanitize   compute-sanitizer memcheck, racecheck, synccheck, initcheck over every step
#   timing     gemmscope_timing_probes (the L2-bandwidth probe with four loads in flight)
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; $B/gemmscope --version; } > $OUT/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 200 > $OUT/smi.csv 2>&1 &
SMI=$!
timeout 150 $B/tests/gemmscope_tests "[gpu]" -r console -o $OUT/gpu-tests.txt --durations yes > $OUT/gpu-tests.log 2>&1; echo "gpu-tests rc=$?" >> $OUT/status.txt
timeout 60 $B/gemmscope probe all > $OUT/probes.log 2>&1; echo "probes rc=$?" >> $OUT/status.txt
timeout 190 $B/gemmscope bench all --sizes 4096,8192 --reps 5 --compare-model --json $OUT/bench.json > $OUT/bench.log 2>&1; echo "bench rc=$?" >> $OUT/status.txt
kill $SMI
TOTAL_BUDGET_S=110 OUT=$OUT/sanitize bash scripts/device-sanitize.sh "$B" > $OUT/sanitize.log 2>&1; echo "sanitize rc=$?" >> $OUT/status.txt
timeout 40 $B/gemmscope_timing_probes --json $OUT/timing-probes.json > $OUT/timing-probes.log 2>&1; echo "timing-probes rc=$?" >> $OUT/status.txt
tar czf $OUT/sanitize.tgz -C $OUT sanitize 2>/dev/null && rm -rf $OUT/sanitize
cat $OUT/status.txt; grep -E "^(All tests passed|test cases:|assertions:)" $OUT/gpu-tests.txt
grep -E "^(PASS|FAIL|SKIP)|probes passed" $OUT/probes.log | tail -n 12
sed -n '/^kernel /,$p' $OUT/bench.log | head -n 50
tail -n 25 $OUT/sanitize.log; cat $OUT/timing-probes.log | tail -n 20
