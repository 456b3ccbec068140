#!/usr/bin/env bash
# #29: one SM storing alone (store_sm_bw, store_sm_bw_scattered: its own store path, bytes a cycle)
# beside the whole chip's write probes, three runs.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-one-wave/device3.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
for i in 1 2 3; do
  timeout 120 $B/gemmscope_timing_probes --only store_sm l2_write --json $OUT/r/store-sm-$i.json > $OUT/r/store-sm-$i.log 2>&1
  echo "store_sm $i rc=$?" >> $OUT/r/status.txt
done
(cd $OUT && tar czf store-sm.tgz r)
cat $OUT/r/status.txt
grep -hE "^(l2_write|store_sm)" $OUT/r/store-sm-*.log | cut -c1-60
