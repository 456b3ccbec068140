#!/usr/bin/env bash
# Device call 4 of the fourth session of 2026-11-27 (about 3 minutes): steps 17 and 18 after the
# consumers' release became one instruction per warp (lane q on CTA q). One program run per
# line so the cuBLAS ratio is the same run's. Writes $OUT/bench-*.json, $OUT/log.txt, $OUT/gpu.txt.
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
{
  timeout 120 $B/tests/gemmscope_tests "[step17],[step18]" 2>&1 | tail -n 3
} > $OUT/gpu.txt 2>&1
{
  timeout 60 $B/gemmscope bench hopper_fewer_arrivals hopper_cluster_multicast hopper_tma_store --sizes 4096,8192 --reps 20 --json $OUT/bench-default.json
  timeout 40 $B/gemmscope bench hopper_cluster_multicast --param stages=4 --sizes 4096,8192 --reps 20 --json $OUT/bench-17-st4.json
  timeout 40 $B/gemmscope bench hopper_cluster_multicast hopper_tma_store --param cluster=1 --sizes 4096,8192 --reps 20 --json $OUT/bench-c1.json
  timeout 40 $B/gemmscope bench hopper_cluster_multicast hopper_tma_store --param cluster=4 --sizes 4096,8192 --reps 20 --json $OUT/bench-c4.json
  timeout 40 $B/gemmscope bench hopper_cluster_multicast --sizes 8192 --reps 5 --timeline $OUT/step17.timeline.json --timeline-ctas cluster --timeline-capacity 65536
} > $OUT/log.txt 2>&1
cat $OUT/gpu.txt; grep -E "TFLOP/s" $OUT/log.txt
