#!/usr/bin/env bash
# The second device call of the session's final check (the first is scripts/device-check.sh):
# the Hopper steps 11-16 with their new stage defaults next to cuBLAS at the four sizes of
# issue #17 in one run; the SASS tests with nvdisasm (issue #19); and step 09's ld.shared bank
# conflicts under ncu three times, with per-instruction-kind counters, to find where the 15
# conflicts the model does not count come from.
B=build/devcarry
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
IDS="hopper_tma_wgmma_64 hopper_tile_128 hopper_producer_consumer hopper_two_consumers hopper_persistent hopper_fewer_arrivals"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv; } > $OUT/env2.txt 2>&1
timeout 200 $B/gemmscope bench $IDS --sizes 2048,4096,8192,4096x1024x8192 --reps 20 --json $OUT/ladder.json > $OUT/ladder.log 2>&1
echo "ladder rc=$?" >> $OUT/ladder.log
GEMMSCOPE_REQUIRE_NVDISASM=1 GEMMSCOPE_REQUIRE_PTXAS=1 GEMMSCOPE_PTXAS=/usr/local/cuda/bin/ptxas timeout 60 \
  $B/tests/gemmscope_tests "[sass]" > $OUT/sass-tests.log 2>&1; echo "sass tests rc=$?" >> $OUT/sass-tests.log
{ for id in hopper_tma_wgmma_64 hopper_two_consumers hopper_fewer_arrivals ampere_ldmatrix; do
    echo "=== gemmscope sass $id"; GEMMSCOPE_PTXAS=/usr/local/cuda/bin/ptxas timeout 30 $B/gemmscope sass $id; echo "rc=$?"; done; } > $OUT/sass.txt 2>&1
# Issue #18: the runner refuses the sm_100a steps on the H100 with a clear message (exit 3).
{ timeout 60 $B/tests/gemmscope_tests "*refuse sm_100a kernels*" 2>&1 | tail -4
  for id in blackwell_tcgen05_basic blackwell_ws_ring blackwell_2sm; do timeout 30 $B/gemmscope bench $id --sizes example --reps 0; echo "bench $id rc=$?"; done; } > $OUT/refusal.txt 2>&1
M="l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed_op_ldgsts.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum"
{ for i in 1 2 3; do echo "=== ampere_cp_async run $i"
    timeout 90 ncu --metrics "$M" --launch-count 1 $B/gemmscope bench ampere_cp_async --sizes example --reps 0 --no-cublas --in-process --kernel-timeout 300 2>&1 | grep -E "l1tex|smsp|==PROF==|Error" ; done; } > $OUT/ncu-09.txt 2>&1
grep -v "^$" $OUT/ladder.log | tail -26; tail -5 $OUT/sass-tests.log; grep -E "^===|HGMMA|UTMALDG|SYNCS|rc=" $OUT/sass.txt | head -40; cat $OUT/ncu-09.txt; cat $OUT/refusal.txt
