#!/usr/bin/env bash
# Device call 1 (issue 29, about 5 minutes): what a TMA box waits for HBM under load, and how far
# the wgmma-paced ring's waves drift at each depth, on the card the H100 description is for.
#  1. tma_latency_32k_loaded* (one 32-KiB box in flight in each of 16..528 CTAs, from L2 and from
#     HBM; with shared boxes), the stamped spread from HBM, and tma_gemm_wave* (step 13's first
#     wave's box pairs, one K block in flight an SM), twice;
#  2. the wgmma-paced ring (step 13's roles and math, no epilogue): the first wave alone at 2-6
#     stages and the whole 8192^3 grid at 3-6, their K periods and waits;
#  3. Nsight Compute's DRAM bytes at the card's own clock (--clock-control none) for the grid rows
#     at 3-6 stages, and for step 13 itself at 8192^3 at 2-6 stages (the check, not the calibration).
#   mkdir -p build/c && tar xJf build/c1/c.txz -C build/c && OUT=$OUT B=build/c bash docs/results/2026-12-07-ring-drift/device1.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
mkdir -p $OUT/r/ncu
for i in 1 2; do
  timeout 90 $B/gemmscope_timing_probes --only tma_latency_32k_loaded tma_gemm_wave tma_latency_32k_spread132_hbm tma_latency_32k tma_latency_1k \
    --json $OUT/r/loaded$i.json > $OUT/r/loaded$i.log 2>&1
  echo "loaded run $i rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
done
timeout 120 $B/gemmscope_timing_probes --only tma_gemm_ring8192_split_wgmma_s --json $OUT/r/wave.json > $OUT/r/wave.log 2>&1
echo "first-wave rows rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
timeout 150 $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid_split_wgmma --json $OUT/r/grid.json > $OUT/r/grid.log 2>&1
echo "grid rows rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
METRICS="dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second"
for s in 3 4 5 6; do
  timeout --kill-after=10 60 ncu --clock-control none --metrics "$METRICS" --launch-count 1 \
    -k regex:"^timing_tma_gemm_ring_64x64x120_s${s}_pace1_split_wgmma\$" \
    $B/gemmscope_timing_probes --only tma_gemm_ring8192_grid_split_wgmma_s${s}_pace1_period > $OUT/r/ncu/ring-s$s.txt 2>&1
  echo "ncu ring stages=$s rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
done
for s in 4 6 5 3 2; do
  timeout --kill-after=10 60 ncu --clock-control none --metrics "$METRICS" --launch-count 1 -k regex:'^hopper_producer_consumer' \
    $B/gemmscope bench hopper_producer_consumer --sizes 8192 --param stages=$s --param bn=128 --reps 0 --no-cublas \
    > $OUT/r/ncu/step13-s$s.txt 2>&1
  echo "ncu step13 stages=$s rc=$? at ${SECONDS} s" >> $OUT/r/status.txt
done
(cd $OUT && tar czf r1.tgz r)
cat $OUT/r/env.txt $OUT/r/status.txt
grep -hE "^tma_(latency|gemm_wave)" $OUT/r/loaded1.log $OUT/r/loaded2.log | cut -c1-60
grep -hE "^tma_gemm_ring8192" $OUT/r/wave.log $OUT/r/grid.log | cut -c1-75
for f in $OUT/r/ncu/*.txt; do echo "== $(basename $f)"; grep -E "dram__|hit_rate|gpu__time|per_second" $f | awk '{print $1, $(NF-1), $NF}'; done
