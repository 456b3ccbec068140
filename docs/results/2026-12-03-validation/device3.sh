#!/usr/bin/env bash
# Device call 3 (about 3 minutes): why step 11's one wave (2048^3, 4096x1024x8192) moves about
# 14 TB/s through L2 where the share probes reach 20: the new probes tma_gemm* (a GEMM's copies in
# a GEMM's geometry, with 0-4 rounds of tensor work between them, and with every CTA its own
# boxes), twice; Nsight Compute's L2 look-ups against the bytes delivered for step 11 at 2048^3
# and for the probes with 0 and 1 rounds of tensor work.
#   OUT=/tmp/out B=build/carry2 bash docs/results/2026-12-03-validation/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
for i in 1 2; do
  timeout 150 $B/gemmscope_timing_probes --only tma_gemm tma_l2_bw_8k_x8_share64 --json $OUT/probes$i.json > $OUT/probes$i.log 2>&1
  echo "probes $i rc=$?" >> $OUT/status.txt
done
METRICS="lts__t_sectors_op_read.sum,lts__t_sector_op_read_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,\
l1tex__m_xbar2l1tex_read_bytes.sum,dram__bytes_read.sum,sm__cycles_elapsed.avg,gpc__cycles_elapsed.avg.per_second,\
lts__cycles_elapsed.avg.per_second,gpu__time_duration.sum"
prof() {  # name command...
  local name=$1; shift
  timeout --kill-after=10 60 ncu --metrics "$METRICS" --launch-count 1 "$@" > $OUT/ncu/$name.txt 2>&1
  echo "ncu $name rc=$?" >> $OUT/status.txt
}
prof step11-2048 -k regex:'^hopper_tma_wgmma_64' $B/gemmscope bench hopper_tma_wgmma_64 --sizes 2048 --reps 0
prof probe-gemm32-mma0 -k regex:'^timing_tma' $B/gemmscope_timing_probes --only tma_gemm32_mma0
prof probe-gemm32-mma1 -k regex:'^timing_tma' $B/gemmscope_timing_probes --only tma_gemm32_mma1
prof probe-gemm32-mma1-own -k regex:'^timing_tma' $B/gemmscope_timing_probes --only tma_gemm32_mma1_own
cat $OUT/status.txt
grep -hE "^(tma_)" $OUT/probes1.log $OUT/probes2.log | cut -c1-60
for f in $OUT/ncu/*.txt; do echo "== $f"; grep -E "lts__t_sectors_op_read.sum|xbar2l1tex|lts__throughput|gpu__time|dram__bytes_read" $f | head -6; done
(cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu)
