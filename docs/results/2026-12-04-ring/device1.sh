#!/usr/bin/env bash
# Device call 1 (about 3 minutes): a GEMM's ring without its math (tma_gemm_ring*, issue 29).
#  1. gemmscope_timing_probes --only tma_gemm_ring, twice: for rings of 2-6 stages and three paces
#     of FMAs in place of the tensor cores, what each K block kept the math waiting, and the K period;
#  2. Nsight Compute on the whole-grid rows (8192^3 geometry, 4096 CTAs, 3, 4 and 6 stages):
#     HBM bytes, L2 hit rate, time: does a deeper ring alone make L2 keep less?
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-ring/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv > $OUT/env.txt 2>&1
for i in 1 2; do
  timeout 150 $B/gemmscope_timing_probes --only tma_gemm_ring --json $OUT/probes$i.json > $OUT/probes$i.log 2>&1
  echo "probes $i rc=$?" >> $OUT/status.txt
done
METRICS="dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__cycles_elapsed.avg"
for s in 3 4 6; do
  timeout --kill-after=10 60 ncu --metrics "$METRICS" --launch-count 1 -k regex:"^timing_tma_gemm_ring_64x64x120_s${s}_pace28" \
    $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid_s${s}_pace28_period > $OUT/ncu/ring-grid-s$s.txt 2>&1
  echo "ncu ring grid stages=$s rc=$?" >> $OUT/status.txt
done
cat $OUT/status.txt
grep -hE "^tma_gemm_ring" $OUT/probes1.log $OUT/probes2.log | cut -c1-60
for f in $OUT/ncu/*.txt; do echo "== $f"; grep -E "dram__|hit_rate|gpu__time|lts__throughput|sm__cycles" $f | head -6; done
(cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu)
