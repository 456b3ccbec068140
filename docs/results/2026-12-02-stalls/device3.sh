#!/usr/bin/env bash
# Device call 3 (about 5 minutes): the validation set for the clock rule by the tensor cores' busy
# share, and two more probes.
#  1. the timing probes l1_fill_same_* (every warp reads the same new lines a round: lines on their
#     way from L2) and the clock probes held at the power limit with all, 3/4 and 1/2 of the SMs
#     busy (sm_clock_under_wgmma_streamed_l2_capped*, the rule's calibration points);
#  2. bench of every step at 4096^3 and 8192^3 with the held clock (the validation set).
#   OUT=/tmp/out B=build/carry bash docs/results/2026-12-02-stalls/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
timeout 150 $B/gemmscope_timing_probes --only l1_fill_same l1_loads_stride4_32warps sm_clock_under_wgmma_streamed_l2_capped \
  --json $OUT/probes.json > $OUT/probes.log 2>&1
echo "probes rc=$?" >> $OUT/status.txt
timeout 330 $B/gemmscope bench all --sizes 4096,8192 --reps 20 --json $OUT/bench-ladder.json > $OUT/bench-ladder.log 2>&1
echo "bench rc=$?" >> $OUT/status.txt
cat $OUT/status.txt
grep -E "^(l1_|sm_clock)" $OUT/probes.log | cut -c1-70
grep -E "^(simt|ampere|hopper)" $OUT/bench-ladder.log | cut -c1-120 | head -40
