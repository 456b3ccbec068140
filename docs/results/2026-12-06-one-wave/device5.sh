#!/usr/bin/env bash
# #29: what a wait on an mbarrier whose phase has completed costs (mbarrier_wait_done, with and
# without the steps' suspend hint), beside the hand-off probes the wake latency comes from; three runs.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-one-wave/device5.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
for i in 1 2 3; do
  timeout 120 $B/gemmscope_timing_probes --only mbarrier_wait_done mbarrier_handoff tma_latency_1k --json $OUT/r/mbar-$i.json \
    > $OUT/r/mbar-$i.log 2>&1
  echo "mbar $i rc=$?" >> $OUT/r/status.txt
done
(cd $OUT && tar czf mbar.tgz r)
cat $OUT/r/status.txt
grep -hE "^(mbarrier|tma_latency)" $OUT/r/mbar-*.log | cut -c1-62
