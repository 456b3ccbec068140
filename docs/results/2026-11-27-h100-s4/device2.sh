#!/usr/bin/env bash
# Device call 2 of the fourth session of 2026-11-27 (about 4 minutes): the probes again, with the
# clock on random bf16 tiles and under FFMA, and the ladder at 2048^3 and 4096x1024x8192.
# Writes into $OUT: timing-probes.{log,json}, bench-sizes.json, rest2.tgz (logs, smi.csv).
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
: "${OUT:?set OUT to the folder the results go to}"
R=$OUT/rest2
mkdir -p $R
S=$R/status.txt
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit --format=csv; $B/gemmscope --version; } > $R/env.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 200 > $R/smi.csv 2>&1 &
SMI=$!
timeout 150 $B/gemmscope_timing_probes --json $OUT/timing-probes.json > $OUT/timing-probes.log 2>&1; echo "probes rc=$?" >> $S
timeout 200 $B/gemmscope bench all --sizes 2048,4096x1024x8192 --reps 5 --json $OUT/bench-sizes.json > $R/bench-sizes.log 2>&1; echo "sizes rc=$?" >> $S
kill $SMI
cat $S
tar czf $OUT/rest2.tgz -C $OUT rest2 && rm -rf $R
grep -E "^(sm_clock|wgmma_n256_2wg)" $OUT/timing-probes.log
