#!/usr/bin/env bash
# Device call 1 (about 5 minutes): where the SIMT steps' cycles go on the card, and where the
# Hopper steps' cycles go at 4096^3 (the two places #29's model is furthest off).
#  0. the L1 probes, with the new broadcast rows (l1_loads_stride0*);
#  1. Nsight Compute on steps 01, 04, 06, 07 at 4096^3 and 09 at 8192^3: the warps' stall reasons
#     per issue, issue activity, the L1's units (breakdown of its throughput), requests, sectors,
#     wavefronts and hit rate;
#     and the SASS of steps 01, 04, 06, 07 at 4096^3 (in ncu.tgz, sass/);
#  2. bench --timeline (the kernel's own %clock64 records) of steps 01, 04, 06 at 4096^3 and
#     12, 13, 18 at 4096^3 (CTA 0,0 of the first wave and 2,25 of a later one) and 12 at 8192^3,
#     to compare with the model's timeline of the same CTA (`gemmscope timeline --import F
#     --compare-model`, on any machine).
#   OUT=/tmp/out B=build/carry bash docs/results/2026-12-02-stalls/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu $OUT/tl
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
METRICS="breakdown:l1tex__throughput.avg.pct_of_peak_sustained_active,\
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,l1tex__data_pipe_lsu_wavefronts.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__lsuin_requests.sum,l1tex__m_xbar2l1tex_read_sectors.sum,\
smsp__inst_executed.sum,smsp__inst_executed_pipe_lsu.sum,smsp__issue_active.avg.per_cycle_active,\
sm__cycles_elapsed.avg,sm__cycles_active.avg,smsp__warps_active.avg.per_cycle_active,\
smsp__inst_executed_op_global_ld.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,\
sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"
prof() {  # name kernel size
  timeout --kill-after=10 90 ncu --section WarpStateStats --section SchedulerStats --metrics "$METRICS" --launch-count 1 \
    -k regex:"^$2" $B/gemmscope bench $2 --sizes $3 --reps 0 --no-cublas --no-counted-clock > $OUT/ncu/$1.txt 2>&1
  echo "ncu $1 rc=$?" >> $OUT/status.txt
}
timeout 90 $B/gemmscope_timing_probes --only l1_loads l1_shared l1_latency --json $OUT/probes-l1.json > $OUT/probes-l1.log 2>&1
echo "probes rc=$?" >> $OUT/status.txt
mkdir -p $OUT/ncu/sass
for k in simt_naive simt_blocktile_1d simt_vectorized simt_warptile; do
  timeout 30 $B/gemmscope sass $k --m 4096 --n 4096 --k 4096 > $OUT/ncu/sass/$k.txt 2>&1
done
prof step01-4096 simt_naive 4096
prof step04-4096 simt_blocktile_1d 4096
prof step06-4096 simt_vectorized 4096
prof step07-4096 simt_warptile 4096
prof step09-8192 ampere_cp_async 8192
tl() {  # name kernel size [more bench options]
  local name=$1 k=$2 s=$3; shift 3
  timeout --kill-after=10 60 $B/gemmscope bench $k --sizes $s --reps 3 --no-counted-clock --timeline $OUT/tl/$name.timeline.json \
    --timeline-trace /dev/null "$@" > $OUT/tl/$name.log 2>&1
  echo "timeline $name rc=$?" >> $OUT/status.txt
}
tl step01-4096 simt_naive 4096
tl step04-4096 simt_blocktile_1d 4096
tl step06-4096 simt_vectorized 4096
tl step12-4096 hopper_tile_128 4096
tl step12-4096-cta2-25 hopper_tile_128 4096 --timeline-cta 2,25
tl step12-8192 hopper_tile_128 8192
tl step13-4096 hopper_producer_consumer 4096
tl step13-4096-cta2-25 hopper_producer_consumer 4096 --timeline-cta 2,25
tl step18-4096 hopper_tma_store 4096
cat $OUT/status.txt
grep -E '^l1_' $OUT/probes-l1.log | cut -c1-120
for f in $OUT/ncu/*.txt; do echo "== $f"; grep -E "Stall|stalled|Issue|issue_active|l1tex__throughput|lsuin|wavefronts|hit_rate" $f | head -40; done | cut -c1-150 | head -150
(cd $OUT && tar czf ncu.tgz ncu && tar czf tl.tgz tl && rm -rf ncu tl)
