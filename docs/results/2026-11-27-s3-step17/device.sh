#!/usr/bin/env bash
# Device call for steps 17 (hopper_cluster_multicast: clusters + TMA multicast) and 18
# (hopper_tma_store: the asynchronous TMA-store epilogue), third session of 2026-11-27. Run from
# the repository root on an H100 with the GUI-off build carried in build/devcarry
# (scripts/device-check.sh says how to build it), OUT set to an empty folder:
#
#   OUT=/tmp/out bash docs/results/2026-11-27-s3-step17/device.sh      # about 7 minutes, at most 9
#
# Steps, most important first, each under its own limit and all under TOTAL_BUDGET_S (520 s): a
# step that would start with too little time left is skipped and says so.
# 1. gpu-tests: every [gpu] case once, with durations: step 17's (clusters of 1, 2 and 4 at
#    384x768x192, 1000^3 and 128x128x4096) and step 18's (clusters of 1, 2 and 4 at 1000^3,
#    384x768x192, 640x264x136 and 64x1024x256) against the model bit for bit and the reference,
#    and both steps in "every kernel is correct" and "the model computes the GPU's bytes,
#    mistakes included" (step 17's deadlock and two races, step 18's two races).
# 2. bench, one program run so the ratios compare: steps 16, 17 and 18 (cluster 2) next to
#    cuBLAS (f32 output) at 2048^3, 4096^3, 6144^3, 8192^3 and 1000^3.
# 3. step 18 at the other shapes, checked against cuBLAS: 4096x1024x8192, 8192x8192x64,
#    128x128x4096, 64x8192x8192 and 3000x5000x4096 (TMA zero-fill and store clipping at size).
# 4. model vs GPU bit for bit at the example shape, steps 17 and 18 with each cluster size, and
#    each mistake (multicast-without-peers must hang on the GPU; the others are judged as races;
#    step 17's mistakes need peers, so cluster=1 compares step 18 only).
# 5. the cluster sizes, one program run each with cuBLAS in it: steps 17 and 18 with cluster=1,
#    2 and 4 at 4096^3, 8192^3 and 1000^3. Compare only inside one run (anchors.md: run-to-run
#    noise is several percent).
# 6. the kernels' own timelines of one pair (--timeline-ctas cluster): step 17 at 8192^3 and
#    step 18 at 4096^3, for the model's cross-CTA timing and the store epilogue's overlap
#    (gemmscope timeline --import FILE --compare-model on the development machine).
#
# Only 8 files come back from a device call, so $OUT gets: status.txt (each step's exit status
# and time, then the lines that matter), env.txt, gpu-tests.txt, bench-16-17-18.json,
# results.tgz (every other log and JSON, nvidia-smi's samples) and timelines.tgz.
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p "$OUT"
TOTAL_BUDGET_S=${TOTAL_BUDGET_S:-520}
W=$(mktemp -d)
S=$OUT/status.txt
START=$(date +%s)

# step NAME MAX_SECONDS LOG COMMAND...: COMMAND's output into $W/LOG, under min(MAX_SECONDS,
# the time left); skipped when fewer than 15 seconds are left.
step() {
  local name=$1 max=$2 log=$3
  shift 3
  local left=$((TOTAL_BUDGET_S - ($(date +%s) - START)))
  local limit=$((max < left ? max : left))
  if [ "$limit" -lt 15 ]; then
    echo "$name: SKIPPED (out of time)" >> "$S"
    return
  fi
  local t0=$(date +%s)
  timeout --kill-after=5 "$limit" "$@" >> "$W/$log" 2>&1
  echo "$name rc=$? ($(( $(date +%s) - t0 )) s, limit $limit s)" >> "$S"
}

{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; $B/gemmscope --version; } > $OUT/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $W/smi.csv 2>&1 &
SMI=$!

step "gpu-tests [gpu]" 270 gpu-tests.log $B/tests/gemmscope_tests "[gpu]" -r console -o $OUT/gpu-tests.txt --durations yes
step "bench 16 vs 17 vs 18" 90 bench-16-17-18.log $B/gemmscope bench hopper_fewer_arrivals hopper_cluster_multicast \
  hopper_tma_store --sizes 2048,4096,6144,8192,1000x1000x1000 --reps 20 --json $OUT/bench-16-17-18.json
step "bench 18 shapes" 60 bench-18-shapes.log $B/gemmscope bench hopper_tma_store \
  --sizes 4096x1024x8192,8192x8192x64,128x128x4096,64x8192x8192,3000x5000x4096 --reps 5 --json $W/bench-18-shapes.json
for c in 1 2 4; do
  # Step 17's mistakes concern a CTA's peers and refuse cluster=1 (the [gpu] case runs it as written).
  ids="hopper_cluster_multicast hopper_tma_store"
  [ $c = 1 ] && ids=hopper_tma_store
  step "compare-model cluster=$c" 45 compare-cluster$c.log $B/gemmscope bench $ids \
    --param cluster=$c --sizes example --reps 0 --compare-model --json $W/compare-cluster$c.json
done
for c in 1 2 4; do
  step "bench cluster=$c" 45 bench-cluster$c.log $B/gemmscope bench hopper_cluster_multicast hopper_tma_store \
    --param cluster=$c --sizes 4096,8192,1000x1000x1000 --reps 20 --json $W/bench-cluster$c.json
done
mkdir -p $W/timelines
step "timeline step 17" 45 timeline.log $B/gemmscope bench hopper_cluster_multicast --sizes 8192 --reps 5 \
  --timeline $W/timelines/step17-pair.timeline.json --timeline-ctas cluster --timeline-capacity 65536
step "timeline step 18" 45 timeline.log $B/gemmscope bench hopper_tma_store --sizes 4096 --reps 5 \
  --timeline $W/timelines/step18-pair.timeline.json --timeline-ctas cluster --timeline-capacity 65536
kill $SMI
echo "total $(( $(date +%s) - START )) s" >> "$S"

{
  echo
  grep -E "^(All tests passed|test cases:|assertions:)" $OUT/gpu-tests.txt
  grep -E "^[0-9.]+ s: .*(step 1[78]|mistakes|every kernel)" $OUT/gpu-tests.txt
  for f in bench-16-17-18 bench-18-shapes bench-cluster1 bench-cluster2 bench-cluster4; do
    echo "== $f"; grep -E "^\[|cuBLAS|wrong|WRONG|hang|fault" $W/$f.log | head -n 24
  done
  echo "== model vs GPU"
  grep -hE "model vs GPU|identical|DIFFERENT|deadlock|race|hang" $W/compare-cluster*.log | head -n 40
  echo "== timelines"
  grep -E "timeline|C identical|overhead" $W/timeline.log | head -n 10
} >> "$S" 2>&1
rm -f $W/timelines/*.trace.json
tar czf $OUT/timelines.tgz -C $W timelines && rm -rf $W/timelines
tar czf $OUT/results.tgz -C $W .
rm -rf "$W"
cat "$S"
