#!/usr/bin/env bash
# Device call 2: the new probes (a K loop's copy as a burst from every SM, from L2 and HBM; an
# outer product's FFMAs; bank-conflicted ld.shared) beside the model, and Nsight Compute's memory
# counters for steps 05-07 at 4096^3 (where their loads are served from) and the 264-CTA burst.
#   OUT=/tmp/out B=build/carry2 bash docs/results/2026-12-03-source/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
timeout 300 $B/gemmscope_timing_probes --only copy_burst outer lds_rate coresident_datapath l1_fill_v4_32warps \
  --json $OUT/probes.json > $OUT/probes.log 2>&1
echo "probes rc=$?" >> $OUT/status.txt
M='dram__bytes_read.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sector_hit_rate.pct,l1tex__m_xbar2l1tex_read_bytes.sum,sm__cycles_active.avg,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__issue_active.avg.per_cycle_active,l1tex__data_pipe_lsu_wavefronts.sum,smsp__inst_executed.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_active'
for s in simt_blocktile_2d simt_vectorized simt_warptile; do
  timeout --kill-after=10 90 ncu --metrics "$M" --launch-count 1 -k regex:"^$s" \
    $B/gemmscope bench $s --sizes 4096 --reps 0 --no-cublas --no-counted-clock > $OUT/ncu/$s.txt 2>&1
  echo "ncu $s rc=$?" >> $OUT/status.txt
done
timeout --kill-after=10 120 ncu --metrics "$M" -k regex:"timing_copy_burst" --launch-count 3 \
  $B/gemmscope_timing_probes --only copy_burst_264ctas copy_burst_1ctas > $OUT/ncu/copy_burst.txt 2>&1
echo "ncu copy_burst rc=$?" >> $OUT/status.txt
cat $OUT/env.txt $OUT/status.txt
grep -E "^(copy|outer|lds|cores|l1_)" $OUT/probes.log | cut -c1-90
for f in $OUT/ncu/*.txt; do
  echo "== $(basename $f)"
  grep -E "dram__|lts__|l1tex__|sm__cycles|stalled|issue_active|inst_executed|timing_copy|  [a-z_]+ \(" $f | head -40
done
(cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu)
