#!/usr/bin/env bash
# Issue #29: does a GEMM ring's producer/consumer hand-off lower the clock? The matched L2 row, the
# free ring at a box a repetition (_paced) and the same with the hand-off (_handoff), each with its
# cycles a repetition, bytes a second and span (about 2 minutes).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-amx/device5.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
timeout 170 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched_capped \
  sm_clock_under_wgmma_streamed_l2_paced sm_clock_under_wgmma_streamed_l2_handoff \
  --json $OUT/r/probes.json > $OUT/r/probes.log 2>&1
echo "probes rc=$? at ${SECONDS}s" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/probes.log | cut -c1-100
(cd $OUT && tar czf r5.tgz r && rm -rf r)
