#!/usr/bin/env bash
# Device call C of the second session of 2026-11-27: the timeline pass with its branch over
# the recording for CTAs that record nothing (engine/ir/instrument.cpp). Overhead of steps
# 11-16 at 8192^3 (20 timed launches each), and C identical with and without the timeline for
# every step the H100 runs at its example shape; the recordings are not kept.
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p $OUT/tl
for id in hopper_tma_wgmma_64 hopper_tile_128 hopper_producer_consumer hopper_two_consumers hopper_persistent hopper_fewer_arrivals; do
  timeout 60 $B/gemmscope bench $id --sizes 8192 --reps 20 --timeline $OUT/tl/$id.json --timeline-capacity 65536 >> $OUT/overhead-c.log 2>&1
  echo "timeline $id rc=$?" >> $OUT/status-c.txt
done
for id in $($B/gemmscope list --json | python3 -c 'import json,sys; print(" ".join(k["id"] for k in json.load(sys.stdin)))'); do
  timeout 60 $B/gemmscope bench $id --sizes example --reps 3 --timeline $OUT/tl/$id.example.json >> $OUT/identical-c.log 2>&1
  echo "example $id rc=$?" >> $OUT/status-c.txt
done
rm -rf $OUT/tl
cat $OUT/status-c.txt; grep -E "timeline [-+]|C identical|DIFFER|lost" $OUT/overhead-c.log $OUT/identical-c.log | cut -c1-220
