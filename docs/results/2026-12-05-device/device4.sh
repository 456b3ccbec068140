#!/usr/bin/env bash
# Device call 4 (issue #29): the ring without math where the wave reads less from HBM (4096^3) and
# for 128 x 256 tiles (48 KiB a K block, pace 1 and pace 26), twice, with the 8192^3 pace-1 rows
# of call 1 again in the same run.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-05-device/device4.sh     (about 3 minutes)
source "$(dirname "$0")/../../../scripts/device-call.sh"
rows="tma_gemm_ring4096_s2_pace1_ tma_gemm_ring4096_s3_pace1_ tma_gemm_ring4096_s4_pace1_ tma_gemm_ring4096_s5_pace1_ tma_gemm_ring4096_s6_pace1_ tma_gemm_ring8192_n256_ tma_gemm_ring4096_n256_"
for i in 1 2; do
  timeout 150 $B/gemmscope_timing_probes --only $rows --json $OUT/r/rows-$i.json > $OUT/r/rows-$i.log 2>&1
  echo "rows $i rc=$?" >> $OUT/r/status.txt
done
timeout 100 $B/gemmscope_timing_probes --only tma_gemm_ring8192_s2_pace1_ tma_gemm_ring8192_s3_pace1_ tma_gemm_ring8192_s4_pace1_ tma_gemm_ring8192_s5_pace1_ tma_gemm_ring8192_s6_pace1_ --json $OUT/r/pace1-8192.json > $OUT/r/pace1-8192.log 2>&1
echo "8192 pace-1 rc=$?" >> $OUT/r/status.txt
cat $OUT/r/env.txt $OUT/r/status.txt
grep -hE "_period " $OUT/r/rows-1.log $OUT/r/rows-2.log $OUT/r/pace1-8192.log | cut -c1-62
(cd $OUT && tar czf r4.tgz r && rm -rf r)
