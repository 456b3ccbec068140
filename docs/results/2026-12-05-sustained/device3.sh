#!/usr/bin/env bash
# Call 3 of 2026-12-05 (twenty-fifth session), issue #29. Call 2 (an H100) found the streamed
# clock rows spending about half of each launch on the TMA alone (span 52%), while the power limit
# averages over about a second: their clock is a mix of the two loads. Here the rows whose
# streaming ends with the wgmmas (`_matched_`, with their spans), the wgmmas alone and the TMA
# alone again, then three capped steps under the limit right after, on the same card.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-05-sustained/device3.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
q() { nvidia-smi --query-gpu=temperature.gpu,power.draw,power.limit,clocks.sm,clocks_throttle_reasons.active --format=csv,noheader; }
echo "before probes: $(q)" >> $OUT/r/status.txt
timeout 300 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched sm_clock_under_wgmma_streamed_hbm \
  sm_clock_under_wgmma_streamed_l2_span sm_clock_under_wgmma_streamed_l2_capped sm_clock_under_wgmma_alone \
  sm_clock_under_tma --json $OUT/r/probes-clock.json > $OUT/r/probes-clock.log 2>&1
echo "probes rc=$? after: $(q)" >> $OUT/r/status.txt
for k in hopper_fewer_arrivals hopper_tile_128 hopper_producer_consumer; do
  timeout 60 $B/gemmscope bench $k --sizes 4096 --reps 50 --sustain 2000 --json $OUT/r/$k.json >> $OUT/r/bench.log 2>&1
  echo "$k rc=$? after: $(q)" >> $OUT/r/status.txt
done
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/probes-clock.log | cut -c1-60
grep -E "^hopper" $OUT/r/bench.log | cut -c1-130
(cd $OUT && tar czf sustained3.tgz r && rm -rf r)
