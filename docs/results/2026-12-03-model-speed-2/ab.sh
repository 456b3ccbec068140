#!/bin/bash
# Base and new model benches alternated kernel by kernel, two rounds: fast mode at the large
# shape, traced mode at the one-CTA shape, best of 3 each; one JSON file per run in $RUNS.
#   BASE=/tmp/base-bench NEW=build/devcarry/gemmscope_model_bench GEMMSCOPE=build/devcarry/gemmscope \
#     RUNS=/tmp/runs bash docs/results/2026-12-03-model-speed-2/ab.sh
: "${BASE:?}" "${NEW:?}" "${GEMMSCOPE:?}" "${RUNS:?}"
mkdir -p "$RUNS"
KS=$("$GEMMSCOPE" list --json | python3 -c "import json,sys; d=json.load(sys.stdin); [print(k['id']) for k in (d if isinstance(d,list) else d['kernels'])]")
for round in 1 2; do
  for k in $KS; do
    for side in base new; do
      bin=$BASE; [ $side = new ] && bin=$NEW
      "$bin" --kernel $k --shape large --mode fast --repeat 3 --json "$RUNS/$k-fast-$side-$round.json" > /dev/null 2>&1
      "$bin" --kernel $k --shape one-cta --mode traced --repeat 3 --json "$RUNS/$k-traced-$side-$round.json" > /dev/null 2>&1
    done
  done
done
