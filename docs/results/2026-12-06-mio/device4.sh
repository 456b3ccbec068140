#!/usr/bin/env bash
# #29: do the bits the copies carry draw power? The cp.async clock rows read 0x01 bytes; the matched
# L2 wgmma row's TMA, and a GEMM's copies, random bf16. Each cp.async row of call 3 again beside the
# same with random bf16 (`_random`), then step 10 at 4096^3 alone under the power limit, on one card.
# About 2 minutes; tarred at the end.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-mio/device4.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 400 $B/gemmscope_timing_probes --only sm_clock_under_cp_async_l2 sm_clock_under_ldmatrix_mma_cp_async_rows64_sync_2ctas \
  sm_clock_under_wgmma_streamed_l2_matched_capped --json $OUT/r/data.json > $OUT/r/data.log 2>&1
echo "data rc=$?" >> $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/data.log | cut -c1-110
timeout 60 $B/gemmscope bench ampere_ldmatrix --sizes 4096 --reps 50 --sustain 2000 --no-cublas --json $OUT/r/step10.json > $OUT/r/step10.log 2>&1
echo "step10 rc=$?" >> $OUT/r/status.txt
python3 -c "import json; r=json.load(open('$OUT/r/step10.json'))['results'][0]; print('step 10', r['tflops']['median'], r.get('sm_clock_counted_mhz'))"
(cd $OUT && tar czf data.tgz r/data.* r/step10.* r/env.txt r/status.txt)
cat $OUT/r/status.txt
