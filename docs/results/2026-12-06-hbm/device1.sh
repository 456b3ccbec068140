#!/usr/bin/env bash
# #29: what the ladder reads from HBM when several CTAs share an SM over many waves, on this card
# (Nsight Compute, one launch each; ncu locks the clock): steps 09-13 at the shapes where the model
# is furthest off, step 13's ring depths at 8192^3, and the L2 footprint sweep (how much of a working
# set every SM reads L2 keeps from one sweep to the next: l2_kept_bytes, never probed on an H100).
# Then step 13 at 4 and 6 stages benched again (sustained, alone).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-hbm/device1.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
cat $OUT/r/env.txt
mkdir -p $OUT/r/ncu
METRICS="dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct,lts__t_sectors_op_read.sum,gpu__time_duration.sum,\
sm__cycles_elapsed.avg,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,\
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_write.sum"
run_ncu() {  # name kernel-regex bench-args...
  local name=$1 rx=$2; shift 2
  timeout --kill-after=10 90 ncu --metrics "$METRICS" --launch-count 1 -k regex:"$rx" \
    $B/gemmscope bench "$@" --reps 0 --no-cublas > $OUT/r/ncu/$name.txt 2>&1
  echo "ncu $name rc=$?" >> $OUT/r/status.txt
}
for s in 3 4 5 6 2; do run_ncu step13-8192-s$s '^hopper_producer_consumer' hopper_producer_consumer --sizes 8192 --param stages=$s; done
for size in 8192 4096; do run_ncu step09-$size '^ampere_cp_async' ampere_cp_async --sizes $size; done
for size in 8192 2048 4096x1024x8192; do run_ncu step11-$size '^hopper_tma_wgmma_64' hopper_tma_wgmma_64 --sizes $size; done
run_ncu step10-8192 '^ampere_ldmatrix' ampere_ldmatrix --sizes 8192
run_ncu step12-8192 '^hopper_tile_128' hopper_tile_128 --sizes 8192
run_ncu step14-8192 '^hopper_two_consumers' hopper_two_consumers --sizes 8192
for mib in 24 32 40 56 80; do
  timeout --kill-after=10 60 ncu --metrics dram__bytes_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum \
    --launch-count 1 -k regex:'^timing_tma' $B/gemmscope_timing_probes --only tma_l2_bw_footprint${mib}m > $OUT/r/ncu/footprint$mib.txt 2>&1
  echo "ncu footprint ${mib} MiB rc=$?" >> $OUT/r/status.txt
done
for s in 6 4; do
  timeout 40 $B/gemmscope bench hopper_producer_consumer --sizes 8192 --reps 20 --sustain 2000 --no-cublas --param stages=$s \
    --json $OUT/r/bench-s$s.json >> $OUT/r/bench.log 2>&1
  echo "bench stages=$s rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/status.txt
for f in $OUT/r/ncu/*.txt; do echo "== $(basename $f .txt) $(grep -E 'dram__bytes_read|hit_rate|gpu__time|sm__cycles|tensor_op|op_read.sum|xbar2l1tex|dram__throughput|lts__throughput' $f | awk '{printf "%s=%s%s ", $1, $NF, $(NF-1)}')"; done
grep -E "TFLOP|hopper_producer" $OUT/r/bench.log | cut -c1-140 | tail -4
(cd $OUT && tar czf ncu.tgz r)
