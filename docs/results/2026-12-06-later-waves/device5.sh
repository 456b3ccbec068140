#!/usr/bin/env bash
# #29: the H200's pause rows for its clock exponent, as call 5 took the H100's: the matched L2 row,
# the rows that slow the tensor cores and the streaming alike (`_pause100`, `_pause200`) and those
# whose wgmma threads alone pause (`_wgpause400`, `_wgpause800`), each with its figures (about 90 s).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-later-waves/device5.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 300 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched_capped \
  sm_clock_under_wgmma_streamed_l2_pause100 sm_clock_under_wgmma_streamed_l2_pause200 \
  sm_clock_under_wgmma_streamed_l2_wgpause \
  --json $OUT/r/probes.json > $OUT/r/probes.log 2>&1
echo "probes rc=$? at ${SECONDS}s" >> $OUT/r/status.txt
cat $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/probes.log | cut -c1-70
(cd $OUT && tar czf r6.tgz r && rm -rf r)
