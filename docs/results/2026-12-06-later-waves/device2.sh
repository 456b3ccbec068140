#!/usr/bin/env bash
# #29: what L2 delivers to a GEMM's later waves on this card. The GEMM-geometry copy probes
# (tma_gemm32_*: one wave of 64x64 tiles, 8 CTAs an SM; tma_gemm64_*: four waves, K of 2048, of
# 4096 `_k64` (step 11's grid and footprint at 4096^3) and 8192 `_k128`; tma_gemm128_mma0_k128:
# step 11's grid and footprint at 8192^3) beside the consecutive-share probes and the unshared L2
# rate (RUNS, default once); then Nsight Compute's DRAM bytes and L2 look-ups of the GEMM-geometry rows and of
# step 11 at 4096^3 and 8192^3 (NCU_PROBES: default the _k64 and 8192^3-grid rows; about 3 minutes).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-later-waves/device2.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
for run in ${RUNS:-1}; do
  timeout 150 $B/gemmscope_timing_probes --only tma_gemm32 tma_gemm64 tma_l2_bw_8k_x8 tma_l2_bw_share1 l2_read_bw \
    --json $OUT/r/probes$run.json > $OUT/r/probes$run.log 2>&1
  echo "probes run $run rc=$? at ${SECONDS}s" >> $OUT/r/status.txt
done
METRICS="dram__bytes_read.sum,lts__t_sectors_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg"
for k in ${NCU_PROBES:-64x64x64_mma0 128x128x128_mma0}; do
  timeout --kill-after=10 90 ncu --metrics "$METRICS" --launch-count 1 -k regex:"timing_tma_gemm_${k}\$" \
    $B/gemmscope_timing_probes --only tma_gemm${k%%x*}_mma0 > $OUT/r/ncu-$k.txt 2>&1
  echo "ncu $k rc=$?" >> $OUT/r/status.txt
done
for size in 4096 8192; do
  timeout --kill-after=10 60 ncu --metrics "$METRICS" --launch-count 1 -k regex:'^hopper_tma_wgmma_64' \
    $B/gemmscope bench hopper_tma_wgmma_64 --sizes $size --reps 0 --no-cublas > $OUT/r/ncu-step11-$size.txt 2>&1
  echo "ncu step11 $size rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/status.txt
grep -hE "^(tma_|l2_)" $OUT/r/probes*.log | cut -c1-60
for f in $OUT/r/ncu-*.txt; do echo "== $(basename $f)"; grep -E "dram__|lts__|gpu__time|sm__cycles" $f | awk '{print $1, $(NF)}'; done
(cd $OUT && tar czf r2.tgz r && rm -rf r)
