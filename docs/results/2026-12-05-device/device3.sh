#!/usr/bin/env bash
# Device call 3 (issue #29): step 13's ring depths, each measured four times at 8192^3 and at 4096^3,
# the order of the depths rotated each round, so that what "ranked as measured" means is known
# against the spread between runs: TFLOP/s, the counted SM clock, the cycles, the ratio to cuBLAS.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-05-device/device3.sh     (about 4 minutes)
source "$(dirname "$0")/../../../scripts/device-call.sh"
mkdir -p $OUT/r/v
orders=("2 3 4 5 6" "6 5 4 3 2" "4 2 6 3 5" "5 3 6 2 4")
for round in 0 1 2 3; do
  for size in 8192 4096; do
    for s in ${orders[$round]}; do
      timeout 60 $B/gemmscope bench hopper_producer_consumer --sizes $size --reps 10 --param stages=$s \
        --json $OUT/r/v/r${round}-${size}-s${s}.json >> $OUT/r/rings.log 2>&1
      echo "round $round size $size stages $s rc=$?" >> $OUT/r/status.txt
    done
  done
done
cat $OUT/r/env.txt; grep -c "rc=0" $OUT/r/status.txt; grep -v "rc=0" $OUT/r/status.txt | head
(cd $OUT/r && tar cJf v.txz v && rm -rf v)
(cd $OUT && tar czf r3.tgz r && rm -rf r)
