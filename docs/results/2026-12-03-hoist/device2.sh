#!/usr/bin/env bash
# Device call 2: why steps 05 and 07 are slower on the card than the model now predicts: Nsight
# Compute's issue-stall reasons (per issued instruction) for steps 04-07 at 4096^3 and the two
# co-resident probes at two CTAs an SM.
#   OUT=/tmp/out B=build/carry bash docs/results/2026-12-03-hoist/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.per_cycle_active,smsp__warps_active.avg.per_cycle_active,smsp__warps_eligible.avg.per_cycle_active,sm__cycles_active.avg,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts.sum'
for s in simt_blocktile_1d simt_blocktile_2d simt_vectorized simt_warptile; do
  timeout --kill-after=10 120 ncu --metrics "$M" --launch-count 1 -k regex:"^$s" \
    $B/gemmscope bench $s --sizes 4096 --reps 0 --no-cublas --no-counted-clock > $OUT/ncu/$s.txt 2>&1
  echo "ncu $s rc=$?" >> $OUT/status.txt
done
timeout --kill-after=10 150 ncu --metrics "$M" -k regex:"timing_coresident" \
  $B/gemmscope_timing_probes --only coresident_datapath_2 coresident_issue_2 > $OUT/ncu/coresident.txt 2>&1
echo "ncu coresident rc=$?" >> $OUT/status.txt
cat $OUT/env.txt $OUT/status.txt
for f in $OUT/ncu/*.txt; do
  echo "== $(basename $f)"
  grep -E "stalled|issue_active|warps_active|warps_eligible|cycles_active|inst_executed|wavefronts" $f \
    | awk '{v=$NF; if (v+0 >= 0.05 || $1 !~ /stalled/) print $1, v}' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | head -40
done
(cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu)
