#!/usr/bin/env bash
# Device call B of the second session of 2026-11-27: the timing probes (the machine
# description's sources), the Hopper steps' timelines at 8192^3 recorded again (the decoder's
# role fix; overhead and C identical), and compute-sanitizer over every runnable step.
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/status.txt 2>&1
timeout 45 $B/gemmscope_timing_probes --json $OUT/timing-probes.json > $OUT/timing-probes.log 2>&1; echo "timing-probes rc=$?" >> $OUT/status.txt
mkdir -p $OUT/timelines
for id in hopper_tma_wgmma_64 hopper_tile_128 hopper_producer_consumer hopper_two_consumers hopper_persistent hopper_fewer_arrivals; do
  timeout 60 $B/gemmscope bench $id --sizes 8192 --reps 20 --timeline $OUT/timelines/$id.timeline.json \
    --timeline-capacity 65536 >> $OUT/overhead.log 2>&1; echo "timeline $id rc=$?" >> $OUT/status.txt
done
rm -f $OUT/timelines/*.trace.json
tar czf $OUT/timelines.tgz -C $OUT timelines && rm -rf $OUT/timelines
TOTAL_BUDGET_S=120 OUT=$OUT/sanitize bash scripts/device-sanitize.sh "$B" > $OUT/sanitize.log 2>&1; echo "sanitize rc=$?" >> $OUT/status.txt
tar czf $OUT/sanitize.tgz -C $OUT sanitize 2>/dev/null && rm -rf $OUT/sanitize
cat $OUT/status.txt; tail -n 25 $OUT/timing-probes.log; grep -E "timeline|slowdown|identical|DIFFERS" $OUT/overhead.log | head -n 30
tail -n 12 $OUT/sanitize.log
