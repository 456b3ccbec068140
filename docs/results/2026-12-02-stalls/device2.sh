#!/usr/bin/env bash
# Device call 2 (about 1 minute): what taking lines in from L2 costs the L1's data path.
#  1. the timing probes l1_fill_* (ld.global of lines no load read before, alone and between
#     ld.shared) and cp_async_fill_* (cp.async.cg from L2 into shared memory, alone and beside
#     ld.shared), with the all-hit rows beside them;
#  2. Nsight Compute's L1 counters on four of them (wavefronts, sectors from L2, bank writes).
#   OUT=/tmp/out B=build/carry bash docs/results/2026-12-02-stalls/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
for run in 1 2; do
  timeout 120 $B/gemmscope_timing_probes --only l1_fill cp_async_fill l1_loads_stride4_32warps l1_shared_mix lds_rate_v1_32warps \
    --json $OUT/probes-fill-$run.json > $OUT/probes-fill-$run.log 2>&1
  echo "probes run $run rc=$?" >> $OUT/status.txt
done
METRICS="l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__m_xbar2l1tex_read_sectors.sum,\
l1tex__data_bank_writes.sum,l1tex__data_bank_reads.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,\
l1tex__lsuin_requests.sum,sm__cycles_active.max,breakdown:l1tex__throughput.avg.pct_of_peak_sustained_active"
for p in l1_fill_v1_32warps l1_fill_v4_32warps l1_fill_v1_lds8_32warps cp_async_fill_32warps cp_async_fill_lds8_32warps l1_loads_stride4_32warps; do
  timeout --kill-after=10 60 ncu --metrics "$METRICS" -k regex:'^timing_' $B/gemmscope_timing_probes --only $p > $OUT/ncu/$p.txt 2>&1
  echo "ncu $p rc=$?" >> $OUT/status.txt
done
cat $OUT/status.txt
grep -hE "^(l1_|cp_async|lds_rate)" $OUT/probes-fill-*.log | cut -c1-60
for f in $OUT/ncu/*.txt; do echo "== $(basename $f)"; grep -E "\.sum |hit_rate|cycles_active|pct_of_peak" $f | awk '{print $1, $NF}' | grep -v " 0$"; done
(cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu)
