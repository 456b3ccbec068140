#!/usr/bin/env bash
# Device call 2 (about 5 minutes): bench's paired rounds and NVML sampling on the card. The whole
# ladder at 4096^3 and 8192^3 again, now with ours and cuBLAS alternating launch by launch (call 1
# timed each in a block of its own, minutes earlier on the same card): the ratio per round with
# its interquartile range, and the card's power, temperature and clock-limit reasons meanwhile.
# Then the [gpu] runner test of timing, which checks the paired ratio and the samples per step.
#   OUT=/tmp/out bash docs/results/<this folder>/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv; $B/gemmscope --version; } > $OUT/env.txt 2>&1
timeout 330 $B/gemmscope bench all --sizes 4096,8192 --reps 20 --json $OUT/bench-paired.json > $OUT/bench-paired.log 2>&1
echo "bench rc=$?" >> $OUT/status.txt
[ -x $B/tests/gemmscope_tests ] && timeout 150 $B/tests/gemmscope_tests "[gpu] runner: timing gives reps, a stable C and a cuBLAS baseline" \
  > $OUT/gpu-timing-test.txt 2>&1
echo "gpu-timing-test rc=$?" >> $OUT/status.txt
cat $OUT/status.txt; sed -n '/^kernel /,$p' $OUT/bench-paired.log; tail -4 $OUT/gpu-timing-test.txt
