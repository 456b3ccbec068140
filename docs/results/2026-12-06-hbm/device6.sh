#!/usr/bin/env bash
# #29: do the clock probes draw less than a GEMM because both wgmma warpgroups multiply the same A?
# The alone, matched L2 and matched HBM rows beside the same with each warpgroup its own 64 rows of A
# (rows sm_clock_under_wgmma_alone_twoa_*, sm_clock_under_wgmma_streamed_{l2,hbm}_matched_twoa_*, new).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-hbm/device6.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 300 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched_capped \
  sm_clock_under_wgmma_streamed_l2_matched_gbs sm_clock_under_wgmma_streamed_l2_matched_rep \
  sm_clock_under_wgmma_alone_capped sm_clock_under_wgmma_alone_twoa sm_clock_under_wgmma_streamed_l2_matched_twoa \
  sm_clock_under_wgmma_streamed_hbm_matched_capped sm_clock_under_wgmma_streamed_hbm_matched_gbs \
  sm_clock_under_wgmma_streamed_hbm_matched_twoa \
  --json $OUT/r/probes.json > $OUT/r/probes.log 2>&1
echo "probes rc=$?" >> $OUT/r/status.txt
cat $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/probes.log | cut -c1-100
