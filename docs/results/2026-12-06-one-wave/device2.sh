#!/usr/bin/env bash
# #29: what stores into L2 take when every SM stores at once: the write probes (16-B lanes and an
# epilogue's scattered 8-B lanes, into an L2-sized footprint and to HBM) and one-launch bursts of
# 16 and 128 KiB a CTA, 132 CTAs, three runs each (the write_burst rows were dropped after this call:
# a launch's time there is the harness's, whatever the bytes).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-one-wave/device2.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
for i in 1 2 3; do
  timeout 120 $B/gemmscope_timing_probes --only l2_write hbm_write write_burst --json $OUT/r/writes-$i.json > $OUT/r/writes-$i.log 2>&1
  echo "writes $i rc=$?" >> $OUT/r/status.txt
done
(cd $OUT && tar czf writes.tgz r)
cat $OUT/r/status.txt
grep -hE "^(l2_write|hbm_write|write_burst)" $OUT/r/writes-*.log | cut -c1-60
