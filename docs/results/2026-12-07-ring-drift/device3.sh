#!/usr/bin/env bash
# Device call 3 (issue 29, under 9 minutes), right after device2.sh on the same card: the runnable
# ladder alone under the power limit at 4096x1024x8192 and 2048^3, then 4096x1024x8192 once more
# (its pairs of consecutive steps sit within the run-to-run spread: two passes of one call).
#   mkdir -p build/c && tar xJf build/c1/c.txz -C build/c && OUT=$OUT B=build/c bash docs/results/2026-12-07-ring-drift/device3.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
LADDER_ARGS=--no-cublas sustained_ladder "4096x1024x8192 2048" 330 $OUT/r/bench-small.json
echo "ladder at ${SECONDS} s" >> $OUT/r/status.txt
(cd $OUT && tar czf all.tgz r)
LADDER_ARGS=--no-cublas sustained_ladder "4096x1024x8192" $((530 - SECONDS)) $OUT/r/bench-small-2.json
echo "second pass at ${SECONDS} s" >> $OUT/r/status.txt
(cd $OUT && tar czf all.tgz r)
tail -4 $OUT/r/status.txt
