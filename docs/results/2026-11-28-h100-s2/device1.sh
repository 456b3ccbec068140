#!/usr/bin/env bash
# Device call 1 of this session (about 8 minutes, at most 9.5). Run from the repository root on
# the GPU machine with the GUI-off build carried in build/devcarry (scripts/device-check.sh says
# how to build it), OUT set to an empty folder:
#
#   OUT=/tmp/out bash docs/results/<this folder>/device1.sh
#
# 1. occupancy and the persistent grid's size: steps 17 and 18 with clusters of 2 and 4 and
#    ctas = 64..132 (bench prints the CTAs the driver says fit at once, resident_ctas), steps 15
#    and 16 with 128 and 132 CTAs; 4096^3 and 8192^3, cuBLAS in each program run.
# 2. the timeline pass's overhead, the plain copy now laid out first: steps 11-18 at 8192^3, 30
#    plain/instrumented pairs in alternation each, C compared; step 13 three times.
# 3. every [gpu] test case.
# $OUT gets: status.txt, env.txt, bench-grid.json, bench.log, overhead.log, gpu-tests.txt,
# timelines.tgz, rest.tgz.
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p "$OUT"
TOTAL_BUDGET_S=${TOTAL_BUDGET_S:-560}
W=$(mktemp -d); mkdir -p $W/rest $W/timelines
S=$OUT/status.txt
START=$(date +%s)
step() {  # step NAME MAX_SECONDS LOG COMMAND...: skipped with under 15 s left
  local name=$1 max=$2 log=$3; shift 3
  local left=$((TOTAL_BUDGET_S - ($(date +%s) - START)))
  local limit=$((max < left ? max : left))
  if [ "$limit" -lt 15 ]; then echo "$name: SKIPPED (out of time)" >> "$S"; return; fi
  local t0=$(date +%s)
  echo "### $name: $*" >> "$log"
  timeout --kill-after=5 "$limit" "$@" >> "$log" 2>&1
  echo "$name rc=$? ($(( $(date +%s) - t0 )) s, limit $limit s)" >> "$S"
}
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; $B/gemmscope --version; } > $OUT/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $W/rest/smi.csv 2>&1 &
SMI=$!

for c in 2 4; do
  for n in 64 96 120 128 132; do
    step "bench cluster=$c ctas=$n" 40 $OUT/bench.log $B/gemmscope bench hopper_cluster_multicast hopper_tma_store \
      --param cluster=$c --param ctas=$n --sizes 4096,8192 --reps 20 --json $W/rest/bench-c$c-ctas$n.json
  done
done
for n in 128 132; do
  step "bench steps 15-16 ctas=$n" 40 $OUT/bench.log $B/gemmscope bench hopper_persistent hopper_fewer_arrivals \
    --param ctas=$n --sizes 4096,8192 --reps 20 --json $W/rest/bench-s15-ctas$n.json
done
python3 - $W/rest $OUT/bench-grid.json <<'PY'
import json, sys, glob, os
runs = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "bench-*.json"))):
    runs.append({"file": os.path.basename(f), "bench": json.load(open(f))})
json.dump(runs, open(sys.argv[2], "w"), indent=1)
PY
for k in hopper_tma_wgmma_64 hopper_tile_128 hopper_producer_consumer hopper_two_consumers hopper_persistent \
         hopper_fewer_arrivals hopper_cluster_multicast hopper_tma_store hopper_producer_consumer hopper_producer_consumer; do
  f=$W/timelines/$k.timeline.json; [ -e $f ] && f=$W/rest/$k.$(date +%s).timeline.json
  step "timeline $k" 45 $OUT/overhead.log $B/gemmscope bench $k --sizes 8192 --reps 30 \
    --timeline $f --timeline-capacity 65536
done
step gpu-tests 300 $W/rest/gpu-tests.log $B/tests/gemmscope_tests "[gpu]" -r console -o $OUT/gpu-tests.txt --durations yes
kill $SMI
tar czf $OUT/timelines.tgz -C $W timelines
tar czf $OUT/rest.tgz -C $W rest
cat $S
grep -E "TFLOP/s|waves" $OUT/bench.log | head -60
grep -iE "timeline [+-]" $OUT/overhead.log | head -20
tail -n 3 $OUT/gpu-tests.txt
