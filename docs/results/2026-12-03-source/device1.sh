#!/usr/bin/env bash
# Device call 1: where, instruction by instruction, the card's SIMT warps wait (Nsight Compute's
# PC sampling, per SASS instruction) for the kernels the model is furthest off on: steps 05 and 07
# at 4096^3, the co-resident data-path probe alone (1 CTA an SM), step 09 at 8192^3, step 08 and
# step 11 at 2048^3; and the SASS of steps 05, 07, 09.
#   OUT=/tmp/out B=build/carry2 bash docs/results/2026-12-03-source/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/src $OUT/sass
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
ncu --version >> $OUT/env.txt 2>&1
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,sm__cycles_active.avg,smsp__inst_executed.sum'
src() {  # name kernel-regex command...
  local name=$1 k=$2; shift 2
  timeout --kill-after=10 120 ncu --section WarpStateStats --section SourceCounters --metrics "$M" --launch-count 1 \
    -k regex:"$k" -o $OUT/src/$name "$@" > $OUT/src/$name.log 2>&1
  echo "ncu $name rc=$?" >> $OUT/status.txt
  ncu -i $OUT/src/$name.ncu-rep --page source --csv --print-source sass > $OUT/src/$name.sass.csv 2>&1 ||
    ncu -i $OUT/src/$name.ncu-rep --page source --csv > $OUT/src/$name.sass.csv 2>&1
  ncu -i $OUT/src/$name.ncu-rep --page details > $OUT/src/$name.details.txt 2>&1
  rm -f $OUT/src/$name.ncu-rep
}
src step05-4096 '^simt_blocktile_2d' $B/gemmscope bench simt_blocktile_2d --sizes 4096 --reps 0 --no-cublas --no-counted-clock
src step07-4096 '^simt_warptile' $B/gemmscope bench simt_warptile --sizes 4096 --reps 0 --no-cublas --no-counted-clock
src datapath-1cta 'timing_coresident' $B/gemmscope_timing_probes --only coresident_datapath_1
src step09-8192 '^ampere_cp_async' $B/gemmscope bench ampere_cp_async --sizes 8192 --reps 0 --no-cublas --no-counted-clock
src step08-2048 '^ampere_mma_global' $B/gemmscope bench ampere_mma_global --sizes 2048 --reps 0 --no-cublas --no-counted-clock
src step11-2048 '^hopper_tma_wgmma_64' $B/gemmscope bench hopper_tma_wgmma_64 --sizes 2048 --reps 0 --no-cublas --no-counted-clock
for k in simt_blocktile_2d simt_warptile ampere_cp_async; do
  timeout 30 $B/gemmscope sass $k --m 4096 --n 4096 --k 4096 > $OUT/sass/$k.txt 2>&1
done
cat $OUT/env.txt $OUT/status.txt
for f in $OUT/src/*.sass.csv; do echo "== $f $(wc -l < $f) lines"; head -c 600 $f; echo; done
(cd $OUT && tar czf src.tgz src sass && rm -rf src sass)
