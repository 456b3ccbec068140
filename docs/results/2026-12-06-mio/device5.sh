#!/usr/bin/env bash
# #29: the ladder alone under the power limit (`bench --sustain 2000 --no-cublas`) at SIZES (default
# 8192), for scripts/timing-validate.py; the matched L2 wgmma probe first, the card's reference for
# the clock rule. BUDGET_S seconds for the ladder (default 420). Tarred at the end.
#   OUT=/tmp/out B=build/c SIZES="2048 4096x1024x8192" bash docs/results/2026-12-06-mio/device5.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 60 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed_l2_matched_capped --json $OUT/r/ref.json \
  > $OUT/r/ref.log 2>&1
echo "ref rc=$?" >> $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/ref.log | cut -c1-80
LADDER_ARGS=--no-cublas sustained_ladder "${SIZES:-8192}" ${BUDGET_S:-420} $OUT/r/bench-alone.json
(cd $OUT && tar czf ladder.tgz r/ref.* r/bench-alone.json r/bench.log r/status.txt r/env.txt)
cat $OUT/r/status.txt
