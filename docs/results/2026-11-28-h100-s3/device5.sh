#!/usr/bin/env bash
# Device call 5 (about 6 minutes): step 18 with zero_acc=1 (zeroed accumulators, every wgmma
# accumulating) against 0 (scale-d 0 first), 4096^3 and 8192^3, three rounds in alternation,
# cuBLAS in each run; TMA latency under load (probes tma_latency_32k_loaded*); the six Hopper
# timelines recorded again (hopper_parts.cpp's lines moved), as 2026-11-27-h100-timeline's README
# says; every [gpu] test.
#   OUT=/tmp/out bash docs/results/<this folder>/device5.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
W=$(mktemp -d); mkdir -p $W/timelines
for round in 1 2 3; do
  for z in 0 1; do
    timeout 60 $B/gemmscope bench hopper_tma_store --param zero_acc=$z --sizes 4096,8192 --reps 20 \
      --json $W/zero$z-r$round.json >> $OUT/zero-acc.log 2>&1
    echo "zero_acc=$z round $round rc=$?" >> $OUT/status.txt
  done
done
timeout 120 $B/gemmscope_timing_probes --only tma_latency --json $OUT/probes.json > $OUT/probes.log 2>&1
echo "probes rc=$?" >> $OUT/status.txt
for k in hopper_tma_wgmma_64 hopper_tile_128 hopper_producer_consumer hopper_two_consumers hopper_persistent \
         hopper_fewer_arrivals; do
  timeout 60 $B/gemmscope bench $k --sizes 8192 --reps 20 --timeline $W/timelines/$k.timeline.json \
    --timeline-capacity 65536 >> $OUT/timelines.log 2>&1
  echo "timeline $k rc=$?" >> $OUT/status.txt
done
timeout 280 $B/tests/gemmscope_tests "[gpu]" -r console -o $W/gpu-tests.txt > /dev/null 2>&1
echo "gpu-tests rc=$? $(tail -n 2 $W/gpu-tests.txt | tr '\n' ' ')" >> $OUT/status.txt
python3 - $W $OUT/zero-acc.json <<'PY'
import json, sys, glob, os
runs = [{"file": os.path.basename(f), "bench": json.load(open(f))} for f in sorted(glob.glob(os.path.join(sys.argv[1], "zero*.json")))]
json.dump(runs, open(sys.argv[2], "w"), indent=1)
for r in runs:
    for x in r["bench"]["results"]:
        print(r["file"], x["shape"]["m"], round(x["tflops"]["median"], 1), round(x["ratio_vs_cublas"], 4))
PY
rm -f $W/timelines/*.trace.json
tar czf $OUT/timelines.tgz -C $W timelines
cat $OUT/status.txt; cat $OUT/probes.log
grep -E "timeline [+-]" $OUT/timelines.log
