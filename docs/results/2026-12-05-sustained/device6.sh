#!/usr/bin/env bash
# Call 8 of 2026-12-05 (twenty-fifth session), issue #29: mma.sync on random operands held at the
# power limit (new `sm_clock_under_mma_random_capped`; the near-zero operands of
# sm_clock_under_mma_capped were not held), beside wgmma alone and the matched L2 row with its
# streaming rate held at the limit (`_gbs`, now 101 launches), on one card.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-05-sustained/device6.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
q() { nvidia-smi --query-gpu=temperature.gpu,power.draw,power.limit,clocks.sm,clocks_throttle_reasons.active --format=csv,noheader; }
echo "before probes: $(q)" >> $OUT/r/status.txt
timeout 300 $B/gemmscope_timing_probes --only sm_clock_under_mma_random_capped sm_clock_under_wgmma_alone_capped \
  sm_clock_under_wgmma_streamed_l2_matched_capped sm_clock_under_wgmma_streamed_l2_matched_gbs \
  sm_clock_under_wgmma_streamed_hbm_matched_gbs --json $OUT/r/probes-clock.json > $OUT/r/probes-clock.log 2>&1
echo "probes rc=$? after: $(q)" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/probes-clock.log | cut -c1-60
(cd $OUT && tar czf clock.tgz r && rm -rf r)
