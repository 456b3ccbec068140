#!/usr/bin/env bash
# Device call 5 (issue 29, about 3 minutes): the ring probe's whole grid in step 13's roles with
# step 13's math and no epilogue (tma_gemm_ring8192_grid_split_wgmma_*: eight wgmma m64n128k16 on
# each landed stage): do the tensor cores as the pace make a deeper ring read more from HBM?
# Nsight Compute at the card's own clock, 3, 4 and 6 stages; then the rows themselves, twice.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-grid/device5.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r/ncu
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv; } > $OUT/r/env.txt 2>&1
METRICS="dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second"
for s in 3 4 6; do
  timeout --kill-after=10 100 ncu --clock-control none --metrics "$METRICS" --launch-count 1 \
    -k regex:"^timing_tma_gemm_ring_64x64x120_s${s}_pace1_split_wgmma\$" \
    $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid_split_wgmma_s${s}_pace1_period > $OUT/r/ncu/wgmma-s$s.txt 2>&1
  echo "ncu grid_split_wgmma stages=$s rc=$?" >> $OUT/r/status.txt
done
for i in 1 2; do
  timeout 150 $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid_split_wgmma --json $OUT/r/wgmma$i.json \
    > $OUT/r/wgmma$i.log 2>&1
  echo "grid_split_wgmma rows run $i rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/env.txt $OUT/r/status.txt
for f in $OUT/r/ncu/*.txt; do echo "== $f"; grep -E "dram__|hit_rate|gpu__time|per_second" $f | head -4; done
grep -hE "^tma_gemm_ring8192_grid_split_wgmma" $OUT/r/wgmma1.log $OUT/r/wgmma2.log | cut -c1-70
(cd $OUT && tar czf g5.tgz r && rm -rf r)
