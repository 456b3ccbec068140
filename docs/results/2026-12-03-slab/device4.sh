#!/usr/bin/env bash
# Device call 4 (#31, #29): why does wgmma_in_flight=1 lose 1.5 points where the model sees nothing?
# Nsight Compute on step 19 at 4096^3, default against wgmma_in_flight=1 (and staging=slab): the
# tensor pipe's activity, L2 and HBM, and the warps' stall reasons.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-03-slab/device4.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
METRICS="gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,\
lts__t_sector_hit_rate.pct,dram__bytes_read.sum,sm__warps_active.avg.per_cycle_active"
prof() {  # name params...
  local name=$1; shift
  timeout --kill-after=10 90 ncu --metrics "$METRICS" --section WarpStateStats -k regex:"^hopper" --launch-count 1 \
    $B/gemmscope bench hopper_stmatrix_epilogue --sizes 4096 --reps 0 "$@" > $OUT/r/ncu-$name.txt 2>&1
  echo "ncu $name rc=$?" >> $OUT/status.txt
}
prof default
prof in-flight --param wgmma_in_flight=1
prof slab --param staging=slab --param stages=3
cat $OUT/status.txt
for f in $OUT/r/ncu-*.txt; do echo "== $f"; grep -E "gpu__time|sm__cycles_elapsed|gmma|hit_rate|dram__bytes|warps_active|Stall|Warp Cycles|Issued Warp" $f | sed 's/  */ /g' | head -20; done
(cd $OUT && tar czf r4.tgz r && rm -rf r)
