#!/usr/bin/env bash
# The SIMT rungs on the H100: bench + model comparison, edge shapes, ncu shared-memory counters, SASS.
set -u
D=$(dirname "$0"); G=$D/gemmscope
[ -d /usr/local/cuda/lib64 ] && export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
IDS="simt_naive simt_coalesced simt_smem_tiling simt_blocktile_1d simt_blocktile_2d simt_vectorized simt_warptile"
mkdir -p $OUT/ncu $OUT/sass
$G devices > $OUT/devices.log 2>&1
echo "== bench 4096 ($(date +%T))"
timeout 100 $G bench $IDS --sizes 4096 --reps 10 --compare-model --json $OUT/bench.json > $OUT/bench.log 2>&1; echo "bench rc $?"
echo "== edges ($(date +%T))"
timeout 40 $G bench $IDS --sizes 1000x1000x1000,992x992x992,960x1024x1000,896x1152x1000,896x1152x1008 --reps 3 --json $OUT/edges.json > $OUT/edges.log 2>&1; echo "edges rc $?"
echo "== ncu ($(date +%T))"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
for id in simt_coalesced simt_smem_tiling simt_blocktile_1d simt_blocktile_2d simt_vectorized simt_warptile; do
  timeout 22 $NCU --metrics $M --launch-count 1 $G bench $id --sizes example --reps 0 --no-cublas --in-process > $OUT/ncu/$id.log 2>&1; echo "ncu $id rc $?"
done
echo "== sass ($(date +%T))"
OBJ=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null)
for c in $D/*.cubin; do n=$(basename $c .cubin); [ -n "$OBJ" ] && $OBJ -sass $c | grep -E "LDS|STS|LDG|STG|BAR" > $OUT/sass/$n.txt 2>&1; done
echo "done $(date +%T)"
