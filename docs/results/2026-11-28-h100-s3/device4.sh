#!/usr/bin/env bash
# Device call 4 (about 7 minutes): C in bf16 (c_dtype) on steps 17 and 18 against cuBLAS with a
# bf16 C, and in f32 against cuBLAS's f32 C, in the same program runs, at the sizes;
# integer inputs at the edges (bit for bit with the reference rounded once); the model against
# the GPU bit for bit at the example shape with every mistake; SASS of the bf16 builds; every
# [gpu] test.
#   OUT=/tmp/out bash docs/results/<this folder>/device4.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
S=2048,4096,6144,8192,4096x1024x8192,3000x5000x4096
for round in 1 2; do
  for c in f32 bf16; do
    timeout 150 $B/gemmscope bench hopper_cluster_multicast hopper_tma_store --param c_dtype=$c --sizes $S --reps 20 \
      --json $OUT/bench-$c-r$round.json >> $OUT/bench.log 2>&1
    echo "bench c_dtype=$c round $round rc=$?" >> $OUT/status.txt
  done
done
timeout 200 $B/gemmscope bench hopper_cluster_multicast hopper_tma_store --param c_dtype=bf16 --inputs int --reps 0 \
  --sizes 1000x1000x1000,128x128x4096,8192x8192x64,64x8192x8192,200x264x136 --json $OUT/edges-bf16.json >> $OUT/edges.log 2>&1
echo "edges bf16 rc=$?" >> $OUT/status.txt
for k in hopper_cluster_multicast hopper_tma_store; do
  timeout 120 $B/gemmscope bench $k --param c_dtype=bf16 --sizes example --reps 0 --compare-model >> $OUT/compare.log 2>&1
  echo "compare-model $k bf16 rc=$?" >> $OUT/status.txt
  timeout 60 $B/gemmscope sass $k --param c_dtype=bf16 > $OUT/sass-$k-bf16.txt 2>&1
  echo "sass $k rc=$? HGMMA=$(grep -c HGMMA $OUT/sass-$k-bf16.txt) LDL=$(grep -c 'LDL\b' $OUT/sass-$k-bf16.txt) STL=$(grep -c 'STL\b' $OUT/sass-$k-bf16.txt) UTMASTG=$(grep -c UTMASTG $OUT/sass-$k-bf16.txt) F2FP=$(grep -c F2FP $OUT/sass-$k-bf16.txt)" >> $OUT/status.txt
done
timeout 280 $B/tests/gemmscope_tests "[gpu]" -r console -o $OUT/gpu-tests.txt > /dev/null 2>&1
echo "gpu-tests rc=$?" >> $OUT/status.txt
cd $OUT && tar czf sass.tgz sass-*.txt && rm sass-*.txt
cat $OUT/status.txt
grep -E "TFLOP/s|WRONG|error" $OUT/bench.log | head -60
grep -E "correct|WRONG|mismatch" $OUT/edges.log | head -20
tail -n 15 $OUT/compare.log
tail -n 3 $OUT/gpu-tests.txt
