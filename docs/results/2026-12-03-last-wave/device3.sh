#!/usr/bin/env bash
# Device call 3 (issue #29): how the second, partial wave of step 08's 2048 CTAs (1.29 waves of 132 SMs x 12)
# spreads over the SMs: Nsight Compute's CTAs launched per SM (sum, min, max) and SM active cycles (min, avg,
# max) at 4096x1024x8192 (1.29 waves), 3136x1024x8192 (one wave) and 4096^3 (3.9 waves of 16).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-03-last-wave/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu
METRICS="gpu__time_duration.sum,sm__ctas_launched.sum,sm__ctas_launched.min,sm__ctas_launched.max,sm__ctas_launched.avg,\
sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.avg,sm__warps_active.avg.per_cycle_active,\
l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts.max"
for s in 4096x1024x8192 3136x1024x8192 4096x1024x2048 4096x4096x4096; do
  timeout --kill-after=10 90 ncu --metrics "$METRICS" -k regex:'^ampere_mma_global' --launch-count 1 \
    $B/gemmscope bench ampere_mma_global --sizes $s --reps 0 > $OUT/ncu/step08-$s.txt 2>&1
  echo "ncu $s rc=$?" >> $OUT/status.txt
done
cat $OUT/status.txt
for f in $OUT/ncu/*.txt; do echo "== $f"; grep -E "gpu__time|sm__ctas|sm__cycles|warps_active|wavefronts" $f | sed 's/  */ /g'; done
(cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu)
