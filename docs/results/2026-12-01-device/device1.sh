#!/usr/bin/env bash
# Device call 1 (about 5 minutes): Nsight Compute on the SIMT steps, step 09 and steps 11, 12, 16
# at 4096^3: which unit binds each, the stall reasons, the L1/shared wavefronts and L2 sectors,
# against which the timing model's parts are read (not fitted: the constants stay the probes').
#   OUT=/tmp/out bash docs/results/<this folder>/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
  --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats"
METRICS="regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,\
l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,\
l1tex__throughput.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed,\
lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,\
dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum,\
smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,smsp__inst_executed_pipe_lsu.sum,\
sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,gpc__cycles_elapsed.avg.per_second"
prof() {  # name id size [args]
  local name=$1 id=$2 size=$3; shift 3
  timeout --kill-after=10 60 ncu $SECTIONS --metrics "$METRICS" --launch-count 1 -k regex:"^$id" \
    $B/gemmscope bench $id --sizes $size --reps 0 --no-cublas --in-process "$@" > $OUT/ncu/$name.txt 2>&1
  echo "ncu $name rc=$?" >> $OUT/status.txt
}
for id in simt_naive simt_coalesced simt_smem_tiling simt_blocktile_1d simt_blocktile_2d simt_vectorized \
          simt_warptile ampere_mma_global ampere_cp_async ampere_ldmatrix hopper_tma_wgmma_64 hopper_tile_128 \
          hopper_fewer_arrivals; do
  prof $id-4096 $id 4096
done
prof hopper_tma_wgmma_64-8192 hopper_tma_wgmma_64 8192
prof hopper_fewer_arrivals-8192 hopper_fewer_arrivals 8192
cat $OUT/status.txt
(cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu)
