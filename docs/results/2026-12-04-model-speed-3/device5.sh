#!/usr/bin/env bash
# Device call 5 (issue #29): step 13 at 4096^3 with 3 and 4 stages, the first wave's timeline
# (one CTA an SM, --ctas wave): how the CTAs' durations spread, beyond the two CTAs of call 4.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-model-speed-3/device5.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/r/env.txt 2>&1
for s in 3 4; do
  timeout 200 $B/gemmscope timeline hopper_producer_consumer --size 4096 --param stages=$s --ctas wave --reps 10 \
    --json $OUT/r/wave-s$s.json > $OUT/r/wave-s$s.txt 2>&1
  echo "wave stages=$s rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/env.txt $OUT/r/status.txt
for s in 3 4; do head -2 $OUT/r/wave-s$s.txt | cut -c1-300; grep -A8 "^median" $OUT/r/wave-s$s.txt; done
rm -f $OUT/r/*.trace.json
(cd $OUT && tar czf r5.tgz r && rm -rf r)
