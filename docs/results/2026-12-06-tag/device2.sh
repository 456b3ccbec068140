#!/usr/bin/env bash
# #29: what the deeper rings and step 09 read from HBM at 8192^3 on this card (call 1 on an H100: step
# 13 at 6 stages ran at 0.80 of 4 stages, per counted cycle as slow as 2 stages; step 09 10% slower a
# cycle than on the H200). Nsight Compute, one launch each (ncu locks the clock): step 13 at 8192^3
# with STAGES (default 4 6) stages, step 09 at SIZES09 (default 8192); then step 13 at BENCH_STAGES (default 6)
# benched again (sustained, alone). Kept short: the session's device time was nearly spent.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-tag/device2.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
mkdir -p $OUT/r/ncu
METRICS="dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,\
dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__cycles_elapsed.avg,\
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_write.sum"
for s in ${STAGES:-4 6}; do
  timeout --kill-after=10 60 ncu --metrics "$METRICS" --launch-count 1 -k regex:'^hopper_producer_consumer' \
    $B/gemmscope bench hopper_producer_consumer --sizes 8192 --reps 0 --no-cublas --param stages=$s > $OUT/r/ncu/step13-s$s.txt 2>&1
  echo "ncu step13 stages=$s rc=$?" >> $OUT/r/status.txt
done
for size in ${SIZES09:-8192}; do
  timeout --kill-after=10 60 ncu --metrics "$METRICS" --launch-count 1 -k regex:'^ampere_cp_async' \
    $B/gemmscope bench ampere_cp_async --sizes $size --reps 0 --no-cublas > $OUT/r/ncu/step09-$size.txt 2>&1
  echo "ncu step09 $size rc=$?" >> $OUT/r/status.txt
done
for s in ${BENCH_STAGES:-6}; do
  timeout 40 $B/gemmscope bench hopper_producer_consumer --sizes 8192 --reps 20 --sustain 2000 --no-cublas --param stages=$s \
    --json $OUT/r/bench-s$s.json >> $OUT/r/bench.log 2>&1
  echo "bench stages=$s rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/status.txt
for f in $OUT/r/ncu/*.txt; do echo "== $(basename $f)"; grep -E "dram__|hit_rate|gpu__time|lts__|sm__cycles|tensor_op" $f | awk '{print $1, $(NF)}'; done
grep -E "TFLOP|hopper_producer" $OUT/r/bench.log | cut -c1-120 | tail -4
(cd $OUT && tar czf ncu.tgz r)
