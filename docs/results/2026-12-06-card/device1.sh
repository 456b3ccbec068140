#!/usr/bin/env bash
# Call 1 of 2026-12-06 (twenty-eighth session), each part tarred as it ends (a call cut at its time
# limit keeps the parts before the cut):
#  1. #29, what an Ampere main loop's parts draw at the power limit (../2026-12-05-power/device1.sh,
#     about 2 minutes) -> power.tgz;
#  2. #29, step 09's copies beside ld.shared of 2 and 4 wavefronts (cp_async_fill_rows32_*_c2, _c4) with
#     the conflict-free rows they compare with, twice (one CTA each: seconds) -> fill.tgz;
#  3. #32, the model after this session's speed work against the GPU, bit for bit: every kernel and
#     each of its mistakes at its example shape (about 2 minutes) -> compare.tgz;
#  4. #31, what cuBLAS's kernel does beside step 19 at 4096^3: its name (tile, cluster) and counters
#     (L2 sectors, HBM bytes, shared wavefronts, warp-instructions, SM clock), a bench round under
#     Nsight Compute (about 1 minute) -> ncu.tgz.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-06-card/device1.sh
here="$(dirname "$0")"
bash "$here/../2026-12-05-power/device1.sh"
source "$here/../../../scripts/device-call.sh"
cp $OUT/r/env.txt $OUT/env.txt
pack() { cat $OUT/r/status.txt; (cd $OUT && mv r $1 && tar czf $1.tgz $1 && rm -rf $1); mkdir -p $OUT/r; cp $OUT/env.txt $OUT/r/; }
for i in 1 2; do
  timeout 60 $B/gemmscope_timing_probes --only cp_async_fill_rows32 --json $OUT/r/fill-$i.json > $OUT/r/fill-$i.log 2>&1
  echo "fill rows $i rc=$?" >> $OUT/r/status.txt
done
grep -h "^cp_async_fill" $OUT/r/fill-1.log $OUT/r/fill-2.log | cut -c1-72
pack fill
timeout 200 $B/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
echo "compare-model rc=$?" >> $OUT/r/status.txt
echo "identical rows: $(grep -c 'identical, bit for bit' $OUT/r/compare.log)"
grep "model vs GPU:" $OUT/r/compare.log | grep -v "identical, bit for bit\|race:\|hangs on the GPU too" | head
pack compare
M=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,lts__t_sectors.sum,dram__bytes.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum
timeout --kill-after=10 100 ncu --metrics "$M" --launch-count 12 $B/gemmscope bench hopper_stmatrix_epilogue --sizes 4096 \
  --reps 1 > $OUT/r/ncu-step19-cublas.txt 2>&1
echo "ncu rc=$?" >> $OUT/r/status.txt
grep -E "^  [A-Za-z_]|gpu__time|cycles_elapsed|lts__t|dram__|wavefronts|inst_executed" $OUT/r/ncu-step19-cublas.txt | cut -c1-150 | head -60
pack ncu
rm -rf $OUT/r
