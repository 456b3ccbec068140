#!/usr/bin/env bash
# Device call 5 (issue 29, about 2 minutes): does a deeper ring read more from HBM when the CTAs
# that share a panel drift apart only by chance (each K block's pace 80-120% at random, every
# CTA's mean the same, as a GEMM's CTAs at the tensor cores' pace)? Whole-grid ring rows jittered
# (tma_gemm_ring8192_grid_jitter_s{3,4,6}_pace20_*), then Nsight Compute on each.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-handoff/device5.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r/ncu
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv; } > $OUT/r/env.txt 2>&1
timeout 120 $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid_jitter --json $OUT/r/jitter.json > $OUT/r/jitter.log 2>&1
echo "jitter rows rc=$?" >> $OUT/r/status.txt
METRICS="dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
gpu__time_duration.sum,sm__cycles_elapsed.avg"
for s in 3 4 6; do
  timeout --kill-after=10 90 ncu --metrics "$METRICS" --launch-count 1 \
    -k regex:"^timing_tma_gemm_ring_64x64x120_s${s}_pace20_jitter\$" \
    $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid_jitter_s${s}_pace20_period > $OUT/r/ncu/jitter-s$s.txt 2>&1
  echo "ncu jitter stages=$s rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/env.txt $OUT/r/status.txt
grep -hE "^tma_gemm_ring8192_grid_jitter.*(period|wait_mean)" $OUT/r/jitter.log | cut -c1-70
for f in $OUT/r/ncu/*.txt; do echo "== $f"; grep -E "dram__|hit_rate|gpu__time|sm__cycles" $f | head -5; done
(cd $OUT && tar czf h5.tgz r && rm -rf r)
