#!/usr/bin/env bash
# Call 2 of 2026-12-05 (twenty-fourth session), issue #29. Call 1 found every capped tensor-core step
# at 1285-1429 MHz by the SMs' own count, where the H200's machine description says 1596 (operands
# from L2) to 1281 (from HBM), from the 2026-12-02 probes on another day's card. Here, on today's
# card and in one call: the clock probes held at the power limit (`gemmscope_timing_probes --only ...`, with
# nvidia-smi's temperature and power before and after), step 19 sustained right after them, then
# the ladder under the power limit at the two other target sizes (2048^3, 4096x1024x8192; on an
# H100, at 4096^3 and 8192^3 instead, which no H100 has run under the limit yet).
#   OUT=/tmp/out B=build/c [LADDER_S=60] bash docs/results/2026-12-05-sustained/device2.sh   (LADDER_S: the ladder's seconds)
source "$(dirname "$0")/../../../scripts/device-call.sh"
q() { nvidia-smi --query-gpu=temperature.gpu,power.draw,power.limit,clocks.sm,clocks_throttle_reasons.active --format=csv,noheader; }
echo "before probes: $(q)" >> $OUT/r/status.txt
timeout 240 $B/gemmscope_timing_probes --only sm_clock_under_wgmma_streamed sm_clock_under_tma sm_clock_under_wgmma_alone \
  sm_clock_under_wgmma_l2_4_capped sm_clock_under_wgmma_hbm_capped sm_clock_under_mma sm_clock_under_ffma --json $OUT/r/probes-clock.json > $OUT/r/probes-clock.log 2>&1
echo "probes rc=$? after: $(q)" >> $OUT/r/status.txt
timeout 60 $B/gemmscope bench hopper_stmatrix_epilogue --sizes 4096 --reps 50 --sustain 2000 \
  --json $OUT/r/step19-after-probes.json >> $OUT/r/bench.log 2>&1
echo "step 19 rc=$? after: $(q)" >> $OUT/r/status.txt
sizes="2048 4096x1024x8192"  # the H200's 4096^3 and 8192^3 are call 1's; an H100 has none yet
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H100 && sizes="4096 8192"
sustained_ladder "$sizes" ${LADDER_S:-60} $OUT/r/bench-sustained-2.json
echo "end: $(q)" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
grep -E "^sm_clock" $OUT/r/probes-clock.log | cut -c1-50
grep -E "^(simt|ampere|hopper)" $OUT/r/bench.log | cut -c1-110 | head -45
(cd $OUT && tar czf sustained2.tgz r && rm -rf r)
