#!/usr/bin/env bash
# Device call 1 of the timing-model work: the timing probes, then every runnable ladder step at
# 4096^3 and 8192^3 (measured; the model is not run here), with the clock sampled meanwhile.
B=build/carry-timing
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; $B/gemmscope --version; } > $OUT/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 100 > $OUT/smi.csv 2>&1 &
SMI=$!
timeout 170 $B/gemmscope_timing_probes --json $OUT/probes.json > $OUT/probes.log 2>&1
echo "probes rc=$?" >> $OUT/probes.log
timeout 230 $B/gemmscope bench all --sizes 4096,8192 --reps 10 --warmup 3 --json $OUT/ladder.json > $OUT/ladder.log 2>&1
echo "ladder rc=$?" >> $OUT/ladder.log
kill $SMI
cat $OUT/env.txt $OUT/probes.log; grep -v "^$" $OUT/ladder.log | tail -45
