#!/usr/bin/env bash
# Calls 5 and 6 of 2026-12-05 (twenty-fifth session), issue #29. Call 5: the clock with the tensor
# cores busy a share of the time (the `_pause` rows: the matched streamed rows from L2 with a pause
# after each repetition, and each pause's cycles a repetition, `_rep`), the matched rows again (on
# an H200 their first run), then the ladder under the power limit at 4096^3 and 8192^3. Call 6, on
# the same card right after: the ladder at 2048^3 and 4096x1024x8192 (PROBES=0).
#   OUT=/tmp/out B=build/c [PROBES=1] [SIZES="4096 8192"] [LADDER_S=330] bash docs/results/2026-12-05-sustained/device4.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
q() { nvidia-smi --query-gpu=temperature.gpu,power.draw,power.limit,clocks.sm,clocks_throttle_reasons.active --format=csv,noheader; }
if [ "${PROBES:-1}" = 1 ]; then
  echo "before probes: $(q)" >> $OUT/r/status.txt
  timeout 200 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched sm_clock_under_wgmma_streamed_hbm_matched \
    sm_clock_under_wgmma_streamed_l2_pause --json $OUT/r/probes-clock.json > $OUT/r/probes-clock.log 2>&1
  echo "probes rc=$? after: $(q)" >> $OUT/r/status.txt
fi
sustained_ladder "${SIZES:-4096 8192}" ${LADDER_S:-330} $OUT/r/bench-sustained.json
echo "end: $(q)" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/probes-clock.log 2>/dev/null | cut -c1-60
grep -E "^(simt|ampere|hopper)" $OUT/r/bench.log | cut -c1-110 | head -45
(cd $OUT && tar czf sustained.tgz r && rm -rf r)
