#!/usr/bin/env bash
# Device call 4 (under 3 minutes): every runnable step and mistake at its example shape on the card
# beside the model at this session's end (the drift rule, #32's records and load paths, the
# tma-race fix): the model-vs-GPU rows must stay bit for bit.
#   mkdir -p build/c && tar xJf build/c1/c.txz -C build/c && OUT=$OUT B=build/c bash docs/results/2026-12-07-ring-drift/device4.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
timeout 170 $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
echo "compare-model rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
tail -25 $OUT/r/compare.log
cat $OUT/r/status.txt
