#!/usr/bin/env bash
# #29, the clock of steps 10-12 (the rule gives them 1.10-1.24 x the clock they hold; they are the steps
# with several CTAs an SM): the same load an SM as one CTA and as several, held at the power limit, with
# each row's cycles a round and bytes a second; then the ldmatrix rows of ../2026-12-06-card/device2.sh.
# About 2-3 minutes; each part tarred as it ends.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-ctas/device1.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
part() {  # name, probes...
  local name=$1; shift
  timeout 240 $B/gemmscope_timing_probes --only "$@" --json $OUT/r/$name.json > $OUT/r/$name.log 2>&1
  echo "$name rc=$?" >> $OUT/r/status.txt
  grep -E "^sm_clock" $OUT/r/$name.log | cut -c1-110
  (cd $OUT && tar czf $name.tgz r/$name.* r/env.txt r/status.txt)
}
cat $OUT/r/env.txt
part wgmma sm_clock_under_wgmma_streamed_l2_matched_n128 sm_clock_under_wgmma_streamed_l2_matched_capped \
  sm_clock_under_wgmma_streamed_l2_matched_gbs sm_clock_under_wgmma_streamed_l2_matched_rep
part fragments sm_clock_under_ldmatrix_mma_cp_async
part ldmatrix sm_clock_under_ldmatrix_capped sm_clock_under_ldmatrix_rep sm_clock_under_ldmatrix_mma_capped \
  sm_clock_under_ldmatrix_mma_rep sm_clock_under_mma_random_capped sm_clock_under_wgmma_alone_capped
cat $OUT/r/status.txt
