#!/usr/bin/env bash
# Device call V of the third session of 2026-11-27: the timing model's validation set, measured.
# Run from the repository root on the GPU machine with the GUI-off build carried in
# build/devcarry (scripts/device-check.sh says how to build it). Writes into $OUT:
#   timing-probes.{log,json}   the microbenchmarks behind the machine description
#   bench-ladder.json          every step at 4096^3 and 8192^3 with cuBLAS
#   bench-sizes.json           every step at 2048^3 and 4096x1024x8192
#   bench-variants.json        step 02 with swap-row-col, step 13 at each ring depth (8192^3)
#   smi.csv                    the SM clock and power every 200 ms
# Then on the development machine:
#   scripts/timing-validate.py build/dev/gemmscope bench-ladder.json bench-sizes.json bench-variants.json OUTDIR
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; $B/gemmscope --version; } > $OUT/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 200 > $OUT/smi.csv 2>&1 &
SMI=$!
timeout 90 $B/gemmscope_timing_probes --json $OUT/timing-probes.json > $OUT/timing-probes.log 2>&1; echo "probes rc=$?" >> $OUT/status.txt
timeout 200 $B/gemmscope bench all --sizes 4096,8192 --reps 5 --json $OUT/bench-ladder.json > $OUT/bench-ladder.log 2>&1; echo "ladder rc=$?" >> $OUT/status.txt
timeout 150 $B/gemmscope bench all --sizes 2048,4096x1024x8192 --reps 5 --json $OUT/bench-sizes.json > $OUT/bench-sizes.log 2>&1; echo "sizes rc=$?" >> $OUT/status.txt
{
  $B/gemmscope bench simt_coalesced --sizes 4096 --reps 3 --break swap-row-col --json $OUT/v-swap.json
  for s in 2 3 4 5 6; do $B/gemmscope bench hopper_producer_consumer --sizes 8192 --reps 5 --param stages=$s --json $OUT/v-st$s.json; done
} > $OUT/bench-variants.log 2>&1; echo "variants rc=$?" >> $OUT/status.txt
python3 - "$OUT" <<'PY'
import json, sys, glob, os
out = sys.argv[1]
merged = None
for f in sorted(glob.glob(os.path.join(out, "v-*.json"))):
    d = json.load(open(f))
    if merged is None: merged = d
    else: merged["results"] += d["results"]
    os.remove(f)
if merged: json.dump(merged, open(os.path.join(out, "bench-variants.json"), "w"), indent=1)
PY
kill $SMI
cat $OUT/status.txt
grep -E "^(wgmma|sm_clock|l1_loads|tma)" $OUT/timing-probes.log
sed -n '/^kernel /,$p' $OUT/bench-ladder.log | head -n 40
