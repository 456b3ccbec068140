#!/usr/bin/env bash
# Device call 4 (issue #29): what step 13's consumer waits for at each ring depth. Its own
# timeline (the traced CTA's warps, lane 0, %clock64 at every mbarrier wait, TMA issue, wgmma
# commit and wait) with 3 and 4 stages at 4096^3, and 3, 4 and 6 at 8192^3, CTA (0,0) and a CTA
# of the middle of the grid; each with the plain kernel timed beside it.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-model-speed-3/device4.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/r/env.txt 2>&1
for size in 4096 8192; do
  stages="3 4"; [ $size = 8192 ] && stages="3 4 6"
  for s in $stages; do
    for cta in 0,0 13,17; do
      timeout 120 $B/gemmscope timeline hopper_producer_consumer --size $size --param stages=$s --cta $cta --reps 10 \
        --json $OUT/r/tl-$size-s$s-${cta/,/_}.json > $OUT/r/tl-$size-s$s-${cta/,/_}.txt 2>&1
      echo "timeline $size stages=$s cta=$cta rc=$?" >> $OUT/r/status.txt
    done
  done
done
cat $OUT/r/env.txt $OUT/r/status.txt
for f in $OUT/r/tl-*.txt; do echo "== $f"; grep -iE "period|wait|land|lead|TFLOP|clock" $f | head -12; done
rm -f $OUT/r/*.trace.json
(cd $OUT && tar czf r4.tgz r && rm -rf r)
