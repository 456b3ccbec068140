#!/usr/bin/env bash
# #29: is the Hopper steps' clock, predicted 3-10% above what today's H100s count, this card's own
# (the clock figures come from the probes on the H100 of 2026-12-05)? The clock probes the figures
# name, on this card, set against the description (--against), then steps 13, 16 and 19 benched
# sustained and alone (their counted clocks) at 4096^3.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-hbm/device2.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 240 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched sm_clock_under_wgmma_streamed_hbm_matched \
  sm_clock_under_wgmma_alone_capped sm_clock_under_cp_async_l2_capped sm_clock_under_cp_async_l2_gbs \
  sm_clock_under_wgmma_streamed_l2_pause200 sm_clock_under_wgmma_streamed_l2_pause400_capped sm_clock_under_ffma \
  --json $OUT/r/probes.json > $OUT/r/probes.log 2>&1
echo "probes rc=$?" >> $OUT/r/status.txt
$B/gemmscope_timing_probes --against $OUT/r/probes.json > $OUT/r/against.txt 2>&1
for k in hopper_producer_consumer hopper_fewer_arrivals hopper_stmatrix_epilogue; do
  timeout 60 $B/gemmscope bench $k --sizes 4096 --reps 50 --sustain 2000 --no-cublas --json $OUT/r/bench-$k.json >> $OUT/r/bench.log 2>&1
  echo "bench $k rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/status.txt
grep -E "MHz|GB/s" $OUT/r/probes.log | cut -c1-150 | head -30
cat $OUT/r/against.txt | cut -c1-150
grep -E "TFLOP/s \(" $OUT/r/bench.log | cut -c1-150
