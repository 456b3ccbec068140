#!/usr/bin/env bash
# Device call 2 (#31): step 19 with wgmma_in_flight=1 (a K block's wgmma group left running, its
# stage released a block later): C against the model bit for bit, SASS, and beside cuBLAS (bf16 C,
# paired rounds) with and without staging=slab at 4096^3, 6144^3 and 8192^3.
#   OUT=/tmp/out B=build/c bash docs/results/2026-12-03-slab/device2.sh
B=${B:-build/devcarry}
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=/usr/local/cuda/bin:$PATH
: "${OUT:?set OUT to the folder the results go to}"
mkdir -p $OUT/r
{ date -u; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version,power.limit --format=csv; } > $OUT/env.txt 2>&1
for c in 1 2 4; do
  timeout 60 $B/gemmscope bench hopper_stmatrix_epilogue --sizes example,1000x1000x512 --reps 0 --compare-model \
    --param wgmma_in_flight=1 --param cluster=$c > $OUT/r/compare-in-flight-c$c.log 2>&1
  echo "compare-model in_flight cluster=$c rc=$?" >> $OUT/status.txt
done
timeout 60 $B/gemmscope sass hopper_stmatrix_epilogue --m 4096 --n 4096 --k 4096 --param wgmma_in_flight=1 > $OUT/r/sass-in-flight.txt 2>&1
echo "sass rc=$?" >> $OUT/status.txt
SW="--param wgmma_in_flight=0,1 --param staging=0,1 --param stages=3,4 --gpu --reps 20"
timeout 250 $B/gemmscope sweep hopper_stmatrix_epilogue $SW --sizes 4096,6144 \
  --json $OUT/r/sweep2-4096-6144.json > $OUT/r/sweep2-4096-6144.log 2>&1
echo "sweep 4096,6144 rc=$?" >> $OUT/status.txt
timeout 200 $B/gemmscope sweep hopper_stmatrix_epilogue $SW --sizes 8192 \
  --json $OUT/r/sweep2-8192.json > $OUT/r/sweep2-8192.log 2>&1
echo "sweep 8192 rc=$?" >> $OUT/status.txt
cat $OUT/env.txt $OUT/status.txt
grep -h "model vs GPU:" $OUT/r/compare-in-flight-*.log
echo "SASS: $(grep -cE '^ +[0-9a-f]+ .*HGMMA' $OUT/r/sass-in-flight.txt) HGMMA, $(grep -cE '^ +[0-9a-f]+ .*(LDL|STL)' $OUT/r/sass-in-flight.txt) LDL/STL, $(grep -cE '^ +[0-9a-f]+ .*WARPGROUP.DEPBAR' $OUT/r/sass-in-flight.txt) WARPGROUP.DEPBAR"
grep -E '^ +[0-9a-f]+ .*(HGMMA|WARPGROUP.DEPBAR|SYNCS)' $OUT/r/sass-in-flight.txt | head -20
for f in $OUT/r/sweep2-*.log; do echo "== $f"; grep -v "^\[" $f | grep -v "cannot be built" | head -30; done
(cd $OUT && tar czf r2.tgz r && rm -rf r)
