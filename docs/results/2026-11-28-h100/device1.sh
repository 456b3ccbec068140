#!/usr/bin/env bash
# Device call 1 of 2026-11-28 (about 8 minutes, at most 9.3). Run from the repository root on the
# GPU machine with the GUI-off build carried in build/devcarry (scripts/device-check.sh says how
# to build it), OUT set to an empty folder:
#
#   OUT=/tmp/out bash docs/results/2026-11-28-h100/device1.sh
#
# 1. probes: a remote mbarrier arrive, the default form (release at CTA scope) against
#    .release.cluster: round trip and the issuing warp's cost per arrive; their PTX, and the
#    SASS ptxas makes of it (cuobjdump).
# 2. steps 16, 17 and 18 in one program run with cuBLAS, clusters 1, 2 and 4, at 4096^3 and
#    8192^3: steps 17-18 now release a stage with the default arrive (it was .release.cluster).
# 3. the timeline pass's overhead (recording CTAs now run the records, the others a plain copy
#    of the kernel): steps 11-18 at 8192^3, 30 plain/instrumented pairs in alternation each,
#    C compared; the recordings of steps 11-16 kept.
# 4. every [gpu] test case.
# $OUT gets: status.txt, env.txt, probes-remote.log, bench-clusters.json, overhead.log,
# gpu-tests.txt, timelines.tgz, rest.tgz.
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p "$OUT"
TOTAL_BUDGET_S=${TOTAL_BUDGET_S:-555}
W=$(mktemp -d); mkdir -p $W/rest/ptx $W/timelines
S=$OUT/status.txt
START=$(date +%s)
step() {  # step NAME MAX_SECONDS LOG COMMAND...: skipped with under 15 s left
  local name=$1 max=$2 log=$3; shift 3
  local left=$((TOTAL_BUDGET_S - ($(date +%s) - START)))
  local limit=$((max < left ? max : left))
  if [ "$limit" -lt 15 ]; then echo "$name: SKIPPED (out of time)" >> "$S"; return; fi
  local t0=$(date +%s)
  timeout --kill-after=5 "$limit" "$@" >> "$log" 2>&1
  echo "$name rc=$? ($(( $(date +%s) - t0 )) s, limit $limit s)" >> "$S"
}
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; $B/gemmscope --version; } > $OUT/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $W/rest/smi.csv 2>&1 &
SMI=$!

step probes 60 $OUT/probes-remote.log $B/gemmscope_timing_probes --only remote_arrive --ptx $W/rest/ptx --json $W/rest/probes-remote.json
for f in $W/rest/ptx/*.ptx; do
  ptxas -arch=sm_90a -o ${f%.ptx}.cubin $f && cuobjdump -sass ${f%.ptx}.cubin > ${f%.ptx}.sass 2>&1
done
for c in 1 2 4; do
  step "bench cluster=$c" 70 $W/rest/bench.log $B/gemmscope bench hopper_cluster_multicast hopper_tma_store \
    --param cluster=$c --sizes 4096,8192 --reps 20 --json $W/rest/bench-c$c.json
done
# step 16, the baseline without clusters (it takes no cluster parameter)
step "bench step 16" 40 $W/rest/bench.log $B/gemmscope bench hopper_fewer_arrivals --sizes 4096,8192 --reps 20 --json $W/rest/bench-16.json
python3 - $W/rest $OUT/bench-clusters.json <<'PY'
import json, sys, glob, os
runs = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "bench-*.json"))):
    runs.append({"file": os.path.basename(f), "bench": json.load(open(f))})
json.dump(runs, open(sys.argv[2], "w"), indent=1)
PY
for k in hopper_tma_wgmma_64 hopper_tile_128 hopper_producer_consumer hopper_two_consumers hopper_persistent \
         hopper_fewer_arrivals hopper_cluster_multicast hopper_tma_store; do
  step "timeline $k" 45 $OUT/overhead.log $B/gemmscope bench $k --sizes 8192 --reps 30 \
    --timeline $W/timelines/$k.timeline.json --timeline-capacity 65536
done
step gpu-tests 200 $W/rest/gpu-tests.log $B/tests/gemmscope_tests "[gpu]" -r console -o $OUT/gpu-tests.txt --durations yes
kill $SMI
tar czf $OUT/timelines.tgz -C $W timelines
tar czf $OUT/rest.tgz -C $W rest
cat $S
grep -E "remote_arrive" $OUT/probes-remote.log
grep -iE "overhead|identical|instrumented" $OUT/overhead.log | head -40
tail -n 3 $OUT/gpu-tests.txt
