#!/usr/bin/env bash
# Device call 1 (about 7 minutes): the launch probes (an empty grid timed back to back as bench
# times a GEMM) and 8-CTA sharing over 8 waves; Nsight Compute on steps 11-14 at 8192^3 (step 13
# with 4 and 6 ring stages) and steps 06 and 09 at 4096^3: where the model is furthest off.
#   OUT=/tmp/out bash docs/results/<this folder>/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/env.txt 2>&1
timeout 120 $B/gemmscope_timing_probes --only launch tma_l2_bw_share tma_l2_bw --json $OUT/probes.json > $OUT/probes.log 2>&1
echo "probes rc=$?" >> $OUT/status.txt
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats"
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
prof 14-8192 hopper_two_consumers 8192
prof 09-4096 ampere_cp_async 4096
prof 06-4096 simt_vectorized 4096
cd $OUT && tar czf ncu.tgz ncu-*.txt && rm ncu-*.txt
cat $OUT/status.txt; cat $OUT/probes.log
