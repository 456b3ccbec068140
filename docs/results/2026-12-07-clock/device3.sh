#!/usr/bin/env bash
# #29, one card's whole validation set in one call: the runnable ladder alone under the power limit
# at 4096^3 and 8192^3, the variants the targets name (step 02 with swap-row-col at 4096^3; step 13's
# ring depths 2..6 at 4096^3 and 8192^3, each sustained alone: the sustained 4096^3 rings were never
# measured), then 2048^3 and 4096x1024x8192 while BUDGET_S (default 520 s) lasts; before all of it, the
# model against the GPU at the example shape (about a minute, outside BUDGET_S: BUDGET_S=460 for one call).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-07-clock/device3.sh
# Then here: python3 scripts/timing-validate.py build/devcarry/gemmscope r/bench-alone.json r/bench-variants.json r/bench-small.json OUTDIR
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
# #32's check first: every kernel and mistake on the GPU and the model at the example shape, C bit for bit
# (needs build/c1/c.txz built at 4863811 or later: the carry of 2026-12-07 06:13 UTC is).
timeout 150 $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
echo "compare-model rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
(cd $OUT && tar czf compare.tgz r/compare.* r/env.txt r/status.txt)
START=$SECONDS
BUDGET=${BUDGET_S:-520}
LADDER_ARGS=--no-cublas sustained_ladder "4096 8192" $((BUDGET * 55 / 100)) $OUT/r/bench-alone.json
timing_variants $OUT/r/bench-variants.json
(cd $OUT && tar czf big.tgz r)
LEFT=$((BUDGET - (SECONDS - START)))
[ $LEFT -gt 30 ] && LADDER_ARGS=--no-cublas sustained_ladder "2048 4096x1024x8192" $LEFT $OUT/r/bench-small.json
(cd $OUT && tar czf all.tgz r)
tail -5 $OUT/r/status.txt
echo "total $((SECONDS - START)) s"
