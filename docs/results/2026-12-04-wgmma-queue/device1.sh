#!/usr/bin/env bash
# Device call 1 (#29): how many wgmmas a warp hands the tensor cores before its issue waits.
# The wgmma_issue_* probes twice (and the wgmma rate probes beside them), and the SASS of two of
# them, to see that the clock reads stay around the HGMMAs.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-wgmma-queue/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r/ptx
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $OUT/r/env.txt 2>&1
for run in 1 2; do
  $B/gemmscope_timing_probes --only wgmma_issue --json $OUT/r/probes$run.json --ptx $OUT/r/ptx > $OUT/r/probes$run.txt 2>&1
  echo "probes run $run rc=$?" >> $OUT/r/status.txt
done
for p in wgmma_issue_b8_n256_1wg wgmma_issue_b4_n256_2wg_keep1; do
  ptxas -arch=sm_90a -o $OUT/r/$p.cubin $OUT/r/ptx/$p.ptx && cuobjdump -sass $OUT/r/$p.cubin > $OUT/r/$p.sass 2>&1
  rm -f $OUT/r/$p.cubin
done
cat $OUT/r/status.txt; grep -E "^wgmma" $OUT/r/probes1.txt $OUT/r/probes2.txt
(cd $OUT && tar czf r1.tgz r && rm -rf r)
