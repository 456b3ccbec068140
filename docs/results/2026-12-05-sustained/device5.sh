#!/usr/bin/env bash
# Call 7 of 2026-12-05 (twenty-fifth session), issue #29: what each load draws at the power limit,
# for a clock rule that adds them (engine/model/timing.cpp, sustained_clock): the wgmmas alone, the
# TMA alone, mma.sync alone (new `sm_clock_under_mma_capped`), the matched rows from L2 and HBM,
# and the tensor cores busy a share of the time (the `_pause` rows), on one card in one call.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-05-sustained/device5.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
q() { nvidia-smi --query-gpu=temperature.gpu,power.draw,power.limit,clocks.sm,clocks_throttle_reasons.active --format=csv,noheader; }
echo "before probes: $(q)" >> $OUT/r/status.txt
timeout 400 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_alone_capped sm_clock_under_tma_capped \
  sm_clock_under_mma_capped sm_clock_under_wgmma_streamed_l2_matched sm_clock_under_wgmma_streamed_hbm_matched \
  sm_clock_under_wgmma_streamed_l2_pause sm_clock_under_mma --json $OUT/r/probes-clock.json > $OUT/r/probes-clock.log 2>&1
echo "probes rc=$? after: $(q)" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/probes-clock.log | cut -c1-60
(cd $OUT && tar czf clock.tgz r && rm -rf r)
