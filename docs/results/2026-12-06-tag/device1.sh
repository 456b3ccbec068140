#!/usr/bin/env bash
# #29 after the tag-stage rule: step 09's probe rows (cp_async_fill_rows32*, the 8-group rows the
# rule's figure came from, here on whichever card is lent), then the whole runnable ladder alone under
# the power limit at 4096^3 and 8192^3, the variants the targets name (step 02 with swap-row-col at
# 4096^3, step 13's ring depths 2..6 at 8192^3, each sustained alone), then 2048^3 and
# 4096x1024x8192 while the budget lasts (BUDGET_S, default 520 s, for everything after the probes).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-tag/device1.sh
# Then here: python3 scripts/timing-validate.py build/devcarry/gemmscope r/bench-alone.json r/bench-variants.json r/bench-small.json OUTDIR
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
START=$SECONDS
timeout 60 $B/gemmscope_timing_probes --only cp_async_fill_rows32 --json $OUT/r/probes.json > $OUT/r/probes.log 2>&1
echo "probes rc=$?" >> $OUT/r/status.txt
grep -E "^cp_async" $OUT/r/probes.log | cut -c1-90
BUDGET=${BUDGET_S:-520}
LADDER_ARGS=--no-cublas sustained_ladder "4096 8192" $((BUDGET * 60 / 100)) $OUT/r/bench-alone.json
mkdir -p $OUT/r/v
{
  timeout 60 $B/gemmscope bench simt_coalesced --sizes 4096 --reps 20 --sustain 2000 --no-cublas --break swap-row-col --json $OUT/r/v/v-swap.json
  for s in 2 3 4 5 6; do
    timeout 60 $B/gemmscope bench hopper_producer_consumer --sizes 8192 --reps 20 --sustain 2000 --no-cublas --param stages=$s --json $OUT/r/v/v-st$s.json
  done
} > $OUT/r/bench-variants.log 2>&1
echo "variants rc=$?" >> $OUT/r/status.txt
python3 - "$OUT/r/v" "$OUT/r/bench-variants.json" <<'PY'
import json, sys, glob, os
merged = None
for f in sorted(glob.glob(os.path.join(sys.argv[1], "v-*.json"))):
    d = json.load(open(f))
    if merged is None: merged = d
    else: merged["results"] += d["results"]
if merged: json.dump(merged, open(sys.argv[2], "w"), indent=1)
PY
rm -rf $OUT/r/v
LEFT=$((BUDGET - (SECONDS - START)))
[ $LEFT -gt 30 ] && LADDER_ARGS=--no-cublas sustained_ladder "2048 4096x1024x8192" $LEFT $OUT/r/bench-small.json
(cd $OUT && tar czf tag.tgz r)
cat $OUT/r/status.txt | tail -5
echo "total $((SECONDS - START)) s"
