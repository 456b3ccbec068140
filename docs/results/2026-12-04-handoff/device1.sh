#!/usr/bin/env bash
# Device call 1 (issue 29, about 4 minutes): what a stage's hand-off from step 13's consumers to
# its producer costs. The local mbarrier hand-off probe (mbarrier_handoff_*), the ring probe with
# step 13's roles (tma_gemm_ring8192_split_*) beside the one-thread ring in the same call, the
# TMA latency probe the model's tma_latency comes from, and step 13's own GPU timeline at 8192^3
# for rings of 2-6 stages (its producer's empty-waits against its consumers' wgmma waits).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-handoff/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/r/env.txt 2>&1
for i in 1 2; do
  timeout 60 $B/gemmscope_timing_probes --only mbarrier_handoff remote_arrive_round_trip tma_latency_1k \
    --json $OUT/r/handoff$i.json > $OUT/r/handoff$i.log 2>&1
  echo "handoff rows $i rc=$?" >> $OUT/r/status.txt
done
timeout 200 $B/gemmscope_timing_probes --only tma_gemm_ring8192_split tma_gemm_ring8192_s \
  --json $OUT/r/ring.json > $OUT/r/ring.log 2>&1
echo "ring rows rc=$?" >> $OUT/r/status.txt
for s in 2 3 4 5 6; do
  timeout 60 $B/gemmscope timeline hopper_producer_consumer --size 8192 --param stages=$s --reps 10 \
    --json $OUT/r/tl8192_s$s.json > $OUT/r/tl8192_s$s.log 2>&1
  echo "timeline stages=$s rc=$?" >> $OUT/r/status.txt
  rm -f $OUT/r/tl8192_s$s.json.trace.json
done
cat $OUT/r/env.txt $OUT/r/status.txt
grep -hE "^(mbarrier_handoff|remote_arrive_round_trip |tma_latency_1k)" $OUT/r/handoff1.log $OUT/r/handoff2.log | cut -c1-62
grep -hE "pace(20|28)_(period|clock)" $OUT/r/ring.log | cut -c1-62
grep -h "GPU:" $OUT/r/handoff1.log | head -3
for s in 2 3 4 5 6; do tail -8 $OUT/r/tl8192_s$s.log; done
(cd $OUT && tar czf h1.tgz r && rm -rf r)
