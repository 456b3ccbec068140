#!/usr/bin/env bash
# #31: the consumers' descriptors from their low words (hopper::RingDescriptors, consume_k_block)
# against the 64-bit form, on one card: build/c1 (old, 317f5d0) and build/c2 (new), each unpacked.
#  1. SASS of step 19's K loop, both -> sass.tgz;
#  2. Nsight Compute cycles at its locked clock, 8192^3, one launch each: steps 16, 19 (and 19 with
#     staging=slab stages=3), old then new -> ncu.tgz;
#  3. sustained beside cuBLAS (bench --reps 20 --sustain 2000), old and new in turn, steps 16-19 and
#     19 slab/3 (bf16 C), 8192^3 then 4096^3 -> ab.tgz;
#  4. new: every kernel and mistake against the model at the example shape, and the [step19] GPU
#     tests -> compare.tgz.
#   mkdir -p build/o build/n && tar xJf build/c1/c.txz -C build/o && tar xJf build/c2/c.txz -C build/n && OUT=$OUT bash docs/results/2026-12-07-step19/device3.sh
here="$(dirname "$0")"
B=build/n
source "$here/../../../scripts/device-call.sh"
O=build/o N=build/n
cat $OUT/r/env.txt
for v in o n; do
  timeout 60 build/$v/gemmscope sass hopper_stmatrix_epilogue --m 8192 --n 8192 --k 8192 > $OUT/r/sass-$v.txt 2>&1
done
(cd $OUT && tar czf sass.tgz r/sass-* r/env.txt)
M="sm__cycles_elapsed.avg,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,gpu__time_duration.sum"
for k in "hopper_fewer_arrivals" "hopper_stmatrix_epilogue" "hopper_stmatrix_epilogue --param staging=slab --param stages=3"; do
  for v in o n; do
    name=$(echo "$k" | tr ' =' '__' | cut -c1-60)-$v
    timeout -k 5 90 ncu --metrics "$M" -k regex:'^hopper' --launch-count 1 build/$v/gemmscope bench $k --sizes 8192 \
      --reps 0 --no-cublas --param c_dtype=bf16 > $OUT/r/ncu-$name.txt 2>&1 || \
    timeout -k 5 90 ncu --metrics "$M" -k regex:'^hopper' --launch-count 1 build/$v/gemmscope bench $k --sizes 8192 \
      --reps 0 --no-cublas > $OUT/r/ncu-$name.txt 2>&1
    echo "ncu $name rc=$? at $SECONDS s" >> $OUT/r/status.txt
  done
done
(cd $OUT && tar czf ncu.tgz r/ncu-* r/status.txt)
for size in 8192 4096; do
  for k in "hopper_fewer_arrivals" "hopper_cluster_multicast --param c_dtype=bf16" "hopper_tma_store --param c_dtype=bf16" \
           "hopper_stmatrix_epilogue --param c_dtype=bf16" "hopper_stmatrix_epilogue --param c_dtype=bf16 --param staging=slab --param stages=3"; do
    for v in o n; do
      name=$(echo "$k" | tr ' =' '__' | cut -c1-70)-$size-$v
      timeout -k 5 40 build/$v/gemmscope bench $k --sizes $size --reps 20 --sustain 2000 --json $OUT/r/ab-$name.json \
        > $OUT/r/ab-$name.log 2>&1
      echo "ab $name rc=$? at $SECONDS s" >> $OUT/r/status.txt
    done
  done
  (cd $OUT && tar czf ab.tgz r/ab-* r/status.txt)
done
timeout 150 $N/gemmscope bench all --sizes example --reps 0 --compare-model --json $OUT/r/compare.json > $OUT/r/compare.log 2>&1
echo "compare-model rc=$? at $SECONDS s" >> $OUT/r/status.txt
timeout 120 $N/tests/gemmscope_tests "[step17],[step18],[step19]" > $OUT/r/step19-tests.log 2>&1
echo "[step19] tests rc=$? at $SECONDS s" >> $OUT/r/status.txt
(cd $OUT && tar czf compare.tgz r/compare.* r/step19-tests.log r/status.txt)
grep -h "TFLOP/s" $OUT/r/ab-*.log | sed 's/ ... / /' | cut -c1-150
for f in $OUT/r/ncu-*.txt; do echo "$(basename $f): $(grep -E 'sm__cycles_elapsed|hmma' $f | awk '{print $NF}' | tr '\n' ' ')"; done
tail -4 $OUT/r/status.txt
