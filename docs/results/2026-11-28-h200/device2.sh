#!/usr/bin/env bash
# Device call 2 (about 7 minutes), on the H200: the timing model's validation set in one run, every runnable
# step at 4096^3, 8192^3, 2048^3 and 4096x1024x8192 (steps 17-18 now with the CTA-scope release),
# with variants: step 13's ring depths, swap-row-col, step 17's clusters of 4 with 128 and 120
# CTAs; and the Hopper steps 14-18 with cuBLAS at 6144^3 and 3000x5000x4096. Writes
# $OUT/bench-*.json and log.tgz. Then on the development machine:
#   scripts/timing-validate.py build/dev/gemmscope bench-ladder.json bench-sizes.json bench-variants.json OUTDIR
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
L=$OUT/log; mkdir -p $L
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv; $B/gemmscope --version; } > $L/env.txt 2>&1
timeout 230 $B/gemmscope bench all --sizes 4096,8192 --reps 5 --json $OUT/bench-ladder.json > $L/bench-ladder.log 2>&1; echo "ladder rc=$?" >> $L/status.txt
timeout 120 $B/gemmscope bench all --sizes 2048,4096x1024x8192 --reps 5 --json $OUT/bench-sizes.json > $L/bench-sizes.log 2>&1; echo "sizes rc=$?" >> $L/status.txt
{
  $B/gemmscope bench simt_coalesced --sizes 4096 --reps 3 --break swap-row-col --json $L/v-swap.json
  for s in 2 3 4 5 6; do $B/gemmscope bench hopper_producer_consumer --sizes 8192 --reps 5 --param stages=$s --json $L/v-st$s.json; done
  for n in 120 128; do $B/gemmscope bench hopper_cluster_multicast --sizes 8192 --reps 5 --param cluster=4 --param ctas=$n --json $L/v-c4-$n.json; done
} > $L/bench-variants.log 2>&1; echo "variants rc=$?" >> $L/status.txt
timeout 90 $B/gemmscope bench hopper_two_consumers hopper_persistent hopper_fewer_arrivals hopper_cluster_multicast \
  hopper_tma_store --sizes 6144,3000x5000x4096 --reps 10 --json $OUT/bench-hopper-more.json > $L/bench-hopper-more.log 2>&1
echo "hopper-more rc=$?" >> $L/status.txt
python3 - "$L" "$OUT/bench-variants.json" <<'PY'
import json, sys, glob, os
merged = None
for f in sorted(glob.glob(os.path.join(sys.argv[1], "v-*.json"))):
    d = json.load(open(f))
    if merged is None: merged = d
    else: merged["results"] += d["results"]
    os.remove(f)
if merged: json.dump(merged, open(sys.argv[2], "w"), indent=1)
PY
cat $L/status.txt
grep -h "TFLOP/s" $L/bench-hopper-more.log | tail -12
tar czf $OUT/log.tgz -C $OUT log && rm -rf $L
