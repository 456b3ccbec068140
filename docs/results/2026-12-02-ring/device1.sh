#!/usr/bin/env bash
# Device call (about 5 minutes): the ring depths of steps 13, 14 and 15 on the card, each beside
# cuBLAS in paired rounds, with the model's prediction for the same card (#29's validation set
# for the TMA loads' HBM wait; step 16's depths were measured by docs/results/2026-12-02-sweep).
#   OUT=/tmp/out B=build/carry bash docs/results/2026-12-02-ring/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
card=h100
grep -q H200 $OUT/env.txt && card=h200
for k in "hopper_producer_consumer stages=2,3,4,5,6" "hopper_two_consumers stages=2,3,4" "hopper_persistent stages=2,3,4"; do
  set -- $k
  timeout 190 $B/gemmscope sweep $1 --param $2 --sizes 4096,8192 --machine $card --gpu --reps 10 \
    --json $OUT/sweep-$1.json > $OUT/sweep-$1.log 2>&1
  echo "sweep $1 rc=$?" >> $OUT/status.txt
done
cat $OUT/env.txt $OUT/status.txt
for f in $OUT/sweep-*.log; do tail -16 $f | cut -c1-150; done
