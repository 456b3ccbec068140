#!/usr/bin/env bash
# Device call 1 (issue 29, about 3 minutes): where and when every CTA of a whole timed launch of
# step 13 ran, at 3-6 stages. `timeline --ctas all --capacity 0` records each warp's start, end
# and SM in every CTA (after 20 timed launches of the plain and the instrumented kernel, so the
# card is at its loaded clock); cta-runs.py says how far the CTAs that share a panel drifted
# apart, wave by wave. Then Nsight Compute's HBM bytes of the plain kernel at the card's own
# clock (--clock-control none: the earlier counts were at a locked clock), 3-6 stages.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-grid/device1.sh
B=${B:-build/devcarry}
D=$(dirname "$0")
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r/ncu /tmp/grid
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv; } > $OUT/r/env.txt 2>&1
timeout 180 $B/gemmscope_tests "[gpu][timeline]" > $OUT/r/gpu-timeline-tests.txt 2>&1
echo "[gpu][timeline] tests rc=$?" >> $OUT/r/status.txt
for run in 1 2; do
  for s in 3 4 5 6; do
    timeout 120 $B/gemmscope timeline hopper_producer_consumer --size 8192 --param stages=$s --reps 20 --ctas all \
      --capacity 0 --json /tmp/grid/all8192_s${s}_r$run.json > $OUT/r/all8192_s${s}_r$run.log 2>&1
    echo "all 8192 stages=$s run $run rc=$?" >> $OUT/r/status.txt
  done
done
for s in 3 4; do
  timeout 120 $B/gemmscope timeline hopper_producer_consumer --size 4096 --param stages=$s --reps 20 --ctas all \
    --capacity 0 --json /tmp/grid/all4096_s${s}_r1.json > $OUT/r/all4096_s${s}_r1.log 2>&1
  echo "all 4096 stages=$s rc=$?" >> $OUT/r/status.txt
done
python3 $D/cta-runs.py /tmp/grid/all*_r[12].json > $OUT/r/cta-runs.txt 2>&1
METRICS="dram__bytes_read.sum,lts__t_sector_op_read_hit_rate.pct,gpu__time_duration.sum,sm__cycles_elapsed.avg,\
sm__cycles_elapsed.avg.per_second"
for s in 3 4 5 6; do
  timeout --kill-after=10 120 ncu --clock-control none --metrics "$METRICS" --launch-skip 8 --launch-count 3 \
    -k regex:'^hopper_producer_consumer' \
    $B/gemmscope bench hopper_producer_consumer --sizes 8192 --param stages=$s --reps 12 --no-counted-clock \
    > $OUT/r/ncu/s$s.txt 2>&1
  echo "ncu stages=$s rc=$?" >> $OUT/r/status.txt
done
cat $OUT/r/env.txt $OUT/r/status.txt $OUT/r/cta-runs.txt
tail -3 $OUT/r/gpu-timeline-tests.txt
for f in $OUT/r/all*.log; do echo "== $f"; grep -E "instrumented|CTAs on|a CTA's run|clock" $f | cut -c1-200; done
for f in $OUT/r/ncu/*.txt; do echo "== $f"; grep -E "dram__|hit_rate|gpu__time|sm__cycles" $f | head -12; done
(cd /tmp/grid && tar cJf $OUT/grid-r1.tar.xz all8192_*_r1.json && tar cJf $OUT/grid-r2.tar.xz all8192_*_r2.json \
  && tar cJf $OUT/grid-4096.tar.xz all4096_*.json)
(cd $OUT && tar czf g1.tgz r && rm -rf r)
