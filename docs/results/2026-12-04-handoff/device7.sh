#!/usr/bin/env bash
# Device call 7 (issue 29, about 1 minute): how much do step 13's CTAs' paces differ for good?
# Its timeline at 8192^3 for the first wave, one CTA per SM (--ctas wave), 3, 4 and 6 stages: each
# CTA's consumer K period (the per-warp lines of the log; the JSON stays on the device).
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-handoff/device7.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r /tmp/tl
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/r/env.txt 2>&1
for s in 3 4 6; do
  timeout 90 $B/gemmscope timeline hopper_producer_consumer --size 8192 --param stages=$s --reps 5 --ctas wave \
    --json /tmp/tl/wave_s$s.json > $OUT/r/wave_s$s.log 2>&1
  echo "wave stages=$s rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/env.txt $OUT/r/status.txt
for s in 3 4 6; do
  echo "stages $s"; head -1 $OUT/r/wave_s$s.log | cut -c1-200
  grep "consumer" $OUT/r/wave_s$s.log | awk '{for(i=1;i<=NF;i++) if($i=="period") print $(i+1)}' | sort -n | \
    awk '{a[NR]=$1} END {print "consumer warps", NR, "period min", a[1], "p10", a[int(NR*0.1)+1], "median", a[int(NR/2)+1], "p90", a[int(NR*0.9)], "max", a[NR]}'
done
(cd $OUT && tar czf h7.tgz r && rm -rf r)
