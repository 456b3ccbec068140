#!/usr/bin/env bash
# Device call 1: the cp.async probes with 4 whole lines a copy and with 16 lines of one sector
# (two lanes a row, as step 09's copies), alone and beside ld.shared, twice; Nsight Compute's L1
# counters and per-instruction wavefronts of the two plain-copy probes.
#   OUT=/tmp/out B=build/carry2 bash docs/results/2026-12-03-lines/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/src
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
for run in 1 2; do
  timeout 200 $B/gemmscope_timing_probes --only cp_async_fill l1_fill_v4 lds_rate_v1_32warps \
    --json $OUT/probes-$run.json > $OUT/probes-$run.log 2>&1
  echo "probes $run rc=$?" >> $OUT/status.txt
done
M=l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_writes.sum,l1tex__data_bank_reads.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__m_l1tex2xbar_req_cycles_active.avg.pct_of_peak_sustained_active,l1tex__lsuin_requests.sum,sm__cycles_active.avg
for p in cp_async_fill_32warps cp_async_fill_rows32_32warps cp_async_fill_rows64_32warps; do
  timeout --kill-after=10 100 ncu --section WarpStateStats --section SourceCounters --metrics $M --launch-count 1 \
    -k regex:"timing_cp_async" -o $OUT/src/$p $B/gemmscope_timing_probes --only $p > $OUT/src/$p.log 2>&1
  echo "ncu $p rc=$?" >> $OUT/status.txt
  ncu -i $OUT/src/$p.ncu-rep --page details > $OUT/src/$p.details.txt 2>&1
  ncu -i $OUT/src/$p.ncu-rep --page source --csv --print-source sass > $OUT/src/$p.sass.csv 2>&1
done
rm -f $OUT/src/*.ncu-rep
cat $OUT/env.txt $OUT/status.txt
grep -E "^(cp_|l1_|lds)" $OUT/probes-1.log $OUT/probes-2.log | cut -c1-110
(cd $OUT && tar czf src.tgz src && rm -rf src)
