#!/usr/bin/env bash
# Device call 4 (issue 29, about 3 minutes): the ring probe's whole grid at an even FFMA pace,
# each CTA beside two warpgroups of wgmma (tma_gemm_ring8192_grid_heat_*: the card at a GEMM's
# power and clock): does a deeper ring read more from HBM with them? Nsight Compute at the card's
# own clock, 3, 4 and 5 stages; then the rows themselves (K period, waits), twice.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-grid/device4.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r/ncu
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv; } > $OUT/r/env.txt 2>&1
METRICS="dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second"
for s in 3 4 5; do
  timeout --kill-after=10 100 ncu --clock-control none --metrics "$METRICS" --launch-count 1 \
    -k regex:"^timing_tma_gemm_ring_64x64x120_s${s}_pace20_heat80\$" \
    $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid_heat_s${s}_pace20_period > $OUT/r/ncu/heat-s$s.txt 2>&1
  echo "ncu grid_heat stages=$s rc=$?" >> $OUT/r/status.txt
done
for i in 1 2; do
  timeout 150 $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid_heat --json $OUT/r/heat$i.json > $OUT/r/heat$i.log 2>&1
  echo "grid_heat rows run $i rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/env.txt $OUT/r/status.txt
for f in $OUT/r/ncu/*.txt; do echo "== $f"; grep -E "dram__|hit_rate|gpu__time|per_second" $f | head -4; done
grep -hE "^tma_gemm_ring8192_grid_heat" $OUT/r/heat1.log $OUT/r/heat2.log | cut -c1-70
(cd $OUT && tar czf g4.tgz r && rm -rf r)
