#!/usr/bin/env bash
# #29: on an H200, the pause rows its own clock exponent comes from (as later-waves/device5.sh), wgmma
# alone and cp.async from L2 alone (whose H200 figures are derived from the H100's), then the ladder
# alone at 4096^3 under the power limit for the validation with that exponent; on an H100,
# the ladder alone at 4096^3 (one more H100 set at this tree's binaries), or with H200_ONLY=1 nothing.
# Tarred as each part ends.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-07-clock/device1.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
if grep -q H200 $OUT/r/env.txt; then
  timeout 260 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched_capped \
    sm_clock_under_wgmma_streamed_l2_pause100 sm_clock_under_wgmma_streamed_l2_pause200 \
    sm_clock_under_wgmma_streamed_l2_wgpause sm_clock_under_wgmma_alone_capped sm_clock_under_cp_async_l2 \
    --json $OUT/r/probes.json > $OUT/r/probes.log 2>&1
  echo "probes rc=$? at ${SECONDS}s" >> $OUT/r/status.txt
  grep -E "^sm_clock" $OUT/r/probes.log | cut -c1-70
  (cd $OUT && tar czf pause.tgz r/probes.* r/env.txt r/status.txt)
fi
[ -n "${H200_ONLY:-}" ] && ! grep -q H200 $OUT/r/env.txt && { echo "not an H200: nothing run (H200_ONLY)"; exit 0; }
LADDER_ARGS=--no-cublas sustained_ladder "${SIZES:-4096}" ${BUDGET_S:-240} $OUT/r/bench-alone.json
(cd $OUT && tar czf ladder.tgz r/bench-alone.json r/bench.log r/status.txt r/env.txt)
cat $OUT/r/status.txt
