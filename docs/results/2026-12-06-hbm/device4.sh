#!/usr/bin/env bash
# #29: call 3 again with the store rows' figures read from the records only (call 3's _rep and _gbs
# rows averaged the stored tiles too; its _capped and _span rows likewise, so they are not used):
# the matched L2 clock row and the same with an epilogue every 64th and 16th repetition.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-hbm/device4.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 300 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched_capped \
  sm_clock_under_wgmma_streamed_l2_matched_gbs sm_clock_under_wgmma_streamed_l2_matched_store64 \
  sm_clock_under_wgmma_streamed_l2_matched_store16 sm_clock_under_wgmma_streamed_l2_matched_rep \
  sm_clock_under_wgmma_alone_capped --json $OUT/r/probes.json > $OUT/r/probes.log 2>&1
echo "probes rc=$?" >> $OUT/r/status.txt
cat $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/probes.log | cut -c1-100
