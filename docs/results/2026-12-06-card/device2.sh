#!/usr/bin/env bash
# For the next card (#29): the four power rows call 1 could not run (no A buffer; fixed in 8939d50),
# ldmatrix alone and ldmatrix feeding mma.sync, held at the limit with their cycles a round, beside the
# matched L2 row and mma.sync on random registers on the same card (about 1 minute).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-card/device2.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
timeout 200 $B/gemmscope_timing_probes --only sm_clock_under_ldmatrix_capped sm_clock_under_ldmatrix_rep \
  sm_clock_under_ldmatrix_mma_capped sm_clock_under_ldmatrix_mma_rep sm_clock_under_mma_random_capped \
  sm_clock_under_wgmma_streamed_l2_matched_capped --json $OUT/r/probes-ldmatrix.json > $OUT/r/probes-ldmatrix.log 2>&1
echo "probes rc=$?" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^sm_clock|GPU:" $OUT/r/probes-ldmatrix.log | cut -c1-90
(cd $OUT && tar czf r2.tgz r && rm -rf r)
