#!/usr/bin/env bash
# #29: does a GEMM's epilogue draw the power the clock rule misses? The matched L2 clock row beside
# the same with each wgmma thread storing its 128 accumulators after every 64th or 16th repetition
# (rows sm_clock_under_wgmma_streamed_l2_matched_store64_*, _store16_*, new), then Nsight Compute on
# step 16 at 4096^3 (its tensor pipe, L2 and HBM traffic beside the model's inputs to the rule).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-hbm/device3.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 300 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched_capped \
  sm_clock_under_wgmma_streamed_l2_matched_gbs sm_clock_under_wgmma_streamed_l2_matched_span \
  sm_clock_under_wgmma_streamed_l2_matched_store64 sm_clock_under_wgmma_streamed_l2_matched_store16 \
  sm_clock_under_wgmma_streamed_l2_matched_rep \
  --json $OUT/r/probes.json > $OUT/r/probes.log 2>&1
echo "probes rc=$?" >> $OUT/r/status.txt
M="sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,\
lts__t_sectors_srcunit_ltcfabric.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__m_xbar2l1tex_read_bytes.sum,\
lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg"
timeout --kill-after=10 90 ncu --metrics "$M" --launch-count 1 -k regex:'^hopper_fewer_arrivals' \
  $B/gemmscope bench hopper_fewer_arrivals --sizes 4096 --reps 0 --no-cublas > $OUT/r/ncu-step16.txt 2>&1
echo "ncu step16 rc=$?" >> $OUT/r/status.txt
cat $OUT/r/status.txt
grep -E "matched" $OUT/r/probes.log | cut -c1-110
grep -E "tensor_op|lts__|dram__|xbar|gpu__time|sm__cycles" $OUT/r/ncu-step16.txt | awk '{print $1, $(NF-1), $NF}'
