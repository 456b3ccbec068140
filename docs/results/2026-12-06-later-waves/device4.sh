#!/usr/bin/env bash
# #29: does a part of the power every SM draws stay when the tensor cores idle? The matched L2 row,
# the rows whose wgmma threads alone pause (`_wgpause400`, `_wgpause800`: the streaming at its own
# rate) and the row that pauses both alike (`_pause400`), each with its figures; then step 11's wgmma
# shape, m64n64k16, alone and as the matched row (`_n64`), beside wgmma alone at N = 256 (about two
# minutes).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-later-waves/device4.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 400 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched_capped \
  sm_clock_under_wgmma_streamed_l2_wgpause sm_clock_under_wgmma_streamed_l2_pause400 \
  sm_clock_under_wgmma_alone_capped sm_clock_under_wgmma_alone_n64 sm_clock_under_wgmma_streamed_l2_matched_n64 \
  --json $OUT/r/probes.json > $OUT/r/probes.log 2>&1
echo "probes rc=$? at ${SECONDS}s" >> $OUT/r/status.txt
cat $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/probes.log | cut -c1-70
(cd $OUT && tar czf r5.tgz r && rm -rf r)
