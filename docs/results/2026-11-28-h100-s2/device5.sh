#!/usr/bin/env bash
# Device call 5 (about 6 minutes): the Hilbert order with its corner handed from the producer to
# the consumers through the ring (order=2) against the grouped order (order=1), steps 16 and 18 at
# 4096^3, 6144^3, 8192^3 and 3000x5000x4096, two rounds, cuBLAS in each program run; steps 15 and
# 16 recorded again (their files' lines moved); every [gpu] test.
#   OUT=/tmp/out bash docs/results/<this folder>/device5.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
W=$(mktemp -d); mkdir -p $W/timelines
for round in 1 2; do
  for o in 1 2; do
    timeout 60 $B/gemmscope bench hopper_fewer_arrivals hopper_tma_store --param order=$o \
      --sizes 4096,6144,8192,3000x5000x4096 --reps 10 --json $W/order$o-r$round.json >> $OUT/orders.log 2>&1
    echo "order=$o round $round rc=$?" >> $OUT/status.txt
  done
done
for k in hopper_persistent hopper_fewer_arrivals; do
  timeout 45 $B/gemmscope bench $k --sizes 8192 --reps 30 --timeline $W/timelines/$k.timeline.json \
    --timeline-capacity 65536 >> $OUT/overhead.log 2>&1
  echo "timeline $k rc=$?" >> $OUT/status.txt
done
timeout 280 $B/tests/gemmscope_tests "[gpu]" -r console -o $OUT/gpu-tests.txt > /dev/null 2>&1
echo "gpu-tests rc=$?" >> $OUT/status.txt
python3 - $W $OUT/orders.json <<'PY'
import json, sys, glob, os
runs = [{"file": os.path.basename(f), "bench": json.load(open(f))} for f in sorted(glob.glob(os.path.join(sys.argv[1], "order*.json")))]
json.dump(runs, open(sys.argv[2], "w"), indent=1)
PY
tar czf $OUT/timelines.tgz -C $W timelines
cat $OUT/status.txt
grep -E "TFLOP/s" $OUT/orders.log | head -40
grep -E "timeline [+-]" $OUT/overhead.log
tail -n 3 $OUT/gpu-tests.txt
