#!/usr/bin/env bash
# Device call 2 (issue 29, about 2 minutes): call 1 again with the timeline pass's capacity 0
# writing no record sites (each warp's start and end stamps only), so that the recorded launch runs
# at the plain kernel's pace (call 1's recording copy kept every site's counter: +5 to +19%).
# Step 13 at 8192^3, 3-6 stages, twice; 4096^3, 3 and 4 stages; step 14 at 8192^3 beside them.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-grid/device2.sh
B=${B:-build/devcarry}
D=$(dirname "$0")
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r /tmp/grid
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv; } > $OUT/r/env.txt 2>&1
rec() {  # name kernel size [--param ...]
  local name=$1 id=$2 size=$3; shift 3
  timeout 120 $B/gemmscope timeline $id --size $size "$@" --reps 20 --ctas all --capacity 0 \
    --json /tmp/grid/$name.json > $OUT/r/$name.log 2>&1
  echo "$name rc=$?" >> $OUT/r/status.txt
}
for run in 1 2; do
  for s in 3 4 5 6; do rec all8192_s${s}_r$run hopper_producer_consumer 8192 --param stages=$s; done
done
for s in 3 4; do rec all4096_s${s}_r1 hopper_producer_consumer 4096 --param stages=$s; done
rec step14_8192_r1 hopper_two_consumers 8192
python3 $D/cta-runs.py /tmp/grid/all*_r[12].json /tmp/grid/step14_8192_r1.json > $OUT/r/cta-runs.txt 2>&1
cat $OUT/r/env.txt $OUT/r/status.txt $OUT/r/cta-runs.txt
for f in $OUT/r/*.log; do echo "== $f"; grep -E "instrumented|a CTA's run" $f | cut -c1-160; done
(cd /tmp/grid && tar cJf $OUT/grid-r1.tar.xz all8192_*_r1.json && tar cJf $OUT/grid-r2.tar.xz all8192_*_r2.json \
  && tar cJf $OUT/grid-other.tar.xz all4096_*.json step14_*.json)
(cd $OUT && tar czf g2.tgz r && rm -rf r)
