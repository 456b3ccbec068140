#!/usr/bin/env bash
# #29: does a ring's rotation cost the tensor cores? Two warpgroups reading 1, 3 or 4 stages in turn
# (wgmma_n256_2wg_stages*, zero and random bf16) beside wgmma_n256_2wg, three runs.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-one-wave/device6.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
for i in 1 2 3; do
  timeout 120 $B/gemmscope_timing_probes --only wgmma_n256 --json $OUT/r/wgmma-$i.json > $OUT/r/wgmma-$i.log 2>&1
  echo "wgmma $i rc=$?" >> $OUT/r/status.txt
done
(cd $OUT && tar czf wgmma.tgz r)
cat $OUT/r/status.txt
grep -hE "^wgmma" $OUT/r/wgmma-*.log | cut -c1-62
