#!/usr/bin/env bash
# Device call (under 9 minutes): the new tile parameters of steps 10 and 13-19 on the card, each
# build's C against the model's bit for bit (`[run][gpu][tiles]`), then every other [gpu] case
# (the model changes of the model-speed work must leave each model-vs-GPU row as it was), then
# step 19's tile N beside cuBLAS at 4096^3 and 8192^3.
#   OUT=/tmp/out B=build/carry bash docs/results/2026-12-03-tiles/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
T=$B/gemmscope_tests; [ -x $T ] || T=$B/tests/gemmscope_tests
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
card=h100
grep -q H200 $OUT/env.txt && card=h200
timeout 150 $T "[run][gpu][tiles]" > $OUT/gpu-tiles.txt 2>&1; echo "gpu-tiles rc=$?" >> $OUT/status.txt
timeout 270 $T "[gpu]~[tiles]" > $OUT/gpu-tests.txt 2>&1; echo "gpu-tests rc=$?" >> $OUT/status.txt
timeout 90 $B/gemmscope sweep hopper_stmatrix_epilogue --param bn=128,192,256 --sizes 4096,8192 --machine $card --gpu \
  --reps 10 --json $OUT/sweep-step19-bn.json > $OUT/sweep-step19-bn.log 2>&1
echo "sweep step19 bn rc=$?" >> $OUT/status.txt
cat $OUT/env.txt $OUT/status.txt
tail -n 4 $OUT/gpu-tiles.txt $OUT/gpu-tests.txt
grep -B3 -A12 "FAILED" $OUT/gpu-tests.txt $OUT/gpu-tiles.txt | head -60
tail -n 14 $OUT/sweep-step19-bn.log | cut -c1-160
