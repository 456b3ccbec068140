#!/usr/bin/env bash
# Device call 5 (#29): in what order the tensor cores take two warpgroups' wgmmas (wgmma_order_*),
# twice, with the SASS of one.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-04-wgmma-queue/device5.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r/ptx
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $OUT/r/env.txt 2>&1
for run in 1 2; do
  $B/gemmscope_timing_probes --only wgmma_order wgmma_issue_b8_n256_2wg --json $OUT/r/probes$run.json --ptx $OUT/r/ptx > $OUT/r/probes$run.txt 2>&1
  echo "probes run $run rc=$?" >> $OUT/r/status.txt
done
ptxas -arch=sm_90a -o $OUT/r/o.cubin $OUT/r/ptx/wgmma_order_b8.ptx && cuobjdump -sass $OUT/r/o.cubin > $OUT/r/wgmma_order_b8.sass 2>&1; rm -f $OUT/r/o.cubin
cat $OUT/r/status.txt; grep -E "^wgmma" $OUT/r/probes1.txt $OUT/r/probes2.txt | cut -c1-80
(cd $OUT && tar czf r5.tgz r && rm -rf r)
