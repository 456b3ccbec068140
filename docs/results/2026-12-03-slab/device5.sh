#!/usr/bin/env bash
# Device call 5 (#31): where step 19's warps wait, instruction by instruction (Nsight Compute's stall
# samples per SASS line), default against wgmma_in_flight=1, at 4096^3.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-03-slab/device5.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
for v in 0 1; do
  timeout --kill-after=10 120 ncu --section SourceCounters --section WarpStateStats -k regex:"^hopper" --launch-count 1 \
    -o $OUT/r/in-flight-$v $B/gemmscope bench hopper_stmatrix_epilogue --sizes 4096 --reps 0 --param wgmma_in_flight=$v \
    > $OUT/r/ncu-$v.log 2>&1
  echo "ncu in_flight=$v rc=$?" >> $OUT/status.txt
  ncu -i $OUT/r/in-flight-$v.ncu-rep --page source --csv --print-source sass > $OUT/r/source-$v.csv 2>&1
  echo "source in_flight=$v rc=$? lines=$(wc -l < $OUT/r/source-$v.csv)" >> $OUT/status.txt
done
cat $OUT/status.txt
head -3 $OUT/r/source-0.csv | cut -c1-600
rm -f $OUT/r/*.ncu-rep
(cd $OUT && tar czf r5.tgz r && rm -rf r)
