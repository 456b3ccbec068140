#!/usr/bin/env bash
# #29: do a copy's lines draw power beside its bytes? cp.async from L2 alone as 512 contiguous bytes a
# copy (4 lines), and in step 10's rows of 64 bytes (8 lines) and step 09's of 32 (16 lines); step 10's
# k16 mix with a bar.sync in 2 CTAs an SM, contiguous and in rows of 64; the matched L2 wgmma row the
# rule's L2 term rests on, for this card. Each held at the power limit (101 launches back to back).
# About 2 minutes; tarred at the end.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-mio/device3.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 400 $B/gemmscope_timing_probes --only sm_clock_under_cp_async_l2 sm_clock_under_ldmatrix_mma_cp_async_sync_2ctas \
  sm_clock_under_ldmatrix_mma_cp_async_rows64_sync_2ctas sm_clock_under_wgmma_streamed_l2_matched_capped \
  --json $OUT/r/lines.json > $OUT/r/lines.log 2>&1
echo "lines rc=$?" >> $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/lines.log | cut -c1-110
(cd $OUT && tar czf lines.tgz r/lines.* r/env.txt r/status.txt)
cat $OUT/r/status.txt
