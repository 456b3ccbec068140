#!/usr/bin/env bash
# Device call 3 (about 1 minute): the clock under wgmma + TMA as bench times a GEMM of about
# 1.5 ms (3 warm-up and 20 timed launches back to back, the clock of the last), twice, with the
# single-launch and 21-launch rows between.
#   OUT=/tmp/out bash docs/results/<this folder>/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
for r in 1 2; do
  timeout 200 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_ launch_132 --json $OUT/probes$r.json >> $OUT/probes.log 2>&1
  echo "probes $r rc=$?" >> $OUT/status.txt
done
cat $OUT/status.txt; cat $OUT/probes.log
