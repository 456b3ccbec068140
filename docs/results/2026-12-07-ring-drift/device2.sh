#!/usr/bin/env bash
# Device call 2 (issue 29, under 7 minutes): #29's validation set, part 1 of 2 on one warm card:
# the runnable ladder alone under the power limit at 4096^3 and 8192^3, then the variants (step 02's
# swap-row-col, step 13's rings of 2-6 stages at 4096^3 and 8192^3).
#   mkdir -p build/c && tar xJf build/c1/c.txz -C build/c && OUT=$OUT B=build/c bash docs/results/2026-12-07-ring-drift/device2.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
LADDER_ARGS=--no-cublas sustained_ladder "4096 8192" 330 $OUT/r/bench-alone.json
echo "ladder at ${SECONDS} s" >> $OUT/r/status.txt
timing_variants $OUT/r/bench-variants.json
(cd $OUT && tar czf all.tgz r)
tail -4 $OUT/r/status.txt
