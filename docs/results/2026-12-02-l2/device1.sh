#!/usr/bin/env bash
# Device call 1 (about 4 minutes): why step 11 moves fewer bytes through L2 than the share probes.
#  1. timing probes: the TMA L2 rows, with the new footprint sweep (how much of L2 a footprint every
#     SM reads may take) and step 11's concurrency without its wgmmas (8-KiB boxes, 8 CTAs an SM);
#  2. Nsight Compute on step 11 (4096^3, 8192^3), step 16 (4096^3) and two probes: the L2's sector
#     look-ups against the bytes the SMs receive, hit rates, and which L2 metrics this ncu knows.
#   OUT=/tmp/out B=build/carry bash docs/results/2026-12-02-l2/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
timeout 200 $B/gemmscope_timing_probes --only tma_l2_bw tma_latency_32k_loaded tma_hbm_bw l2_read_bw hbm_read_bw \
  --json $OUT/timing-probes.json > $OUT/timing-probes.log 2>&1
echo "probes rc=$?" >> $OUT/status.txt
ncu --query-metrics --chip gh100 > $OUT/ncu/query-metrics.txt 2>&1
grep -iE "^(lts|lrc|ltc|fbpa|dram)__" $OUT/ncu/query-metrics.txt | cut -c1-160 > $OUT/ncu/l2-metric-names.txt
METRICS="lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,\
lts__t_sector_op_read_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.sum,\
lts__t_sectors_op_read.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcnode_gpc.sum,\
lts__d_sectors_fill_sysmem.sum,lts__d_sectors_fill_device.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_lookup_miss.sum,\
dram__bytes_read.sum,dram__bytes_write.sum,sm__cycles_elapsed.avg,gpc__cycles_elapsed.avg.per_second,\
lts__cycles_elapsed.avg.per_second,lts__cycles_elapsed.avg,l1tex__m_xbar2l1tex_read_bytes.sum,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
prof() {  # name command...
  local name=$1; shift
  timeout --kill-after=10 80 ncu --metrics "$METRICS" --launch-count 1 "$@" > $OUT/ncu/$name.txt 2>&1
  echo "ncu $name rc=$?" >> $OUT/status.txt
}
prof step11-4096 -k regex:'^hopper_tma_wgmma_64' $B/gemmscope bench hopper_tma_wgmma_64 --sizes 4096 --reps 0
prof step11-8192 -k regex:'^hopper_tma_wgmma_64' $B/gemmscope bench hopper_tma_wgmma_64 --sizes 8192 --reps 0
prof step16-4096 -k regex:'^hopper_fewer_arrivals' $B/gemmscope bench hopper_fewer_arrivals --sizes 4096 --reps 0
prof probe-share1 -k regex:'^timing_tma' $B/gemmscope_timing_probes --only tma_l2_bw_share1
prof probe-share8 -k regex:'^timing_tma' $B/gemmscope_timing_probes --only tma_l2_bw_share8
prof probe-8k-share64 -k regex:'^timing_tma' $B/gemmscope_timing_probes --only tma_l2_bw_8k_x8_share64
prof probe-footprint40 -k regex:'^timing_tma' $B/gemmscope_timing_probes --only tma_l2_bw_footprint40m
cat $OUT/status.txt
grep -E "^(tma_|l2_|hbm_)" $OUT/timing-probes.log | cut -c1-70
(cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu)
