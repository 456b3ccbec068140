#!/usr/bin/env bash
# Device call 6 (issue 29, about 3 minutes): the wgmma-paced ring over the first wave alone
# (tma_gemm_ring8192_split_wgmma_s{2..6}: 132 CTAs, no later waves to drift apart, so each depth
# costs only what its loads' latency costs) and the whole grid at 5 stages, twice; Nsight Compute's
# HBM bytes of the grid at 5 stages at the card's own clock.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-grid/device6.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r/ncu
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv; } > $OUT/r/env.txt 2>&1
for i in 1 2; do
  timeout 200 $B/gemmscope_timing_probes --only tma_gemm_ring8192_split_wgmma tma_gemm_ring8192_grid_split_wgmma_s5 \
    --json $OUT/r/wgmma$i.json > $OUT/r/wgmma$i.log 2>&1
  echo "wgmma rows run $i rc=$?" >> $OUT/r/status.txt
done
METRICS="dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second"
timeout --kill-after=10 100 ncu --clock-control none --metrics "$METRICS" --launch-count 1 \
  -k regex:"^timing_tma_gemm_ring_64x64x120_s5_pace1_split_wgmma\$" \
  $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid_split_wgmma_s5_pace1_period > $OUT/r/ncu/wgmma-grid-s5.txt 2>&1
echo "ncu grid_split_wgmma stages=5 rc=$?" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "dram__|hit_rate|gpu__time|per_second" $OUT/r/ncu/wgmma-grid-s5.txt | head -4
grep -hE "^tma_gemm_ring8192_(grid_)?split_wgmma" $OUT/r/wgmma1.log $OUT/r/wgmma2.log | cut -c1-70
(cd $OUT && tar czf g6.tgz r && rm -rf r)
