#!/usr/bin/env bash
# Device call 3: every step at the sizes SIZES (default 4096,8192) with the held clock, 20 reps:
# the validation set of #29 measured in one session.
#   OUT=/tmp/out B=build/carry2 SIZES=4096,8192 bash docs/results/2026-12-03-lines/device3.sh
B=${B:-build/devcarry}
SIZES=${SIZES:-4096,8192}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
timeout 500 $B/gemmscope bench all --sizes $SIZES --reps 20 --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench $SIZES rc=$?" >> $OUT/status.txt
cat $OUT/env.txt $OUT/status.txt
grep -E "^(simt|ampere|hopper)" $OUT/bench.log | cut -c1-120 | head -45
