#!/usr/bin/env bash
# Device call 2 (issue 29, about 1 minute): step 13's timeline at 8192^3 for a CTA of a late wave
# (CTA 16,41: the 2641st, wave 21 of 32), rings of 3 and 4 stages, twice each: does a later wave's
# CTA wait at 3 stages where the first wave's did not (call 1)?
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-handoff/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv; } > $OUT/r/env.txt 2>&1
for i in 1 2; do for s in 3 4; do
  timeout 60 $B/gemmscope timeline hopper_producer_consumer --size 8192 --param stages=$s --reps 10 --cta 16,41 \
    --json $OUT/r/late_s${s}_$i.json > $OUT/r/late_s${s}_$i.log 2>&1
  echo "late CTA stages=$s run $i rc=$?" >> $OUT/r/status.txt
  rm -f $OUT/r/late_s${s}_$i.json.trace.json $OUT/r/late_s${s}_$i.trace.json
done; done
cat $OUT/r/env.txt $OUT/r/status.txt
for f in $OUT/r/late_s*.log; do head -3 $f | cut -c1-260; grep -A4 "^median" $f; done
(cd $OUT && tar czf h2.tgz r && rm -rf r)
