#!/usr/bin/env bash
# Device call 4 (about 2 minutes): how much of the footprint sweep comes from HBM, by footprint
# (Nsight Compute's DRAM bytes and L2 hit rate on the probes tma_l2_bw_footprint*): how much of L2 a
# working set that every SM reads keeps from one sweep (one wave) to the next.
#   OUT=/tmp/out B=build/carry bash docs/results/2026-12-02-l2/device3.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/ncu
for mib in 16 24 28 32 40 48 56 80; do
  timeout --kill-after=10 60 ncu --metrics dram__bytes_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_op_read.sum \
    --launch-count 1 -k regex:'^timing_tma' $B/gemmscope_timing_probes --only tma_l2_bw_footprint${mib}m > $OUT/ncu/footprint$mib.txt 2>&1
  echo "footprint ${mib} MiB rc=$? $(grep -E 'dram__bytes_read.sum|xbar2l1tex|hit_rate|ltcfabric|op_read.sum' $OUT/ncu/footprint$mib.txt | awk '{printf "%s %s %s; ", $1, $(NF-1), $NF}')" >> $OUT/status.txt
done
cat $OUT/status.txt
(cd $OUT && tar czf ncu.tgz ncu && rm -rf ncu)
