#!/usr/bin/env bash
# #29's validation set on the kernels as they ship after #31's descriptor change (8e25af1) and the dead
# 64-bit ring descriptors' removal, part 1 of 2 on one warm card (about 7.5 minutes): every kernel and
# mistake on the GPU and the model at the example shape (C bit for bit), the runnable ladder alone under
# the power limit at 4096^3 and 8192^3 (`bench --reps 50 --sustain 2000 --no-cublas`), step 02 with
# swap-row-col, step 13's rings of 2-6 stages at both sizes. Part 2 (device2.sh): 2048^3, 4096x1024x8192
# and #31's sizes.
#   mkdir -p build/c && tar xJf build/c1/c.txz -C build/c && OUT=$OUT B=build/c bash docs/results/2026-12-07-new-kernels/device1.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 150 $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
echo "compare-model rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
(cd $OUT && tar czf compare.tgz r/compare.* r/env.txt r/status.txt)
LADDER_ARGS=--no-cublas sustained_ladder "4096 8192" 330 $OUT/r/bench-alone.json
echo "ladder at ${SECONDS} s" >> $OUT/r/status.txt
timing_variants $OUT/r/bench-variants.json
(cd $OUT && tar czf all.tgz r)
tail -4 $OUT/r/status.txt
