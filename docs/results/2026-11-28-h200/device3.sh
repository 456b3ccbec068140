#!/usr/bin/env bash
# Device call 3 (about 4 minutes): Nsight Compute on steps 11-13 at 8192^3 on the H200 (step 13
# with 4 and 6 ring stages): the HBM bytes the model counts against the card's.
#   OUT=/tmp/out bash docs/results/<this folder>/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats"
prof() {  # name id size [param]
  local name=$1 id=$2 size=$3; shift 3
  timeout --kill-after=10 90 ncu $SECTIONS --launch-count 1 -k regex:"^$id" \
    $B/gemmscope bench $id --sizes $size --reps 0 --no-cublas --in-process "$@" > $OUT/ncu-$name.txt 2>&1
  echo "ncu $name rc=$?" >> $OUT/status.txt
}
prof 11-8192 hopper_tma_wgmma_64 8192
prof 12-8192 hopper_tile_128 8192
prof 13s4-8192 hopper_producer_consumer 8192 --param stages=4
prof 13s6-8192 hopper_producer_consumer 8192 --param stages=6
cat $OUT/status.txt
grep -h -E "DRAM Throughput|Memory Throughput|L2 Hit Rate|dram__bytes|Duration|SM Frequency" $OUT/ncu-*.txt | head -40
