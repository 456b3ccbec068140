#!/usr/bin/env bash
# Device call 1 of the fourth session of 2026-11-27 (about 7 minutes). Run from the repository
# root on the GPU machine with the GUI-off build carried in build/devcarry (scripts/device-check.sh
# says how to build it), OUT set to an empty folder. Writes into $OUT (8 files at most):
#   timing-probes.{log,json}  the microbenchmarks, the new sm_clock_under_wgmma_{l2_1,l2_4,hbm} among them
#   bench-ladder.json         every step at 4096^3 and 8192^3 with cuBLAS (the validation set)
#   bench-variants.json       step 02 with swap-row-col (4096^3), step 13 at each ring depth (8192^3)
#   overhead.log              steps 13-16 at 8192^3: plain and instrumented launches in alternation
#   rest.tgz                  logs, the timelines, smi.csv (clock and power every 200 ms), env.txt
# Then on the development machine:
#   scripts/timing-validate.py build/dev/gemmscope bench-ladder.json bench-variants.json OUTDIR
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
R=$OUT/rest
mkdir -p $R/timelines
S=$R/status.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; $B/gemmscope --version; } > $R/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 200 > $R/smi.csv 2>&1 &
SMI=$!
timeout 150 $B/gemmscope_timing_probes --json $OUT/timing-probes.json > $OUT/timing-probes.log 2>&1; echo "probes rc=$?" >> $S
timeout 240 $B/gemmscope bench all --sizes 4096,8192 --reps 5 --json $OUT/bench-ladder.json > $R/bench-ladder.log 2>&1; echo "ladder rc=$?" >> $S
{
  $B/gemmscope bench simt_coalesced --sizes 4096 --reps 3 --break swap-row-col --json $R/v-swap.json
  for s in 2 3 4 5 6; do $B/gemmscope bench hopper_producer_consumer --sizes 8192 --reps 5 --param stages=$s --json $R/v-st$s.json; done
} > $R/bench-variants.log 2>&1; echo "variants rc=$?" >> $S
python3 - "$R" "$OUT/bench-variants.json" <<'PY'
import json, sys, glob, os
merged = None
for f in sorted(glob.glob(os.path.join(sys.argv[1], "v-*.json"))):
    d = json.load(open(f))
    if merged is None: merged = d
    else: merged["results"] += d["results"]
    os.remove(f)
if merged: json.dump(merged, open(sys.argv[2], "w"), indent=1)
PY
for k in hopper_producer_consumer hopper_two_consumers hopper_persistent hopper_fewer_arrivals; do
  timeout 120 $B/gemmscope bench $k --sizes 8192 --reps 30 --timeline $R/timelines/$k.timeline.json \
    --timeline-capacity 65536 >> $OUT/overhead.log 2>&1
  echo "timeline $k rc=$?" >> $S
done
kill $SMI
cat $S
tar czf $OUT/rest.tgz -C $OUT rest && rm -rf $R
cat $OUT/overhead.log | grep -E "timeline|TFLOP"
grep -E "^(sm_clock|wgmma_n256_2wg|tma_hbm)" $OUT/timing-probes.log
