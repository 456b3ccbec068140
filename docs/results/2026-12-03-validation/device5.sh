#!/usr/bin/env bash
# Device call 5 (about 2 minutes): step 13's ring depths at 4096^3, where 5 and 6 stages do not lose on the
# card (2026-12-02-ring: 1.00 and 0.99 of the best): do they read more from HBM there too? Nsight Compute's
# HBM bytes and L2 hit rate for 3, 4 and 6 stages, and bench's timing with NVML's clock for each.
#   OUT=/tmp/out B=build/carry2 bash docs/results/2026-12-03-validation/device5.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu $OUT/v
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
METRICS="dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
gpu__time_duration.sum,sm__cycles_elapsed.avg"
for s in 3 4 6; do
  timeout --kill-after=10 60 ncu --metrics "$METRICS" --launch-count 1 -k regex:'^hopper_producer_consumer' \
    $B/gemmscope bench hopper_producer_consumer --sizes 4096 --reps 0 --param stages=$s > $OUT/ncu/step13-4096-s$s.txt 2>&1
  echo "ncu 4096 stages=$s rc=$?" >> $OUT/status.txt
done
for s in 3 4 5 6; do
  timeout 60 $B/gemmscope bench hopper_producer_consumer --sizes 4096 --reps 10 --param stages=$s --json $OUT/v/st$s.json > $OUT/v/st$s.log 2>&1
  echo "bench 4096 stages=$s rc=$?" >> $OUT/status.txt
done
cat $OUT/status.txt
for f in $OUT/ncu/*.txt; do echo "== $f"; grep -E "dram__bytes|hit_rate|gpu__time|dram__throughput" $f | head -4; done
grep -h "TFLOP/s (" $OUT/v/*.log | cut -c1-330
(cd $OUT && tar czf ncu.tgz ncu v && rm -rf ncu v)
