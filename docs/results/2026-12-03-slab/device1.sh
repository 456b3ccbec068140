#!/usr/bin/env bash
# Device call 1 (#31): step 19 with staging=slab (a buffer for every chunk of a consumer's slab, two
# meetings a tile) on the card: the GPU's C against the model's bit for bit (bench --compare-model at
# two shapes, every mistake; the [step19] GPU tests), its SASS, and a sweep of staging x stages x
# store_barrier beside cuBLAS (bf16 C, paired rounds) at 4096^3, 6144^3 and 8192^3.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-03-slab/device1.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv; } > $OUT/env.txt 2>&1
timeout 90 $B/gemmscope bench hopper_stmatrix_epilogue --sizes example,1000x1000x512 --reps 0 --compare-model \
  --param staging=slab --param stages=3 --json $OUT/r/compare-slab.json > $OUT/r/compare-slab.log 2>&1
echo "compare-model slab rc=$?" >> $OUT/status.txt
timeout 150 $B/tests/gemmscope_tests "[step19]" > $OUT/r/tests-step19.log 2>&1
echo "tests [step19] rc=$?" >> $OUT/status.txt
for p in "" "--param staging=slab --param stages=3"; do
  timeout 60 $B/gemmscope sass hopper_stmatrix_epilogue --m 4096 --n 4096 --k 4096 $p > "$OUT/r/sass${p:+-slab}.txt" 2>&1
  echo "sass '$p' rc=$?" >> $OUT/status.txt
done
SW="--param staging=0,1 --param stages=3,4 --param store_barrier=0,1 --gpu --reps 20"
timeout 240 $B/gemmscope sweep hopper_stmatrix_epilogue $SW --sizes 4096,6144 \
  --json $OUT/r/sweep-4096-6144.json --csv $OUT/r/sweep-4096-6144.csv > $OUT/r/sweep-4096-6144.log 2>&1
echo "sweep 4096,6144 rc=$?" >> $OUT/status.txt
timeout 200 $B/gemmscope sweep hopper_stmatrix_epilogue $SW --sizes 8192 \
  --json $OUT/r/sweep-8192.json --csv $OUT/r/sweep-8192.csv > $OUT/r/sweep-8192.log 2>&1
echo "sweep 8192 rc=$?" >> $OUT/status.txt
cat $OUT/env.txt $OUT/status.txt
grep "model vs GPU:" $OUT/r/compare-slab.log
tail -3 $OUT/r/tests-step19.log
for f in $OUT/r/sass*.txt; do echo "== $f"; for op in HGMMA STSM UTMASTG LDL STL BAR; do echo "$op $(grep -c "\b$op" $f)"; done; done
for f in $OUT/r/sweep-*.log; do echo "== $f"; grep -v "^\[" $f | head -40; done
(cd $OUT && tar czf r.tgz r && rm -rf r)
