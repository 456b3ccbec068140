#!/usr/bin/env bash
# Call 9 of 2026-12-05 (twenty-fifth session), issue #29: wgmma alone on random tiles at N = 256
# and N = 64 held at the power limit (new `sm_clock_under_wgmma_n*_random_capped`): what the
# shared-memory operand bytes of narrower wgmmas draw (steps 11-13 are held lower than the rule's
# tensor-core, L2 and HBM terms give), and wgmma alone as the clock rule's row has it.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-05-sustained/device7.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
q() { nvidia-smi --query-gpu=temperature.gpu,power.draw,power.limit,clocks.sm,clocks_throttle_reasons.active --format=csv,noheader; }
echo "before probes: $(q)" >> $OUT/r/status.txt
timeout 200 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_n256_random_capped sm_clock_under_wgmma_n64_random_capped \
  sm_clock_under_wgmma_alone_capped --json $OUT/r/probes-clock.json > $OUT/r/probes-clock.log 2>&1
echo "probes rc=$? after: $(q)" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/probes-clock.log | cut -c1-60
(cd $OUT && tar czf clock.tgz r && rm -rf r)
