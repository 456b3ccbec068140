#!/usr/bin/env bash
# One call of about 3 minutes, each part tarred as it ends:
#  1. #29: the clock under the power limit of the hand-off row's load in CTA pairs, each CTA loading
#     every box itself (`_pair_`) or one half of each into both (`_pairmc_`, multicast: L2 reads each
#     box once a pair), beside the hand-off row alone and the matched L2 row, twice in turn
#     -> clock.tgz (clock-1.json, clock-2.json);
#  2. #31: Nsight Compute's stall samples per SASS instruction for fast.cu's matmul_12 and step 19 with
#     its choices (staging=slab stages=3 order=hilbert, bf16 C) at 8192^3, one launch each
#     (../2026-12-07-step19/device2.sh) -> source.tgz.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-07-pair-clock/device1.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
for i in 1 2; do
  timeout -k 5 120 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched_capped \
    sm_clock_under_wgmma_streamed_l2_handoff sm_clock_under_wgmma_streamed_l2_handoff_pair \
    --json $OUT/r/clock-$i.json > $OUT/r/clock-$i.log 2>&1
  echo "clock $i rc=$? at $SECONDS s" >> $OUT/r/status.txt
done
(cd $OUT && tar czf clock.tgz r/clock-* r/env.txt r/status.txt)
bash "$here/../2026-12-07-step19/device2.sh"
cat $OUT/r/status.txt
grep -h "sm_clock" $OUT/r/clock-*.log | cut -c1-110
