#!/usr/bin/env bash
# #29: do a GEMM's shared panels draw the power the clock rule misses? The matched L2 clock row beside
# the same with 8 or 16 CTAs streaming each box together (rows ..._matched_share8_*, _share16_*, new).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-hbm/device5.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 300 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched_capped \
  sm_clock_under_wgmma_streamed_l2_matched_gbs sm_clock_under_wgmma_streamed_l2_matched_span \
  sm_clock_under_wgmma_streamed_l2_matched_share8 sm_clock_under_wgmma_streamed_l2_matched_share16 \
  --json $OUT/r/probes.json > $OUT/r/probes.log 2>&1
echo "probes rc=$?" >> $OUT/r/status.txt
cat $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/probes.log | cut -c1-100
