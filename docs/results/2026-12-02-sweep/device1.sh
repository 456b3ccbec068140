#!/usr/bin/env bash
# Device call (about 5 minutes): gemmscope sweep --gpu on the card, first time (#35).
#  1. step 07 over its CTA tile (bm, bn) and K step (bk) at 4096^3;
#  2. step 16 over its ring depth (stages) and tile order at 4096^3 and 8192^3;
#  each combination on the model and on the GPU beside cuBLAS (paired rounds), JSON and CSV.
#   OUT=/tmp/out B=build/carry bash docs/results/2026-12-02-sweep/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
[ -n "${SKIP07:-}" ] || timeout 200 $B/gemmscope sweep simt_warptile --param bm=64,128 --param bn=64,128 --param bk=8,16 --sizes 4096 \
  --machine h200 --gpu --reps 10 --json $OUT/sweep-step07.json --csv $OUT/sweep-step07.csv > $OUT/sweep-step07.log 2>&1
echo "sweep step07 rc=$?" >> $OUT/status.txt
timeout 300 $B/gemmscope sweep hopper_fewer_arrivals --param stages=2,3,4 --param order=0,1,2 --sizes 4096,8192 \
  --machine h200 --gpu --reps 10 --json $OUT/sweep-step16.json --csv $OUT/sweep-step16.csv > $OUT/sweep-step16.log 2>&1
echo "sweep step16 rc=$?" >> $OUT/status.txt
cat $OUT/status.txt
tail -30 $OUT/sweep-step07.log | cut -c1-160
tail -45 $OUT/sweep-step16.log | cut -c1-160
