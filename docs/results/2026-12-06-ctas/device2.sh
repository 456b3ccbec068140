#!/usr/bin/env bash
# #29, after the cp.async term of the clock rule: the copies' bytes a second held at the limit (the
# `_gbs` rows now run 101 launches, as their clock rows), then the ladder at 4096^3 under the power
# limit (`bench --sustain 2000`) for scripts/timing-validate.py on this card; with the copies the
# cp_async_fill_rows32_* rows, step 09's mix among them with a bar.sync a round (`_sync_`). About 4
# minutes; each part tarred as it ends.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-ctas/device2.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 120 $B/gemmscope_timing_probes --only sm_clock_under_cp_async_l2 sm_clock_under_ldmatrix_mma_cp_async_2ctas cp_async_fill_rows32 \
  sm_clock_under_wgmma_streamed_l2_matched_capped --json $OUT/r/copies.json > $OUT/r/copies.log 2>&1
echo "copies rc=$?" >> $OUT/r/status.txt
grep -E "^(sm_clock|cp_async)" $OUT/r/copies.log | cut -c1-100
(cd $OUT && tar czf copies.tgz r/copies.* r/env.txt r/status.txt)
sustained_ladder "4096" 200 $OUT/r/bench-sustained.json
(cd $OUT && tar czf ladder.tgz r/bench-sustained.json r/bench.log r/status.txt r/env.txt)
cat $OUT/r/status.txt
