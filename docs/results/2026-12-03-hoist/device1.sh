#!/usr/bin/env bash
# Device call 1: the co-resident CTA probes (one, two and four CTAs an SM of a SIMT K loop, a
# data-path-bound and an issue-bound mix: how much co-resident CTAs hide each other's stalls), the
# issue-rate probes beside them, and every step at 2048^3 and 4096x1024x8192 beside cuBLAS.
#   OUT=/tmp/out B=build/carry bash docs/results/2026-12-03-hoist/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
timeout 200 $B/gemmscope_timing_probes --only coresident imad_issue ffma_issue lds_rate \
  --json $OUT/probes.json > $OUT/probes.log 2>&1
echo "probes rc=$?" >> $OUT/status.txt
timeout 330 $B/gemmscope bench all --sizes 2048,4096x1024x8192 --reps 20 --json $OUT/bench-sizes.json \
  > $OUT/bench-sizes.log 2>&1
echo "bench rc=$?" >> $OUT/status.txt
cat $OUT/env.txt $OUT/status.txt
grep -E "^(coresident|imad|ffma|lds)" $OUT/probes.log | cut -c1-60
tail -n 45 $OUT/bench-sizes.log | cut -c1-150
