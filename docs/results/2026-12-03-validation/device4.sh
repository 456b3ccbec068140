#!/usr/bin/env bash
# Device call 4 (about 3 minutes): why step 13's ring of 3 stages (and of 5-6) loses to 4 at 8192^3.
#  1. a 32-KiB TMA box's issue-to-land time with 16, 33, 66, 99 and 132 SMs each keeping one box
#     in flight from HBM (tma_latency_32k_loaded*_hbm), and the L2 rows: latency against load;
#  2. Nsight Compute on step 13 at 8192^3 with 3, 4 and 6 stages: HBM bytes, L2 hit rate, time.
#   OUT=/tmp/out B=build/carry2 bash docs/results/2026-12-03-validation/device4.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
for i in 1 2; do
  timeout 120 $B/gemmscope_timing_probes --only tma_latency_32k tma_latency_1k --json $OUT/probes$i.json > $OUT/probes$i.log 2>&1
  echo "probes $i rc=$?" >> $OUT/status.txt
done
METRICS="dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__cycles_elapsed.avg,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed"
for s in 3 4 6; do
  timeout --kill-after=10 90 ncu --metrics "$METRICS" --launch-count 1 -k regex:'^hopper_producer_consumer' \
    $B/gemmscope bench hopper_producer_consumer --sizes 8192 --reps 0 --param stages=$s > $OUT/ncu/step13-s$s.txt 2>&1
  echo "ncu stages=$s rc=$?" >> $OUT/status.txt
done
cat $OUT/status.txt
grep -hE "^tma_latency" $OUT/probes1.log $OUT/probes2.log | cut -c1-50
for f in $OUT/ncu/*.txt; do echo "== $f"; grep -E "dram__|hit_rate|gpu__time|tensor_op|lts__throughput" $f | head -6; done
(cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu)
