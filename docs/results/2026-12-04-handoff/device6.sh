#!/usr/bin/env bash
# Device call 6 (issue 29, about 4 minutes): how small a lasting difference between CTAs' paces
# makes a deeper ring read more from HBM than a 3-stage one? Whole-grid ring rows whose CTA c runs
# (c·37 mod 5)·k + 1 FMAs more a block than the pace's 160 (k = 1, 2, 4: a spread of about 2.5,
# 5 and 10%; tma_gemm_ring8192_grid_drift{k}_s{3,4,6}_pace20_*), then Nsight Compute on each.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-handoff/device6.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r/ncu
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv; } > $OUT/r/env.txt 2>&1
timeout 200 $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid_drift --json $OUT/r/drift.json > $OUT/r/drift.log 2>&1
echo "drift rows rc=$?" >> $OUT/r/status.txt
METRICS="dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct,gpu__time_duration.sum,sm__cycles_elapsed.avg"
for k in 1 2 4; do for s in 3 4 6; do
  timeout --kill-after=10 60 ncu --metrics "$METRICS" --launch-count 1 \
    -k regex:"^timing_tma_gemm_ring_64x64x120_s${s}_pace20_drift${k}\$" \
    $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid_drift${k}_s${s}_pace20_period > $OUT/r/ncu/drift$k-s$s.txt 2>&1
  echo "ncu drift$k stages=$s rc=$?" >> $OUT/r/status.txt
done; done
cat $OUT/r/env.txt $OUT/r/status.txt
grep -hE "^tma_gemm_ring8192_grid_drift.*(period|wait_mean)" $OUT/r/drift.log | cut -c1-70
for f in $OUT/r/ncu/*.txt; do echo "== $f"; grep -E "dram__|hit_rate|gpu__time" $f | head -3; done
(cd $OUT && tar czf h6.tgz r && rm -rf r)
