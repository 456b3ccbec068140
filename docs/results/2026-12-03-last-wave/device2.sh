#!/usr/bin/env bash
# Device call 2 (issue #29): why step 08 (ampere_mma_global) is predicted 22% fast at 4096x1024x8192
# and 9% at 2048^3 but right at 4096^3 and 8192^3. Nsight Compute's L1/L2/HBM counters and stall
# shares at the four shapes, and bench at shapes that part the partial wave from K and from A's
# footprint: one wave (3136 rows: 49 tile rows x 32 = 1568 CTAs <= 132 x 12) against 1.29 waves
# (4096 rows), at K 2048 and 8192.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-03-last-wave/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv; } > $OUT/env.txt 2>&1
timeout 200 $B/gemmscope bench ampere_mma_global --sizes 2048,3136x1024x2048,4096x1024x2048,3136x1024x8192,4096x1024x8192,4096,8192 --reps 10 --json $OUT/bench-step08.json > $OUT/bench-step08.log 2>&1
echo "bench rc=$?" >> $OUT/status.txt
METRICS="gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active,\
l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,\
l1tex__throughput.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts.sum,\
lts__t_sector_op_read_hit_rate.pct,lts__t_sectors_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,\
dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_tex_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,\
smsp__inst_executed.sum,smsp__average_warp_latency_per_inst_issued.ratio,gpc__cycles_elapsed.avg.per_second"
for s in 2048x2048x2048 4096x1024x8192 3136x1024x8192 4096x4096x4096; do
  timeout --kill-after=10 90 ncu --metrics "$METRICS" -k regex:'^ampere_mma_global' --launch-count 1 \
    $B/gemmscope bench ampere_mma_global --sizes $s --reps 0 > $OUT/ncu/step08-$s.txt 2>&1
  echo "ncu $s rc=$?" >> $OUT/status.txt
done
cat $OUT/env.txt $OUT/status.txt
grep -E "^ampere" $OUT/bench-step08.log | cut -c1-140
for f in $OUT/ncu/*.txt; do echo "== $f"; grep -E "gpu__time|hit_rate|dram__bytes|long_scoreboard|lg_throttle|warps_active|sectors_pipe|lsu_wavefronts|l1tex__throughput" $f | sed 's/  */ /g'; done
(cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu)
# Issue #31: step 19 with each consumer warpgroup's own epilogue barrier (store_barrier=warpgroup)
# against both warpgroups meeting at every chunk (the default), alternated twice, bf16 C; once f32 C.
for r in 1 2; do
  for sb in consumers warpgroup; do
    timeout 100 $B/gemmscope bench hopper_stmatrix_epilogue --sizes 4096,8192 --reps 20 --param store_barrier=$sb \
      --json $OUT/step19-$sb-r$r.json > $OUT/step19-$sb-r$r.log 2>&1
    echo "step19 $sb round $r rc=$?" >> $OUT/status.txt
  done
done
for sb in consumers warpgroup; do
  timeout 100 $B/gemmscope bench hopper_stmatrix_epilogue --sizes 4096,8192 --reps 20 --param store_barrier=$sb \
    --param c_dtype=f32 --json $OUT/step19-f32-$sb.json > $OUT/step19-f32-$sb.log 2>&1
  echo "step19 f32 $sb rc=$?" >> $OUT/status.txt
done
grep -hE "^hopper" $OUT/step19-*.log | cut -c1-150
