#!/usr/bin/env bash
# Device call 1 or 2 of this session: the timing model's validation set (issue 29) in one session,
# every runnable step at the sizes SIZES with the held clock, 20 reps, and (VARIANTS=1) the
# variants the targets name: step 02 with swap-row-col at 4096^3, step 13's ring depths 2..6 at 8192^3.
#   OUT=/tmp/out B=build/carry2 SIZES=4096,8192 VARIANTS=1 bash docs/results/2026-12-03-validation/device1.sh
#   OUT=/tmp/out B=build/carry2 SIZES=2048,4096x1024x8192 bash docs/results/2026-12-03-validation/device1.sh
# Then on the development machine:
#   scripts/timing-validate.py build/devcarry/gemmscope call1/bench.json call1/bench-variants.json call2/bench.json OUTDIR
B=${B:-build/devcarry}
SIZES=${SIZES:-4096,8192}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv; } > $OUT/env.txt 2>&1
timeout 420 $B/gemmscope bench all --sizes $SIZES --reps 20 --json $OUT/bench.json > $OUT/bench.log 2>&1
echo "bench $SIZES rc=$?" >> $OUT/status.txt
if [ "${VARIANTS:-0}" = 1 ]; then
  L=$OUT/v; mkdir -p $L
  {
    $B/gemmscope bench simt_coalesced --sizes 4096 --reps 5 --break swap-row-col --json $L/v-swap.json
    for s in 2 3 4 5 6; do $B/gemmscope bench hopper_producer_consumer --sizes 8192 --reps 10 --param stages=$s --json $L/v-st$s.json; done
  } > $OUT/bench-variants.log 2>&1
  echo "variants rc=$?" >> $OUT/status.txt
  python3 - "$L" "$OUT/bench-variants.json" <<'PY'
import json, sys, glob, os
merged = None
for f in sorted(glob.glob(os.path.join(sys.argv[1], "v-*.json"))):
    d = json.load(open(f))
    if merged is None: merged = d
    else: merged["results"] += d["results"]
if merged: json.dump(merged, open(sys.argv[2], "w"), indent=1)
PY
  rm -rf $L
fi
cat $OUT/env.txt $OUT/status.txt
grep -E "^(simt|ampere|hopper)" $OUT/bench.log | cut -c1-120 | head -45
