#!/usr/bin/env bash
# Device call 3: the copy burst by warps and loads a thread (what its round time follows), and
# Nsight Compute's PC sampling of the 132-CTA burst (where its warps wait, instruction by instruction).
#   OUT=/tmp/out B=build/carry2 bash docs/results/2026-12-03-source/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/src
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
timeout 300 $B/gemmscope_timing_probes --only copy_burst outer --json $OUT/probes.json > $OUT/probes.log 2>&1
echo "probes rc=$?" >> $OUT/status.txt
timeout --kill-after=10 120 ncu --section WarpStateStats --section SourceCounters --launch-count 1 \
  -k regex:"timing_copy_burst_4w_8x16_150k" -o $OUT/src/burst132 $B/gemmscope_timing_probes --only copy_burst_132ctas \
  > $OUT/src/burst132.log 2>&1
echo "ncu burst rc=$?" >> $OUT/status.txt
ncu -i $OUT/src/burst132.ncu-rep --page source --csv --print-source sass > $OUT/src/burst132.sass.csv 2>&1
rm -f $OUT/src/*.ncu-rep
cat $OUT/env.txt $OUT/status.txt
grep -E "^(copy|outer)" $OUT/probes.log | cut -c1-100
(cd $OUT && tar czf src.tgz src && rm -rf src)
