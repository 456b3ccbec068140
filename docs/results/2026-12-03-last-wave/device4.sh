#!/usr/bin/env bash
# Device call 4: the model after this session's #32 changes against the card, bit for bit (every kernel
# and mistake at its example shape, integer inputs; step 19 with store_barrier=warpgroup too), and
# Nsight Compute's CTAs launched per SM (min, mean, max) for more grids whose last wave is partial:
# is the busiest SM's count what timing::busiest_sm_counts expects?
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-03-last-wave/device4.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/env.txt 2>&1
timeout 300 $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
echo "compare-model rc=$?" >> $OUT/status.txt
timeout 60 $B/gemmscope bench hopper_stmatrix_epilogue --sizes example,1000x1000x512 --reps 0 --compare-model \
  --param store_barrier=warpgroup --json $OUT/r/compare-step19-warpgroup.json > $OUT/r/compare-step19-warpgroup.log 2>&1
echo "compare-model step19 warpgroup rc=$?" >> $OUT/status.txt
# Issue #31: step 19 over ring depth, persistent CTAs, epilogue barrier and tile order at 4096^3, each
# beside cuBLAS (bf16 C) in paired rounds: is a combination a point past the default?
timeout 240 $B/gemmscope sweep hopper_stmatrix_epilogue --param stages=3,4 --param ctas=128,132 \
  --param store_barrier=0,1 --param order=1,2 --sizes 4096 --gpu --reps 20 \
  --json $OUT/r/sweep-step19.json --csv $OUT/r/sweep-step19.csv > $OUT/r/sweep-step19.log 2>&1
echo "sweep step19 rc=$?" >> $OUT/status.txt
METRICS="gpu__time_duration.sum,sm__ctas_launched.sum,sm__ctas_launched.min,sm__ctas_launched.max,sm__ctas_launched.avg,\
sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.avg"
prof() {  # kernel size
  timeout --kill-after=10 60 ncu --metrics "$METRICS" -k regex:"^$1" --launch-count 1 \
    $B/gemmscope bench $1 --sizes $2 --reps 0 > $OUT/r/ncu-$1-$2.txt 2>&1
  echo "ncu $1 $2 rc=$?" >> $OUT/status.txt
}
prof ampere_mma_global 2048      # 464 last of 12 an SM: the rule expects 7.8 on the busiest SM (even: 4)
prof ampere_cp_async 4096        # 532 last of 9 an SM: 7.8 (even: 5)
prof hopper_tile_128 4096        # 232 last of 3 an SM: 3.0 (even: 2)
prof hopper_tma_wgmma_64 4096    # 928 last of 8 an SM: 8.0 (even: 8)
prof simt_naive 4096             # 16 last of 8 an SM: 1.4 (even: 1)
cat $OUT/env.txt $OUT/status.txt
grep -c "identical, bit for bit" $OUT/r/compare.log
grep "model vs GPU:" $OUT/r/compare.log | grep -v "identical, bit for bit\|race:\|hangs on the GPU too" | head
grep "model vs GPU:" $OUT/r/compare-step19-warpgroup.log
head -30 $OUT/r/sweep-step19.log
for f in $OUT/r/ncu-*.txt; do echo "== $f"; grep -E "gpu__time|sm__ctas|sm__cycles" $f | sed 's/  */ /g'; done
(cd $OUT && tar czf r.tgz r && rm -rf r)
