#!/usr/bin/env bash
# Device call 3 (issue 29, about 3 minutes): does a deeper ring read more from HBM once every CTA
# also stores its 64-KiB f32 tile of C, as step 13 does (its 4-6-stage rings read 55-68% more from
# HBM than 3 stages at 8192^3, the ring probe without C did not)? The whole-grid ring rows at
# pace 20 with and without the C tile (tma_gemm_ring8192_grid{,_ctile}_s{3,4,6}_pace20_*), then
# Nsight Compute on each: HBM bytes read, L2 read hit rate, time.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-handoff/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r/ncu
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv; } > $OUT/r/env.txt 2>&1
timeout 200 $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid_s tma_gemm_ring8192_grid_ctile \
  --json $OUT/r/grid.json > $OUT/r/grid.log 2>&1
echo "grid rows rc=$?" >> $OUT/r/status.txt
METRICS="dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_op_read_hit_rate.pct,\
lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
gpu__time_duration.sum,sm__cycles_elapsed.avg"
for form in "" _ctile; do for s in 3 4 6; do
  timeout --kill-after=10 90 ncu --metrics "$METRICS" --launch-count 1 \
    -k regex:"^timing_tma_gemm_ring_64x64x120_s${s}_pace20${form}\$" \
    $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid${form}_s${s}_pace20_period > $OUT/r/ncu/grid${form}-s$s.txt 2>&1
  echo "ncu grid${form} stages=$s rc=$?" >> $OUT/r/status.txt
done; done
cat $OUT/r/env.txt $OUT/r/status.txt
grep -hE "^tma_gemm_ring8192_grid.*(period|wait_mean)" $OUT/r/grid.log | cut -c1-70
for f in $OUT/r/ncu/*.txt; do echo "== $f"; grep -E "dram__|hit_rate|gpu__time|lts__throughput|sm__cycles" $f | head -7; done
(cd $OUT && tar czf h3.tgz r && rm -rf r)
