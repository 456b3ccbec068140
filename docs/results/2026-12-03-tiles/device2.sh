#!/usr/bin/env bash
# Device call 2 (under 9.5 minutes): every [gpu] case but the tiles' (call 1 ran them, then ran out
# of time in the mistakes case), then step 19's tile N (128 or 256) beside cuBLAS at 4096^3.
#   OUT=/tmp/out B=build/carry bash docs/results/2026-12-03-tiles/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
T=$B/gemmscope_tests; [ -x $T ] || T=$B/tests/gemmscope_tests
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
card=h100
grep -q H200 $OUT/env.txt && card=h200
timeout 460 $T "[gpu]~[tiles]" --durations yes > $OUT/gpu-tests.txt 2>&1; echo "gpu-tests rc=$?" >> $OUT/status.txt
timeout 80 $B/gemmscope sweep hopper_stmatrix_epilogue --param bn=128,256 --sizes 4096 --machine $card --gpu \
  --reps 10 --json $OUT/sweep-step19-bn.json > $OUT/sweep-step19-bn.log 2>&1
echo "sweep step19 bn rc=$?" >> $OUT/status.txt
cat $OUT/env.txt $OUT/status.txt
tail -n 4 $OUT/gpu-tests.txt
grep -B3 -A12 "FAILED" $OUT/gpu-tests.txt | head -60
grep " s: " $OUT/gpu-tests.txt | sort -k1 -n -r | head -8
tail -n 8 $OUT/sweep-step19-bn.log | cut -c1-160
