#!/usr/bin/env bash
# Call 1 of 2026-12-05 (twenty-seventh session), issue #29: what an Ampere main loop's parts draw.
# Step 10 holds the clock as low as the Hopper steps at half their FLOP rate, more than the clock
# rule's tensor-core and L2 terms give it. New rows (bench/timing_probes_clock.cpp,
# add_fragment_clock_probes): ldmatrix alone, ldmatrix feeding mma.sync, cp.async from L2 alone,
# and the three together, each held at the power limit with its cycles a round or bytes a second;
# beside them, on the same card, the rows the rule's figures come from (mma.sync on random
# registers, wgmma alone, the matched L2 row) and the new kernels' SASS (the loop's LDSM, HMMA and
# LDGSTS counts, no local memory).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-05-power/device1.sh
source "$(dirname "$0")/../../../scripts/device-call.sh"
q() { nvidia-smi --query-gpu=temperature.gpu,power.draw,power.limit,clocks.sm,clocks_throttle_reasons.active --format=csv,noheader; }
echo "before probes: $(q)" >> $OUT/r/status.txt
timeout 400 $B/gemmscope_timing_probes --only sm_clock_under_ldmatrix sm_clock_under_cp_async_l2 \
  sm_clock_under_mma_random_capped sm_clock_under_wgmma_alone_capped sm_clock_under_wgmma_streamed_l2_matched_capped \
  sm_clock_under_wgmma_streamed_l2_matched_gbs --ptx $OUT/r/ptx --json $OUT/r/probes-power.json > $OUT/r/probes-power.log 2>&1
echo "probes rc=$? after: $(q)" >> $OUT/r/status.txt
for f in $OUT/r/ptx/sm_clock_under_{ldmatrix,ldmatrix_mma,cp_async_l2,ldmatrix_mma_cp_async}_capped.ptx; do
  [ -f "$f" ] || continue
  ptxas -arch=sm_90 "$f" -o /tmp/k.cubin && cuobjdump -sass /tmp/k.cubin > /tmp/k.sass
  echo "$(basename $f .ptx): LDSM $(grep -c LDSM /tmp/k.sass) HMMA $(grep -c HMMA /tmp/k.sass) LDGSTS $(grep -c LDGSTS /tmp/k.sass) LDL/STL $(grep -cE 'LDL|STL' /tmp/k.sass)" >> $OUT/r/sass.txt
done
rm -rf $OUT/r/ptx
cat $OUT/r/env.txt $OUT/r/status.txt $OUT/r/sass.txt
grep -E "^sm_clock" $OUT/r/probes-power.log | cut -c1-70
(cd $OUT && tar czf power.tgz r && rm -rf r)
