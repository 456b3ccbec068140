#!/usr/bin/env bash
# Device call 2 (about 7 minutes): whether the L1's global loads and shared memory's wavefronts
# share one data path (probe l1_shared_mix_32warps beside each kind alone), and step 19 (the
# stmatrix epilogue): steps 18 and 19 against cuBLAS with the same C type in the same run, its
# SASS, the GPU's bytes against the model's ([step19]), and ncu's bank counters against the model's.
#   OUT=/tmp/out bash docs/results/<this folder>/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
st() { echo "$1 rc=$2 $(date +%T)" >> $OUT/status.txt; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv > $OUT/env.txt 2>&1
timeout 120 $B/gemmscope_timing_probes --only l1_ lds_rate_v1 --json $OUT/probes-l1.json > $OUT/probes-l1.log 2>&1; st probes $?
for c in bf16 f32; do
  timeout 130 $B/gemmscope bench hopper_tma_store hopper_stmatrix_epilogue --param c_dtype=$c \
    --sizes 2048,4096,6144,8192,4096x1024x8192,3000x5000x4096 --reps 20 --json $OUT/bench-s18-s19-$c.json \
    > $OUT/bench-$c.log 2>&1; st bench-$c $?
done
for c in bf16 f32; do
  timeout 60 $B/gemmscope sass hopper_stmatrix_epilogue --m 4096 --n 4096 --k 4096 --param c_dtype=$c > $OUT/sass19-$c.txt 2>&1
  st sass-$c $?
  { echo "$c: HGMMA=$(grep -c HGMMA $OUT/sass19-$c.txt) STSM=$(grep -c STSM $OUT/sass19-$c.txt) UTMASTG=$(grep -c UTMASTG $OUT/sass19-$c.txt) LDL/STL=$(grep -cwE 'LDL|STL' $OUT/sass19-$c.txt)"
    awk '/^  PTX/{p=$0} /HGMMA/{print p}' $OUT/sass19-$c.txt | sort | uniq -c; } >> $OUT/sass-summary.txt
done
timeout 150 $B/tests/gemmscope_tests "[step19]" > $OUT/gpu-step19.txt 2>&1; st gpu-step19 $?
KERNELS="hopper_tma_store hopper_stmatrix_epilogue" MISTAKES="hopper_stmatrix_epilogue:unswizzled-staging" \
  NCU_TIMEOUT=60 timeout 200 bash scripts/ncu-bank-conflicts.sh $B/gemmscope $OUT/ncu19 > $OUT/ncu19.log 2>&1; st ncu19 $?
(cd $OUT && tar czf ncu19.tgz ncu19 && rm -rf ncu19)
cat $OUT/status.txt; grep -E "l1_|lds_rate_v1" $OUT/probes-l1.log; cat $OUT/sass-summary.txt; tail -3 $OUT/gpu-step19.txt
grep -E "TFLOP|hopper_" $OUT/bench-*.log | head -40; tail -8 $OUT/ncu19.log
