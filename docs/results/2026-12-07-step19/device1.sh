#!/usr/bin/env bash
# #31: where step 19's last 3.5% to fast.cu's matmul_12 at 8192^3 goes (2026-12-07-fastcu: 702.3 against
# 677.4 TFLOP/s, bf16 C, one call). About 5 minutes, each part tarred as it ends:
#  1. Nsight Compute, one launch each at 8192^3 with the clocks ncu locks (so cycles compare, not the
#     power limit's clock): matmul_12 (its first launch in our harness), step 19 as it ships (bf16 C),
#     step 19 with staging=slab stages=3 order=hilbert (matmul_12's choices) -> ncu.tgz;
#  2. sustained, bf16 C, each beside cuBLAS in paired rounds (`bench --reps 20 --sustain 2000`): step 19
#     as it ships, order=hilbert, staging=slab stages=3, both; at 8192^3 and 4096^3; then matmul_12 in
#     the same call (build/fastcu/fastcu_harness, ../2026-12-07-fastcu/README.md) -> sweep.tgz.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-07-step19/device1.sh
here="$(dirname "$0")"
source "$here/../../../scripts/device-call.sh"
F=${F:-build/fastcu/fastcu_harness}
cat $OUT/r/env.txt
METRICS="gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__cycles_active.avg,sm__inst_executed.sum,\
lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_shared_st.sum,\
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,gpc__cycles_elapsed.max"
prof() {  # name kernel-regex command...
  local name=$1 re=$2; shift 2
  timeout -k 10 120 ncu --metrics "$METRICS" --section WarpStateStats --section SchedulerStats -k regex:"$re" \
    --launch-count 1 "$@" > $OUT/r/ncu-$name.txt 2>&1
  echo "ncu $name rc=$? at $SECONDS s" >> $OUT/r/status.txt
}
prof matmul12 matmulKernel12 $F 8192 0 12
prof step19 '^hopper' $B/gemmscope bench hopper_stmatrix_epilogue --sizes 8192 --reps 0 --no-cublas --param c_dtype=bf16
prof step19-fastcu-choices '^hopper' $B/gemmscope bench hopper_stmatrix_epilogue --sizes 8192 --reps 0 --no-cublas \
  --param c_dtype=bf16 --param staging=slab --param stages=3 --param order=2
(cd $OUT && tar czf ncu.tgz r)
n=0
for size in 8192 4096; do
  for v in "" "--param order=2" "--param staging=slab --param stages=3" "--param staging=slab --param stages=3 --param order=2"; do
    n=$((n + 1))
    timeout -k 5 60 $B/gemmscope bench hopper_stmatrix_epilogue --param c_dtype=bf16 $v --sizes $size --reps 20 \
      --sustain 2000 --json $OUT/r/ours-$size-$n.json > $OUT/r/ours-$size-$n.log 2>&1
    echo "ours $size [$v] rc=$? at $SECONDS s" >> $OUT/r/status.txt
  done
  timeout -k 5 60 $F $size 2 12 > $OUT/r/fastcu-$size.log 2>&1
  echo "fastcu $size rc=$? at $SECONDS s" >> $OUT/r/status.txt
  (cd $OUT && tar czf sweep.tgz r/ours-* r/fastcu-* r/env.txt r/status.txt)
done
cat $OUT/r/status.txt; grep -h "burst\|paired" $OUT/r/fastcu-*.log
for f in $OUT/r/ncu-*.txt; do echo "== $f"; grep -E "gpu__time|cycles|inst_executed|lts__|dram__|wavefronts|hmma|Warp Cycles|Issued|Eligible" $f | sed 's/  */ /g' | head -24; done
