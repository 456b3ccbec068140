#!/usr/bin/env bash
# Call 1 of 2026-12-05 (twenty-fourth session), issue #29: on an H100, first the clock probes under
# the power limit the H100's machine description still lacks (`gemmscope_timing_probes --only
# sm_clock_under`, about a minute); on either card, then, the ladder under the power limit
# (../2026-12-05-sustain/device1.sh: every runnable step at 4096^3 and 8192^3, `--reps 50
# --sustain 2000`), which tars everything under $OUT/r into $OUT/sustained.tgz.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-05-sustained/device1.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100; then
  timeout 150 $B/gemmscope_timing_probes --only sm_clock_under --json $OUT/r/probes-clock.json \
    > $OUT/r/probes-clock.log 2>&1
  echo "probes rc=$?" >> $OUT/r/status.txt
  cp $OUT/r/probes-clock.log $OUT/
fi
bash "$(dirname "$0")/../2026-12-05-sustain/device1.sh"
